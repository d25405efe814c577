# merge.cmake: test-merge plants traces (tests/sl-plant.c, the schema library), reads wall clocks
# with SQL and runs the built `sightline info --merge`.
if(TARGET test-merge)
  target_sources(test-merge PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-merge PRIVATE sightline-schema PkgConfig::SQLITE)
  add_dependencies(test-merge sightline)
  target_compile_definitions(test-merge PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
endif()
