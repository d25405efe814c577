# graphs.cmake: test-graphs reads traces the real sightline-gen writes with --graphs.
if(TARGET test-graphs AND TARGET sightline-gen)
  add_dependencies(test-graphs sightline-gen)
  target_compile_definitions(test-graphs PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
