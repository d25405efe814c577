# bench-json: JSON load speed (plain and gzip), export speed and memory per event (issue 16).
add_executable(bench-json ${CMAKE_CURRENT_LIST_DIR}/bench-json.c)
target_link_libraries(bench-json PRIVATE sightline-model PkgConfig::ZLIB)
