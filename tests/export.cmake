# export.cmake: test-export parses the Chrome JSON it writes with json-glib, plants traces
# (tests/sl-plant.c, the schema library) and runs the built `sightline export`.
target_sources(test-export PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
target_link_libraries(test-export PRIVATE sightline-schema PkgConfig::SL_JSON)
target_compile_definitions(test-export PRIVATE SL_SIGHTLINE_BIN="$<TARGET_FILE:sightline>")
add_dependencies(test-export sightline)
# the JSON round trips (nsys -> Chrome JSON -> model, Kineto JSON -> SQLite -> model) once the
# JSON reader is in the tree
if(EXISTS ${SL_SOURCE_DIR}/model/sl-reader-json.c)
  target_compile_definitions(test-export PRIVATE SL_HAVE_JSON_READER)
endif()
# /model/export/sqlite-graphs writes back the graph launches of traces sightline-gen writes.
if(TARGET sightline-gen)
  add_dependencies(test-export sightline-gen)
  target_compile_definitions(test-export PRIVATE SL_GEN_PATH="$<TARGET_FILE:sightline-gen>")
endif()
