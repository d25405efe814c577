# tests/ui-events.cmake: test-ui-events drives the real window (the Events tab, the exports) in-process
# under Xvfb, so it compiles the window's and the application's sources and the GResource.
if(TARGET test-ui-events)
  target_sources(test-ui-events PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c
                 ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_include_directories(test-ui-events PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-events PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
