# bench-calltree: call trees of 1 M samples (whole trace, a tenth) vs. a plain scan of their chains.
add_executable(bench-calltree ${CMAKE_CURRENT_LIST_DIR}/bench-calltree.c)
target_link_libraries(bench-calltree PRIVATE sightline-model)
