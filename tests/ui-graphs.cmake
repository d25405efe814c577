# ui-graphs.cmake: test-ui-graphs opens traces the real sightline-gen writes with --graphs.
if(TARGET test-ui-graphs AND TARGET sightline-gen)
  add_dependencies(test-ui-graphs sightline-gen)
  target_compile_definitions(test-ui-graphs PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
