# bench-analyze: `sightline analyze` with every rule vs. the model's load of the same trace.
add_executable(bench-analyze ${CMAKE_CURRENT_LIST_DIR}/bench-analyze.c)
target_link_libraries(bench-analyze PRIVATE sightline-model)
