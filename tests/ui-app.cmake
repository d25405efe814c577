# tests/ui-app.cmake: test-ui-app drives the real SlApplication and SlWindow in-process (under Xvfb),
# so it compiles the app's sources except main.c; clicks go through xdotool when it is installed.
if(TARGET test-ui-app)
  target_sources(test-ui-app PRIVATE ${SL_SOURCE_DIR}/app/sl-application.c
                                     ${SL_SOURCE_DIR}/app/sl-window.c)
  target_include_directories(test-ui-app PRIVATE ${SL_SOURCE_DIR}/app)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/screenshots)
  find_program(SL_DESKTOP_FILE_VALIDATE desktop-file-validate)
  if(SL_DESKTOP_FILE_VALIDATE)
    add_test(NAME ui-app-desktop-file
             COMMAND ${SL_DESKTOP_FILE_VALIDATE} ${SL_SOURCE_DIR}/data/dev.sightline.Sightline.desktop)
  endif()
endif()
