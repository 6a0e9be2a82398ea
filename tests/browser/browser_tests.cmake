# Browser tests of the HTML report: one per example family, a URDF robot, a scene whose
# names would end the page's scripts (hostile_names.json) and a contact scene with collision
# shapes (its drawn geometry is checked against the scene file, its contact points and
# force arrows drawn); each writes a report with
# `appell simulate --report` and opens it in headless Chromium (tests/browser/run.sh).
# Screenshots land in ${CMAKE_BINARY_DIR}/browser.
set(browser_scenes
  "pendulum|scenes/examples/double_pendulum.json|3"
  "four_bar|scenes/examples/four_bar.json|2"
  "rolling_disk|scenes/examples/rolling_disk.json|2"
  "robot_arm|scenes/examples/robots/seven_dof_arm.json|1"
  "hostile_names|tests/browser/hostile_names.json|1"
  "contact_shapes|scenes/examples/box_on_ground_shapes.json|1")
foreach(entry ${browser_scenes})
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 name)
  list(GET parts 1 scene)
  list(GET parts 2 duration)
  add_test(NAME browser_report_${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/browser/run.sh $<TARGET_FILE:appell_cli>
                   ${PROJECT_SOURCE_DIR}/${scene} ${name}
                   ${CMAKE_BINARY_DIR}/browser ${APPELL_JS_DIR} ${duration})
  set_tests_properties(browser_report_${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                       RUN_SERIAL ON)
endforeach()
