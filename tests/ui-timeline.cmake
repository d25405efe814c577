# tests/ui-timeline.cmake: test-ui-timeline writes small traces of its own (tests/sl-plant.c, the
# schema of collector/sl-schema.c) to lay out lanes it knows the order of.
if(TARGET test-ui-timeline)
  target_sources(test-ui-timeline PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-ui-timeline PRIVATE sightline-schema)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
# /ui/timeline/graphs draws the graph launches of a trace sightline-gen writes with --graphs.
if(TARGET test-ui-timeline AND TARGET sightline-gen)
  add_dependencies(test-ui-timeline sightline-gen)
  target_compile_definitions(test-ui-timeline PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
