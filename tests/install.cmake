# install.cmake: `cmake --install` into a temporary prefix, moved, and checked there
# (tests/install/check-install.sh): records through the installed daemon, validates the desktop
# file, metainfo, man pages and completion, and finds no build path in the binaries.
# A sanitizer build is never installed, and GCC 12 writes the sources' absolute paths into the
# ASan and UBSan report data whatever -ffile-prefix-map says: the build-path check is left out.
if(SL_SANITIZE)
  set(SL_INSTALL_TEST_FLAVOUR sanitized)
else()
  set(SL_INSTALL_TEST_FLAVOUR plain)
endif()
add_test(NAME install
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install/check-install.sh ${CMAKE_COMMAND} ${SL_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR} ${SL_INSTALL_TEST_FLAVOUR})
set_tests_properties(install PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
