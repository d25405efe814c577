# record.cmake: test-record runs the real `sightline record` (which starts the real sightlined) on
# tests/targets/sl-test-target, built here with NVTX when the CUDA headers are there.
add_executable(sl-test-target ${CMAKE_CURRENT_SOURCE_DIR}/targets/sl-test-target.c)
target_link_libraries(sl-test-target PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
# frame pointers and no inlining of the busy functions: the sampling test looks for them
target_compile_options(sl-test-target PRIVATE -O1 -fno-omit-frame-pointer)
# the recorded program, not code under test: it gets our library by LD_PRELOAD, which a sanitizer
# runtime would refuse to follow
if(SL_SANITIZE)
  target_compile_options(sl-test-target PRIVATE -fno-sanitize=all)
  target_link_options(sl-test-target PRIVATE -fno-sanitize=all)
endif()
# the scheduling tests' program: threads that spin, sleep and block in known ways; noinline
# functions the OS-runtime backtraces must show
add_executable(sl-sched-target ${CMAKE_CURRENT_SOURCE_DIR}/targets/sl-sched-target.c)
target_link_libraries(sl-sched-target PRIVATE Threads::Threads)
target_compile_options(sl-sched-target PRIVATE -O1 -fno-omit-frame-pointer)
if(SL_SANITIZE)
  target_compile_options(sl-sched-target PRIVATE -fno-sanitize=all)
  target_link_options(sl-sched-target PRIVATE -fno-sanitize=all)
endif()
if(SL_HAVE_CUDA)
  target_include_directories(sl-test-target PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_compile_definitions(sl-test-target PRIVATE SL_HAVE_NVTX=1)
endif()
if(TARGET test-record)
  add_dependencies(test-record sightline sightlined sightline-inject sl-test-target sl-sched-target)
  target_link_libraries(test-record PRIVATE PkgConfig::SQLITE sightline-schema)
  # the viewer's recording (app/sl-recording.c, GIO only) is driven in-process too
  target_sources(test-record PRIVATE ${SL_SOURCE_DIR}/app/sl-recording.c)
  target_include_directories(test-record PRIVATE ${SL_SOURCE_DIR}/app)
  target_compile_definitions(test-record PRIVATE
    SL_SIGHTLINE_PATH="$<TARGET_FILE:sightline>"
    SL_DAEMON_PATH="$<TARGET_FILE:sightlined>"
    SL_TARGET_PATH="$<TARGET_FILE:sl-test-target>"
    SL_SCHED_TARGET_PATH="$<TARGET_FILE:sl-sched-target>")
  if(SL_HAVE_CUDA)
    target_compile_definitions(test-record PRIVATE SL_HAVE_NVTX=1)
  endif()
  set_tests_properties(record PROPERTIES TIMEOUT 300)
endif()
