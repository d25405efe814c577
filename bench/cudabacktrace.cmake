# cudabacktrace.cmake: bench-cudabacktrace measures what --cudabacktrace costs the recorded
# program: the fake CUDA target (tests/cupti.cmake, only where CUDA and CUPTI are found) making
# ~10^5 synchronizing calls a second, recorded through the real `sightline record`.
if(SL_HAVE_CUDA)
  add_executable(bench-cudabacktrace ${CMAKE_CURRENT_SOURCE_DIR}/bench-cudabacktrace.c)
  target_include_directories(bench-cudabacktrace PRIVATE ${PROJECT_SOURCE_DIR}/model)
  target_link_libraries(bench-cudabacktrace PRIVATE PkgConfig::GLIB)
  target_compile_definitions(bench-cudabacktrace PRIVATE
    SL_SIGHTLINE_PATH="$<TARGET_FILE:sightline>"
    SL_FAKE_CUPTI_PATH="$<TARGET_FILE:sl-fake-cupti>"
    SL_FAKE_TARGET_PATH="$<TARGET_FILE:sl-fake-cuda-target>")
  add_dependencies(bench-cudabacktrace sightline sightlined sightline-inject sl-fake-cupti
                   sl-fake-cuda-target)
endif()
