# ui-openmp.cmake: test-ui-openmp opens a trace the real sightline-gen writes (--openmp --openacc).
if(TARGET test-ui-openmp AND TARGET sightline-gen)
  add_dependencies(test-ui-openmp sightline-gen)
  target_compile_definitions(test-ui-openmp PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
endif()
