# cuda-events.cmake: test-cuda-events writes traces at scale with the real sightline-gen binary.
if(TARGET test-cuda-events AND TARGET sightline-gen)
  add_dependencies(test-cuda-events sightline-gen)
  target_compile_definitions(test-cuda-events PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
