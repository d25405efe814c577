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
# test-analyze's /analyze/graphs reads traces sightline-gen writes with --graphs.
if(TARGET test-analyze AND TARGET sightline-gen)
  add_dependencies(test-analyze sightline-gen)
  target_compile_definitions(test-analyze PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
