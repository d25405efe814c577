# ui-detail.cmake: test-ui-detail shows events of a planted trace (tests/sl-plant.c) in the pane.
if(TARGET test-ui-detail)
  target_sources(test-ui-detail PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-ui-detail PRIVATE sightline-schema)
endif()
# /ui/detail/graphs shows graph launches and graph nodes of traces sightline-gen writes.
if(TARGET test-ui-detail AND TARGET sightline-gen)
  add_dependencies(test-ui-detail sightline-gen)
  target_compile_definitions(test-ui-detail PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
