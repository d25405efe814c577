# bench-render: frame time of the timeline widget at zoom levels (run under xvfb-run -a).
add_executable(bench-render ${CMAKE_CURRENT_LIST_DIR}/bench-render.c)
target_link_libraries(bench-render PRIVATE sightline-ui sightline-model)
