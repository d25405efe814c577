# mpi.cmake: test-mpi writes its MPI jobs with the real sightline-gen (--mpi, --ranks) and holds
# the MPI reports to NVIDIA's SQL (median() and stdev() from sl-sql-aggregates.c).
if(TARGET test-mpi AND TARGET sightline-gen)
  add_dependencies(test-mpi sightline-gen)
  target_compile_definitions(test-mpi PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
  target_sources(test-mpi PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-sql-aggregates.c)
endif()
