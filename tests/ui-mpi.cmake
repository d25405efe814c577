# ui-mpi.cmake: test-ui-mpi opens a 4-rank MPI job the real sightline-gen writes (--mpi).
if(TARGET test-ui-mpi AND TARGET sightline-gen)
  add_dependencies(test-ui-mpi sightline-gen)
  target_compile_definitions(test-ui-mpi PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
