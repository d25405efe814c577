# tests/ui-app.cmake: test-ui-app drives the real SlApplication and SlWindow in-process (under Xvfb),
# so it compiles the window's and the application's sources; clicks go through xdotool when it is
# installed.
if(TARGET test-ui-app)
  target_sources(test-ui-app PRIVATE ${SL_APP_GUI_SOURCES}
                 ${CMAKE_CURRENT_LIST_DIR}/sl-test-window.c
                 ${CMAKE_CURRENT_LIST_DIR}/sl-plant.c)
  target_include_directories(test-ui-app PRIVATE ${SL_SOURCE_DIR}/app)
  # recording from the GUI: the real daemon, library and test program (tests/record.cmake); the
  # window's templates (the GResource built by the top-level CMakeLists.txt)
  target_link_libraries(test-ui-app PRIVATE sightline-schema sightline-resources)
  add_dependencies(test-ui-app sightline sightlined sightline-inject sl-test-target)
  target_compile_definitions(test-ui-app PRIVATE
    SL_SIGHTLINE_PATH="$<TARGET_FILE:sightline>"
    SL_DAEMON_PATH="$<TARGET_FILE:sightlined>"
    SL_TARGET_PATH="$<TARGET_FILE:sl-test-target>")
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
  find_program(SL_DESKTOP_FILE_VALIDATE desktop-file-validate)
  if(SL_DESKTOP_FILE_VALIDATE)
    add_test(NAME ui-app-desktop-file
             COMMAND ${SL_DESKTOP_FILE_VALIDATE} ${SL_SOURCE_DIR}/data/dev.sightline.Sightline.desktop)
  endif()
endif()
