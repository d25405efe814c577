# daemon.cmake: test-daemon runs the real sightlined and `sightline record` (on
# tests/targets/sl-test-target, built by record.cmake) against hostile and many clients, and
# against daemons that are not the client's own (a copy from another "install", an old one).
add_dependencies(test-daemon sightline sightlined sightline-inject sl-test-target)
target_link_libraries(test-daemon PRIVATE sightline-schema PkgConfig::SQLITE)
target_compile_definitions(test-daemon PRIVATE
  SL_SIGHTLINE_PATH="$<TARGET_FILE:sightline>"
  SL_DAEMON_PATH="$<TARGET_FILE:sightlined>"
  SL_INJECT_PATH="$<TARGET_FILE:sightline-inject>"
  SL_TARGET_PATH="$<TARGET_FILE:sl-test-target>")
set_tests_properties(daemon PROPERTIES TIMEOUT 300)
