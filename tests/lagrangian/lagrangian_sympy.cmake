# Lagrangian systems against SymPy's mechanics (tests/lagrangian/sympy_check.py), and the rigid
# rolling disk in its body-frame angular velocity (tests/lagrangian/sympy_rigid_nu_check.py),
# run by Debian's Python with python3-sympy; skipped, 77, without it.
if(EXISTS /usr/bin/python3)
  add_test(NAME lagrangian_sympy
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/lagrangian/sympy_check.py
                   $<TARGET_FILE:appell_cli> ${PROJECT_SOURCE_DIR})
  set_tests_properties(lagrangian_sympy PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  add_test(NAME quasi_velocities_sympy
           COMMAND /usr/bin/python3 ${PROJECT_SOURCE_DIR}/tests/lagrangian/sympy_rigid_nu_check.py
                   $<TARGET_FILE:appell_cli> ${PROJECT_SOURCE_DIR})
  set_tests_properties(quasi_velocities_sympy PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
