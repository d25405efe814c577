# openmp.cmake: test-openmp writes its traces with the real sightline-gen (--openmp, --openacc) and
# holds openmp_sum and openacc_sum to NVIDIA's SQL (median() and stdev() from sl-sql-aggregates.c);
# test-record-openmp reads its recording back through the model and checks openmp_sum the same way.
if(TARGET test-openmp AND TARGET sightline-gen)
  add_dependencies(test-openmp sightline-gen)
  target_compile_definitions(test-openmp PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
  target_sources(test-openmp PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-sql-aggregates.c)
endif()
if(TARGET test-record-openmp)
  target_sources(test-record-openmp PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-sql-aggregates.c)
endif()
