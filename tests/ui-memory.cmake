# tests/ui-memory.cmake: test-ui-memory drives the real SlWindow in-process (under Xvfb), as
# test-ui-window does, so it compiles the window's and the application's sources and templates.
if(TARGET test-ui-memory)
  target_sources(test-ui-memory PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c)
  target_include_directories(test-ui-memory PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-memory PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
  if(TARGET sightline-gen)
    add_dependencies(test-ui-memory sightline-gen)
    target_compile_definitions(test-ui-memory PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
  endif()
endif()
