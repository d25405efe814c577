# tests/ui-metrics.cmake: test-ui-metrics drives the real SlWindow in-process (under Xvfb), as
# test-ui-memory does, on traces the real sightline-gen writes (--gpu-metrics).
if(TARGET test-ui-metrics)
  target_sources(test-ui-metrics PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c)
  target_include_directories(test-ui-metrics PRIVATE ${SL_SOURCE_DIR}/app)
  target_link_libraries(test-ui-metrics PRIVATE sightline-schema sightline-resources)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
  if(TARGET sightline-gen)
    add_dependencies(test-ui-metrics sightline-gen)
    target_compile_definitions(test-ui-metrics PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
  endif()
endif()
