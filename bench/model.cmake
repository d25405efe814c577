# bench-model: load time vs. a bare SQLite scan, memory per event, LOD and overlap query cost.
add_executable(bench-model ${CMAKE_CURRENT_LIST_DIR}/bench-model.c)
target_link_libraries(bench-model PRIVATE sightline-model)
