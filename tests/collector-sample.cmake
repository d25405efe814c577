# tests/collector-sample.cmake: the injection library's CPU sampler and the daemon's symbolizer.
# test-symbols looks itself up, exported functions included (-rdynamic puts them in .dynsym, which
# is what a stripped copy keeps); it runs strip, objcopy and readelf from binutils.
if(TARGET test-symbols)
  target_link_libraries(test-symbols PRIVATE sightline-daemon-core)
  set_target_properties(test-symbols PROPERTIES ENABLE_EXPORTS ON)
endif()
# test-sample samples itself in-process through the injection library's core (no daemon) and
# names the frames with the symbolizer.
if(TARGET test-sample)
  target_link_libraries(test-sample PRIVATE sightline-inject-core sightline-daemon-core)
endif()
