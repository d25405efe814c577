# bench-stats: `sightline stats --report cuda_gpu_kern_sum,cuda_api_sum` in-process vs. SQLite running nsys's SQL.
add_executable(bench-stats ${CMAKE_CURRENT_LIST_DIR}/bench-stats.c)
target_link_libraries(bench-stats PRIVATE sightline-model)
