# bench-memory: `sightline memory --at peak` on 10^6 allocations (issue 31): the memory model's
# build and the live allocations at the peak, against loading the same trace.
add_executable(bench-memory ${CMAKE_CURRENT_LIST_DIR}/bench-memory.c)
target_link_libraries(bench-memory PRIVATE sightline-model PkgConfig::SQLITE)
