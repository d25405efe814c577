# demangle.cmake: test-demangle checks the daemon's kernel-name demangler (sl-demangle.c) against
# the names nsys wrote in the real exports and against libstdc++'s __cxa_demangle.
target_link_libraries(test-demangle PRIVATE sightline-daemon-core)
