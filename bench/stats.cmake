# bench-stats: `sightline stats --report cuda_gpu_kern_sum,cuda_api_sum` in-process vs. SQLite running nsys's SQL.
add_executable(bench-stats ${CMAKE_CURRENT_LIST_DIR}/bench-stats.c)
target_link_libraries(bench-stats PRIVATE sightline-model)
# the same median()/stdev() aggregates as the oracle in tests/
target_sources(bench-stats PRIVATE ${SL_SOURCE_DIR}/tests/sl-sql-aggregates.c)
target_include_directories(bench-stats PRIVATE ${SL_SOURCE_DIR}/tests)
