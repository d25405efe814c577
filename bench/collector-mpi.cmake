# collector-mpi.cmake: bench-collector-mpi measures what `sightline record -t mpi` costs the MPI
# ring of tests/targets/sl-mpi-ring.c (built here again as bench-mpi-ring, optimized), where
# CMake finds MPI.
find_package(MPI COMPONENTS C QUIET)
find_program(SL_BENCH_MPIRUN NAMES mpirun mpiexec)
if(MPI_C_FOUND AND SL_BENCH_MPIRUN)
  add_executable(bench-mpi-ring ${SL_SOURCE_DIR}/tests/targets/sl-mpi-ring.c)
  target_link_libraries(bench-mpi-ring PRIVATE MPI::MPI_C)
  target_compile_options(bench-mpi-ring PRIVATE -O2)
  if(SL_SANITIZE)
    target_compile_options(bench-mpi-ring PRIVATE -fno-sanitize=all)
    target_link_options(bench-mpi-ring PRIVATE -fno-sanitize=all)
  endif()
  add_executable(bench-collector-mpi ${CMAKE_CURRENT_SOURCE_DIR}/bench-collector-mpi.c)
  target_link_libraries(bench-collector-mpi PRIVATE sightline-model PkgConfig::GLIB)
  add_dependencies(bench-collector-mpi bench-mpi-ring sightline)
endif()
