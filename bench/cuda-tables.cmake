# bench-cuda-tables: loading a trace with graph launches, CUDA backtraces and CUDA events vs. the
# same trace without them.
add_executable(bench-cuda-tables ${CMAKE_CURRENT_LIST_DIR}/bench-cuda-tables.c)
target_link_libraries(bench-cuda-tables PRIVATE sightline-model PkgConfig::SQLITE)
