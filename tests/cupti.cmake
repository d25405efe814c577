# cupti.cmake: test-cupti drives the injection library's CUPTI part (sl-inject-cupti.c) with
# activity records built by hand in CUDA's own structs; built only where CUDA and CUPTI are found.
# It lives in tests/cupti/ so that the test-*.c glob of tests/CMakeLists.txt does not build it
# everywhere.
if(SL_HAVE_CUDA)
  add_executable(test-cupti ${CMAKE_CURRENT_LIST_DIR}/cupti/test-cupti.c
                            ${CMAKE_CURRENT_LIST_DIR}/sl-test-util.c)
  target_include_directories(test-cupti PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_compile_definitions(test-cupti PRIVATE SL_TRACES_DIR="${SL_TRACES_DIR}")
  # the schema's enums (sl-schema.h includes sqlite3.h); GLib for g_test
  target_link_libraries(test-cupti PRIVATE sightline-inject-core sightline-schema PkgConfig::GLIB)
  # the test sees the library's _sl_count_drop calls (CUPTI's dropped records) through --wrap
  target_link_options(test-cupti PRIVATE -Wl,--wrap=_sl_count_drop)
  add_test(NAME cupti COMMAND test-cupti --tap)
  # the injection library opens CUPTI at run time: linked, a machine without it could not even
  # start the program it is preloaded into
  add_test(NAME inject-no-cupti-link
           COMMAND sh -c "! readelf -d \"$1\" | grep -q libcupti" sh $<TARGET_FILE:sightline-inject>)
  set_tests_properties(cupti PROPERTIES TIMEOUT 300 ENVIRONMENT "G_DEBUG=fatal-warnings")
endif()
