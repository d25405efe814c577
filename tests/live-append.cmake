# live-append.cmake: test-live-append compares appended traces with fresh loads
# (tests/sl-test-trace.c) and grows its files with SQLite directly.
if(TARGET test-live-append)
  target_sources(test-live-append PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-test-trace.c)
endif()
# /model/live/mpi-openmp grows traces sightline-gen writes with --mpi, --mpi=nvtx and --openmp
# --openacc.
if(TARGET test-live-append AND TARGET sightline-gen)
  add_dependencies(test-live-append sightline-gen)
  target_compile_definitions(test-live-append PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
