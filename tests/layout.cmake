# layout.cmake: the source files keep what .editorconfig and CONTRIBUTING.md promise (tabs, line
# ends, final newlines, a first line saying what the file is for, ui/ and app/ files of at most
# 1,200 lines): tests/check-layout.sh.
add_test(NAME layout COMMAND ${CMAKE_CURRENT_LIST_DIR}/check-layout.sh ${SL_SOURCE_DIR})
