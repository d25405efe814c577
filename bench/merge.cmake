# bench-merge: N traces loaded in parallel and merged vs. the sum of their single loads; the
# merged model's bytes per event.  Writes its inputs with sightline-gen when they are missing.
add_executable(bench-merge ${CMAKE_CURRENT_LIST_DIR}/bench-merge.c)
target_link_libraries(bench-merge PRIVATE sightline-model)
add_dependencies(bench-merge sightline-gen)
target_compile_definitions(bench-merge PRIVATE SL_GEN_BIN="$<TARGET_FILE:sightline-gen>")
