# json.cmake: test-json parses the PyTorch traces with json-glib, as an oracle for the JSON reader.
target_link_libraries(test-json PRIVATE PkgConfig::SL_JSON)
