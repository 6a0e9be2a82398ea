# scenes/schema.json: every shipped scene validates; schema and loader agree on a set of
# scenes (tests/schema/check_schema.py, run by Debian's Python with python3-jsonschema).
if(EXISTS /usr/bin/python3)
  add_test(NAME scene_schema
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/schema/check_schema.py
                   $<TARGET_FILE:appell_cli> ${PROJECT_SOURCE_DIR})
  set_tests_properties(scene_schema PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
else()
  message(STATUS "scene_schema test: /usr/bin/python3 not found (Debian package python3-jsonschema)")
endif()
