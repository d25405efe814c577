# gen.cmake: test-gen runs the real sightline-gen binary and reads what it wrote.
if(TARGET test-gen AND TARGET sightline-gen)
  add_dependencies(test-gen sightline-gen)
  target_link_libraries(test-gen PRIVATE sightline-schema PkgConfig::SL_JSON)
  target_compile_definitions(test-gen PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
