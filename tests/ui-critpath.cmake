# tests/ui-critpath.cmake: test-ui-critpath drives the real SlWindow in-process (under Xvfb), as
# test-ui-window does, so it compiles the window's and the application's sources and templates.
if(TARGET test-ui-critpath)
  target_sources(test-ui-critpath PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c)
  target_include_directories(test-ui-critpath PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-critpath PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
