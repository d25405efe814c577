# info.cmake: test-info runs the built `sightline info --format json` and parses it with json-glib.
target_compile_definitions(test-info PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
add_dependencies(test-info sightline)
target_link_libraries(test-info PRIVATE PkgConfig::SL_JSON PkgConfig::SQLITE)
