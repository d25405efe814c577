# analyze.cmake: test-analyze writes traces with planted problems (tests/sl-plant.c, the schema
# library) and checks what the rules find in them.
if(TARGET test-analyze)
  target_sources(test-analyze PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-analyze PRIVATE sightline-schema)
endif()
