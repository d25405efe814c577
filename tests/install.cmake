# install.cmake: `cmake --install` into a temporary prefix, moved, and checked there
# (tests/install/check-install.sh): records through the installed daemon, validates the desktop
# file, metainfo, man pages and completion, and finds no build path in the binaries.
add_test(NAME install
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install/check-install.sh ${CMAKE_COMMAND} ${SL_SOURCE_DIR}
                 ${CMAKE_BINARY_DIR})
set_tests_properties(install PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
