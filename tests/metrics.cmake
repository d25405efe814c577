# metrics.cmake: test-metrics generates its traces with the real sightline-gen (--gpu-metrics).
if(TARGET test-metrics AND TARGET sightline-gen)
  add_dependencies(test-metrics sightline-gen)
  target_compile_definitions(test-metrics PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
