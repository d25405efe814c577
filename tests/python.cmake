# python.cmake: test-python records /usr/bin/python3 running tests/targets/sl-py-target.py with the
# real `sightline record` and sightlined, and links the library's core (its ring) and the daemon's
# Python code table (the location-table decoder) to test them directly.
if(TARGET test-python)
  add_dependencies(test-python sightline sightlined sightline-inject)
  target_link_libraries(test-python PRIVATE sightline-inject-core sightline-daemon-core
                                            PkgConfig::SQLITE)
  target_compile_definitions(test-python PRIVATE SL_SIGHTLINE_PATH="$<TARGET_FILE:sightline>")
  set_tests_properties(python PROPERTIES TIMEOUT 300)
endif()
