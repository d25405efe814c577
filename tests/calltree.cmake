# tests/calltree.cmake: test-calltree runs the built `sightline samples` and writes planted traces
# (tests/sl-plant.c, the schema library) with samples added in SQL.
target_compile_definitions(test-calltree PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
add_dependencies(test-calltree sightline)
target_sources(test-calltree PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
target_link_libraries(test-calltree PRIVATE sightline-schema)
