# critical-path.cmake: test-critical-path writes planted traces (tests/sl-plant.c, the schema
# library) whose critical path is known, and reads HTA's simple_add trace from tests/data.
if(TARGET test-critical-path)
  target_sources(test-critical-path PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-critical-path PRIVATE sightline-schema)
endif()
