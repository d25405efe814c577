# cupti.cmake: test-cupti drives the injection library's CUPTI part (sl-inject-cupti.c) with
# activity records built by hand in CUDA's own structs; test-fake-cupti records a fake CUDA program
# end to end through libsl-fake-cupti.so, a test double of libcupti.  Built only where CUDA and
# CUPTI are found.
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

  # The double of libcupti (SIGHTLINE_CUPTI names it) and the program that calls its fake CUDA:
  # both run inside the recorded process, which gets our library by LD_PRELOAD, so no sanitizer
  # runtime (as sl-test-target in record.cmake).
  add_library(sl-fake-cupti SHARED ${CMAKE_CURRENT_LIST_DIR}/cupti/fake-cupti.c)
  set_target_properties(sl-fake-cupti PROPERTIES C_VISIBILITY_PRESET hidden)
  target_include_directories(sl-fake-cupti PRIVATE ${CUDAToolkit_INCLUDE_DIRS}
                                                   ${SL_SOURCE_DIR}/collector/inject)
  target_link_libraries(sl-fake-cupti PRIVATE Threads::Threads ${CMAKE_DL_LIBS} m)
  add_executable(sl-fake-cuda-target ${CMAKE_CURRENT_LIST_DIR}/targets/sl-fake-cuda-target.c)
  target_include_directories(sl-fake-cuda-target PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cupti)
  target_link_libraries(sl-fake-cuda-target PRIVATE sl-fake-cupti)
  if(SL_SANITIZE)
    foreach(t sl-fake-cupti sl-fake-cuda-target)
      target_compile_options(${t} PRIVATE -fno-sanitize=all)
      target_link_options(${t} PRIVATE -fno-sanitize=all)
    endforeach()
  endif()
  add_executable(test-fake-cupti ${CMAKE_CURRENT_LIST_DIR}/cupti/test-fake-cupti.c
                                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-util.c)
  target_include_directories(test-fake-cupti PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(test-fake-cupti PRIVATE sightline-model PkgConfig::SQLITE
                                                PkgConfig::SL_JSON)
  target_compile_definitions(test-fake-cupti PRIVATE
    SL_TRACES_DIR="${SL_TRACES_DIR}"
    SL_SIGHTLINE_PATH="$<TARGET_FILE:sightline>"
    SL_FAKE_CUPTI_PATH="$<TARGET_FILE:sl-fake-cupti>"
    SL_FAKE_TARGET_PATH="$<TARGET_FILE:sl-fake-cuda-target>"
    SL_FAKE_PY_TARGET="${CMAKE_CURRENT_LIST_DIR}/targets/sl-fake-cuda.py")
  add_dependencies(test-fake-cupti sightline sightlined sightline-inject sl-fake-cupti
                   sl-fake-cuda-target)
  add_test(NAME fake-cupti COMMAND test-fake-cupti --tap)

  # the profiler host API as the injection library declares it for C, held to CUDA's C++ header
  # (static_asserts: a difference fails the build)
  add_library(sl-cupti-host-layout OBJECT ${CMAKE_CURRENT_LIST_DIR}/cupti/cupti-host-layout.cpp)
  target_include_directories(sl-cupti-host-layout PRIVATE ${CUDAToolkit_INCLUDE_DIRS}
                                                          ${SL_SOURCE_DIR}/collector/inject)

  # the writer's side of CUDA backtraces: a call's chain and its row, whichever comes first
  add_executable(test-cuda-chains ${CMAKE_CURRENT_LIST_DIR}/cupti/test-cuda-chains.c
                                  ${CMAKE_CURRENT_LIST_DIR}/sl-test-util.c)
  target_include_directories(test-cuda-chains PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_compile_definitions(test-cuda-chains PRIVATE SL_TRACES_DIR="${SL_TRACES_DIR}")
  target_link_libraries(test-cuda-chains PRIVATE sightline-daemon-core sightline-schema
                                                 PkgConfig::GLIB PkgConfig::SQLITE)
  add_test(NAME cuda-chains COMMAND test-cuda-chains --tap)
  set_tests_properties(fake-cupti PROPERTIES TIMEOUT 300 ENVIRONMENT "G_DEBUG=fatal-warnings")
endif()
