# collector.cmake: bench-collector measures the recorded program's overhead (through the real
# `sightline record`) and the daemon's writer throughput.
add_executable(bench-collector-target ${CMAKE_CURRENT_SOURCE_DIR}/bench-collector-target.c)
target_link_libraries(bench-collector-target PRIVATE Threads::Threads)
target_compile_options(bench-collector-target PRIVATE -O2)
if(SL_SANITIZE)
  target_compile_options(bench-collector-target PRIVATE -fno-sanitize=all)
  target_link_options(bench-collector-target PRIVATE -fno-sanitize=all)
endif()
add_executable(bench-collector ${CMAKE_CURRENT_SOURCE_DIR}/bench-collector.c)
target_link_libraries(bench-collector PRIVATE sightline-daemon-core PkgConfig::GLIB PkgConfig::SQLITE)
add_dependencies(bench-collector bench-collector-target sightline)
