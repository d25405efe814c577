# ui-detail.cmake: test-ui-detail shows events of a planted trace (tests/sl-plant.c) in the pane.
if(TARGET test-ui-detail)
  target_sources(test-ui-detail PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-ui-detail PRIVATE sightline-schema)
endif()
