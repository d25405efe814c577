# summaries.cmake: test-summaries plants traces (tests/sl-plant.c, the schema library), runs the
# built `sightline analyze --format json` and `sightline merge-summaries`, and reads their JSON
# (and the real Kineto traces, for its oracle) with json-glib.
if(TARGET test-summaries)
  target_sources(test-summaries PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-summaries PRIVATE sightline-schema PkgConfig::SL_JSON)
  target_compile_definitions(test-summaries PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>"
                             SL_GEN_BIN="$<TARGET_FILE:sightline-gen>")
  add_dependencies(test-summaries sightline sightline-gen)
endif()
