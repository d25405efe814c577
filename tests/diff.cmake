# diff.cmake: test-diff plants traces (tests/sl-plant.c, the schema library), runs the built
# `sightline diff` (and `sightline stats`, its oracle on the real traces) and reads their JSON with
# json-glib.
if(TARGET test-diff)
  target_sources(test-diff PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-diff PRIVATE sightline-schema PkgConfig::SL_JSON)
  target_compile_definitions(test-diff PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
  add_dependencies(test-diff sightline)
endif()
