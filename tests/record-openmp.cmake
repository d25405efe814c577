# record-openmp.cmake: test-record-openmp records tests/targets/sl-omp-target, built with clang
# -fopenmp -g (LLVM's libomp, whose tools interface sl-inject-ompt.c uses; the project's compiler
# may be GCC, whose libgomp has none).  Built only where clang links an OpenMP program here; the
# test says it is skipped otherwise.
find_program(SL_CLANG NAMES clang clang-16 clang-15 clang-14)
set(SL_OMP_OK FALSE)
if(SL_CLANG)
  set(probe ${CMAKE_CURRENT_BINARY_DIR}/sl-omp-probe.c)
  file(WRITE ${probe} "#include <omp.h>\nint main (void) { return omp_get_max_threads () < 1; }\n")
  execute_process(COMMAND ${SL_CLANG} -fopenmp ${probe} -o ${CMAKE_CURRENT_BINARY_DIR}/sl-omp-probe
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(SL_OMP_OK TRUE)
  endif()
endif()
if(TARGET test-record-openmp)
  add_dependencies(test-record-openmp sightline sightlined sightline-inject)
  target_link_libraries(test-record-openmp PRIVATE PkgConfig::SQLITE)
  target_compile_definitions(test-record-openmp PRIVATE
    SL_SIGHTLINE_PATH="$<TARGET_FILE:sightline>")
  set_tests_properties(record-openmp PROPERTIES TIMEOUT 300)
  if(SL_OMP_OK)
    set(omp_target ${CMAKE_CURRENT_BINARY_DIR}/sl-omp-target)
    add_custom_command(OUTPUT ${omp_target}
                       COMMAND ${SL_CLANG} -fopenmp -g -O1 -o ${omp_target}
                               ${CMAKE_CURRENT_SOURCE_DIR}/targets/sl-omp-target.c
                       DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/targets/sl-omp-target.c
                       COMMENT "Building the OpenMP test program with clang -fopenmp")
    add_custom_target(sl-omp-target DEPENDS ${omp_target})
    add_dependencies(test-record-openmp sl-omp-target)
    target_compile_definitions(test-record-openmp PRIVATE SL_OMP_TARGET_PATH="${omp_target}")
  else()
    message(STATUS "clang -fopenmp (libomp-dev) not found: test record-openmp is skipped")
  endif()
endif()
