# bench-nvtx-proj: the NVTX GPU projection (model/sl-nvtx-proj.c) against loading the trace.
add_executable(bench-nvtx-proj ${CMAKE_CURRENT_LIST_DIR}/bench-nvtx-proj.c)
target_link_libraries(bench-nvtx-proj PRIVATE sightline-model)
