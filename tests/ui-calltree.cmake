# tests/ui-calltree.cmake: test-ui-calltree drives the real window (its sources and templates, as
# tests/ui-app.cmake does) on a trace it writes with the planted-trace library and SQL.
if(TARGET test-ui-calltree)
  target_sources(test-ui-calltree PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c
                 ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_include_directories(test-ui-calltree PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-calltree PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
