# cache.cmake: test-cache runs the real sightline-gen for a trace large enough for the cached
# load's second thread (2^20 events).
if(TARGET test-cache AND TARGET sightline-gen)
  add_dependencies(test-cache sightline-gen)
  target_compile_definitions(test-cache PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
# the reports of two traces compared (tests/sl-test-trace.c, shared with test-live-append)
if(TARGET test-cache)
  target_sources(test-cache PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-test-trace.c)
endif()
