# gen.cmake: the synthetic trace generator sightline-gen (needs only the schema library, not model/).
add_executable(sightline-gen ${CMAKE_CURRENT_LIST_DIR}/sightline-gen.c)
target_include_directories(sightline-gen PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(sightline-gen PRIVATE sightline-schema)
