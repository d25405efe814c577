# bench-diff: `sightline diff A B` (parallel load, both sides' reports and analyses) vs. loading
# both traces one after the other and in parallel.  Writes its inputs with sightline-gen when they
# are missing.
add_executable(bench-diff ${CMAKE_CURRENT_LIST_DIR}/bench-diff.c)
target_link_libraries(bench-diff PRIVATE sightline-model)
add_dependencies(bench-diff sightline-gen)
target_compile_definitions(bench-diff PRIVATE SL_GEN_BIN="$<TARGET_FILE:sightline-gen>")
