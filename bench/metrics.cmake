# bench-metrics: loading a trace with ~10^6 GPU_METRICS rows vs. the same trace without them.
add_executable(bench-metrics ${CMAKE_CURRENT_LIST_DIR}/bench-metrics.c)
target_link_libraries(bench-metrics PRIVATE sightline-model PkgConfig::SQLITE)
