# sched.cmake: test-sched plants traces (tests/sl-plant.c, the schema library) with scheduling rows
# added, for the CPU evidence of gpu_gaps and cpu_bound.
if(TARGET test-sched)
  target_sources(test-sched PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_link_libraries(test-sched PRIVATE sightline-schema)
endif()
