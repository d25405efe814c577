# tests/ui-first-view.cmake: test-ui-first-view opens real traces in the real SlWindow (under Xvfb)
# and looks at its first view: where the timeline is fitted, the panes' widths, the rows' names.
if(TARGET test-ui-first-view)
  target_sources(test-ui-first-view PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c)
  target_include_directories(test-ui-first-view PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-first-view PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
