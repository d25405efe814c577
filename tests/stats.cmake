# test-stats runs the built `sightline stats` and, where json-glib is installed, parses its JSON.
target_compile_definitions(test-stats PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
add_dependencies(test-stats sightline)
pkg_check_modules(SL_JSON_GLIB QUIET IMPORTED_TARGET json-glib-1.0)
if(SL_JSON_GLIB_FOUND)
  target_compile_definitions(test-stats PRIVATE SL_HAVE_JSON_GLIB)
  target_link_libraries(test-stats PRIVATE PkgConfig::SL_JSON_GLIB)
endif()
target_sources(test-stats PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-sql-aggregates.c)
