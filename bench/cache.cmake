# bench-cache: reopening a trace through the model cache vs. loading it from its file.
add_executable(bench-cache ${CMAKE_CURRENT_LIST_DIR}/bench-cache.c)
target_link_libraries(bench-cache PRIVATE sightline-model)
