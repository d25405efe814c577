# memory.cmake: test-memory runs the built `sightline memory` and reads its JSON with json-glib.
if(TARGET test-memory)
  target_link_libraries(test-memory PRIVATE PkgConfig::SL_JSON)
  target_compile_definitions(test-memory PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
  add_dependencies(test-memory sightline)
endif()
