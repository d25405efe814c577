# build-types.cmake: warnings are errors only where SL_WERROR asks (CI, developers), and the files
# that -O3 or -Os once warned about compile in Release and MinSizeRel: tests/check-build-types.sh.
add_test(NAME build-types
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-build-types.sh ${CMAKE_COMMAND} ${SL_SOURCE_DIR}
                 ${CMAKE_C_COMPILER} ${CMAKE_CXX_COMPILER})
set_tests_properties(build-types PROPERTIES TIMEOUT 300)
