# occupancy.cmake: test-occupancy reads Kineto traces with json-glib and checks itself against
# NVIDIA's cuda_occupancy.h through a small C++ oracle, built only where a C++ compiler and
# the header are found (the header is all it needs: no libcudart, no GPU).
pkg_check_modules(JSONGLIB REQUIRED IMPORTED_TARGET json-glib-1.0)
target_link_libraries(test-occupancy PRIVATE PkgConfig::JSONGLIB)

find_path(SL_CUDA_OCCUPANCY_INCLUDE_DIR cuda_occupancy.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER AND SL_CUDA_OCCUPANCY_INCLUDE_DIR)
  enable_language(CXX)
  add_executable(occupancy-oracle ${CMAKE_CURRENT_SOURCE_DIR}/occupancy/oracle.cc)
  # SYSTEM: NVIDIA's header is not held to our -Werror.
  target_include_directories(occupancy-oracle SYSTEM PRIVATE ${SL_CUDA_OCCUPANCY_INCLUDE_DIR})
  target_compile_definitions(test-occupancy PRIVATE
    SL_OCCUPANCY_ORACLE="$<TARGET_FILE:occupancy-oracle>")
  add_dependencies(test-occupancy occupancy-oracle)
  message(STATUS "Occupancy oracle: ${SL_CUDA_OCCUPANCY_INCLUDE_DIR}/cuda_occupancy.h")
else()
  message(STATUS "Occupancy oracle not built (needs a C++ compiler and cuda_occupancy.h)")
endif()
