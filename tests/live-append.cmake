# live-append.cmake: test-live-append compares appended traces with fresh loads
# (tests/sl-test-trace.c) and grows its files with SQLite directly.
if(TARGET test-live-append)
  target_sources(test-live-append PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-test-trace.c)
endif()
