# writer.cmake: test-writer feeds hand-built wire records to the daemon's trace writer.
if(TARGET test-writer)
  target_link_libraries(test-writer PRIVATE sightline-daemon-core)
endif()
