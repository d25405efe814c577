# bench-critical-path: the critical path of a 1 M-event step vs. loading that trace and running
# analyze on it, in the same run.
add_executable(bench-critical-path ${CMAKE_CURRENT_LIST_DIR}/bench-critical-path.c)
target_link_libraries(bench-critical-path PRIVATE sightline-model)
