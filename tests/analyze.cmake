# analyze.cmake: test-analyze writes traces with planted problems (tests/sl-plant.c, the schema
# library) and checks what the rules find in them.
if(TARGET test-analyze)
  target_sources(test-analyze PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-analyze PRIVATE sightline-schema)
endif()
# test-analyze runs the built `sightline analyze --range` (its errors and output).
if(TARGET test-analyze)
  add_dependencies(test-analyze sightline)
  target_compile_definitions(test-analyze PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
endif()
