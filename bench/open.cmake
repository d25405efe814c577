# bench-open: first painted frame of the viewer vs. the model's load time.
add_executable(bench-open ${CMAKE_CURRENT_LIST_DIR}/bench-open.c)
target_link_libraries(bench-open PRIVATE sightline-model)
target_compile_definitions(bench-open PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
add_dependencies(bench-open sightline)
