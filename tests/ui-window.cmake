# tests/ui-window.cmake: test-ui-window drives the real SlWindow in-process (under Xvfb), as
# test-ui-app does, so it compiles the window's and the application's sources and their templates.
if(TARGET test-ui-window)
  target_sources(test-ui-window PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c)
  target_include_directories(test-ui-window PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-window PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
