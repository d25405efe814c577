# gen.cmake: the synthetic trace generator sightline-gen (the schema library; model/ only for
# --format kineto, in sl-gen-kineto.c).
add_executable(sightline-gen ${CMAKE_CURRENT_LIST_DIR}/sightline-gen.c
                             ${CMAKE_CURRENT_LIST_DIR}/sl-gen-kineto.c)
target_include_directories(sightline-gen PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(sightline-gen PRIVATE sightline-schema sightline-model)
