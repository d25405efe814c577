# pytorch.cmake: bench-pytorch, CPU sampling's cost on a real PyTorch training loop
# (bench/bench-pytorch.py; needs Debian's python3-torch, see bench/setup-pytorch.sh, else it
# says it skipped).  Run: bench-pytorch build/sightline bench/bench-pytorch.py [RUNS [STEPS
# [OTHER-SIGHTLINE]]]; BENCH_PYTORCH_PERF=0 leaves perf out, BENCH_PYTORCH_CONCURRENT=1 runs a
# round's runs at once.  The sampler's own account of its cost (SIGHTLINE_SAMPLE_STATS) is read
# in every run.
add_executable(bench-pytorch ${CMAKE_CURRENT_LIST_DIR}/bench-pytorch.c)
target_link_libraries(bench-pytorch PRIVATE PkgConfig::GLIB PkgConfig::SQLITE)
add_dependencies(bench-pytorch sightline sightlined sightline-inject)
