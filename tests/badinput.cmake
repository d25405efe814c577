# tests/badinput.cmake: test-badinput runs the built `sightline info` on bad files.
add_dependencies(test-badinput sightline)
target_compile_definitions(test-badinput PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
