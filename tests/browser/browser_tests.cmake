# Browser tests of the HTML report: one per example family, each writes a report with
# `appell simulate --report` and opens it in headless Chromium (tests/browser/run.sh).
# Screenshots land in ${CMAKE_BINARY_DIR}/browser.
set(browser_scenes
  "pendulum|double_pendulum|3"
  "four_bar|four_bar|2"
  "rolling_disk|rolling_disk|2")
foreach(entry ${browser_scenes})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 scene)
  list(GET parts 2 duration)
  add_test(NAME browser_report_${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/browser/run.sh $<TARGET_FILE:appell_cli>
                   ${PROJECT_SOURCE_DIR}/scenes/examples/${scene}.json ${name}
                   ${CMAKE_BINARY_DIR}/browser ${APPELL_JS_DIR} ${duration})
  set_tests_properties(browser_report_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                       RUN_SERIAL ON)
endforeach()
