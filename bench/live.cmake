# live.cmake: bench-live compares `sightline record` with the viewer's live recording, so it
# compiles the app's window sources (as test-ui-app does); `--grow` runs sightline-gen.
add_executable(bench-live ${CMAKE_CURRENT_SOURCE_DIR}/bench-live.c ${SL_APP_GUI_SOURCES})
target_include_directories(bench-live PRIVATE ${SL_SOURCE_DIR}/app)
target_link_libraries(bench-live PRIVATE sightline-ui sightline-model sightline-schema
                                         sightline-resources)
add_dependencies(bench-live sightline sightlined sightline-inject bench-collector-target
                                 sightline-gen)
