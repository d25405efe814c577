# tests/ui-timeline.cmake: test-ui-timeline writes small traces of its own (tests/sl-plant.c, the
# schema of collector/sl-schema.c) to lay out lanes it knows the order of.
if(TARGET test-ui-timeline)
  target_sources(test-ui-timeline PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-ui-timeline PRIVATE sightline-schema)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
