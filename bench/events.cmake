# bench-events: the Events tab on a lane of millions: open, sort, scroll frame times against a
# small lane of the same trace (run under xvfb-run -a).
add_executable(bench-events ${CMAKE_CURRENT_LIST_DIR}/bench-events.c)
target_link_libraries(bench-events PRIVATE sightline-ui sightline-model)
