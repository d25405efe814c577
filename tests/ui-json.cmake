# tests/ui-json.cmake: test-ui-json opens the PyTorch traces in the real SlApplication and SlWindow
# in-process (under Xvfb), so it compiles the window's and the application's sources.
if(TARGET test-ui-json)
  target_sources(test-ui-json PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c)
  target_include_directories(test-ui-json PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-json PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
