# writer.cmake: test-writer feeds hand-built wire records to the daemon's trace writer.
if(TARGET test-writer)
  target_link_libraries(test-writer PRIVATE sightline-daemon-core)
endif()
# the live view on what it writes: appended traces compared with fresh loads (tests/sl-test-trace.c)
if(TARGET test-writer)
  target_sources(test-writer PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-test-trace.c)
endif()
