# The unity groups of the test files (APPELL_UNITY): each group is compiled as one
# translation unit, so no two files of a group may define the same file-local name (a
# helper, a constant, a PrintTo, a macro).  A test file in no group is compiled alone;
# one that breaks its group's build with a redefinition is moved to another group or out.
# Groups are balanced by compile time, about 8 files each.  Compiled alone: spatial_test.cpp
# and kernels_test.cpp (an Rng of their own, as random_scenes.hpp and formulations_test.cpp
# have), urdf_hardening_test.cpp and urdf_joints_test.cpp (kG, as contact_impacts_test.cpp),
# lagrangian_nonlinear_test.cpp and lagrangian_nonlinear_errors_test.cpp (kG, kV0).
set_source_files_properties(
  tests/contact_outputs_cli_test.cpp tests/derivatives_test.cpp tests/joint_columns_test.cpp
  tests/joint_forces_test.cpp tests/joint_types_test.cpp tests/mjcf_closed_forms_test.cpp
  tests/mjcf_mujoco_frames_test.cpp tests/mjcf_mujoco_test.cpp tests/tree_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_01)
set_source_files_properties(
  tests/contact_allocation_test.cpp tests/contact_outputs_test.cpp tests/forces_test.cpp
  tests/mjcf_published_mujoco_test.cpp tests/mjcf_published_test.cpp tests/moreau_test.cpp
  tests/report_geometry_test.cpp tests/simulate_cli_test.cpp tests/state_space_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_02)
set_source_files_properties(
  tests/dense_test.cpp tests/inverse_dynamics_test.cpp tests/joint_space_state_test.cpp
  tests/report_test.cpp tests/simulation_runs_test.cpp tests/simulation_test.cpp
  tests/sparse_allocation_test.cpp tests/weld_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_03)
set_source_files_properties(
  tests/auto_formulation_test.cpp tests/collision_pairs_test.cpp tests/collision_test.cpp
  tests/contact_step_test.cpp tests/document_test.cpp tests/dual_number_test.cpp
  tests/joint_state_test.cpp tests/nonholonomic_examples_test.cpp tests/rosenbrock_test.cpp
  tests/scene_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_04)
set_source_files_properties(
  tests/body_block_factor_test.cpp tests/contact_impacts_test.cpp tests/geometry_test.cpp
  tests/linearize_test.cpp tests/particle_moments_test.cpp
  tests/loop_step_error_test.cpp tests/python_support_test.cpp tests/sweep_test.cpp
  tests/universal_axes_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_05)
set_source_files_properties(
  tests/allocation_counter_test.cpp tests/bad_scenes_test.cpp tests/cli_joint_frame_test.cpp
  tests/cli_joint_outputs_test.cpp tests/contact_solver_test.cpp tests/limits_cli_test.cpp
  tests/mjcf_limits_test.cpp tests/model_test.cpp tests/sweep_hardening_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_06)
set_source_files_properties(
  tests/derivatives_analytic_test.cpp tests/friction_rule_test.cpp tests/joint_config_test.cpp
  tests/joint_space_run_test.cpp tests/ldlt_zero_pivot_test.cpp tests/mjcf_elements_test.cpp
  tests/mjcf_test.cpp tests/number_format_test.cpp tests/output_safety_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_07)
set_source_files_properties(
  tests/benchmarks_test.cpp tests/bicycle_linearize_test.cpp tests/cli_test.cpp
  tests/contact_benchmarks_test.cpp tests/joint_limits_test.cpp tests/mjcf_fidelity_test.cpp
  tests/sparse_net_test.cpp tests/sweep_cli_test.cpp tests/tree_delassus_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_08)
set_source_files_properties(
  tests/bodies_test.cpp tests/contact_cli_test.cpp tests/expression_test.cpp
  tests/forward_test.cpp tests/joint_motion_tangent_test.cpp tests/prescribed_test.cpp
  tests/recursive_joint_coordinates_test.cpp tests/recursive_test.cpp tests/smoke_test.cpp
  tests/standard_chain_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_09)
set_source_files_properties(
  tests/closed_forms_test.cpp tests/contact_scenes_test.cpp tests/hinge_contact_test.cpp
  tests/input_files_test.cpp tests/lagrangian_examples_test.cpp tests/lagrangian_test.cpp
  tests/robots_test.cpp tests/sparse_test.cpp tests/threads_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_10)
set_source_files_properties(
  tests/cli_table_test.cpp tests/formulations_test.cpp tests/linearize_cli_test.cpp
  tests/mesh_test.cpp tests/numerics_hardening_test.cpp tests/sample_writer_test.cpp
  tests/scene_loader_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_11)
set_source_files_properties(
  tests/callable_constraint_test.cpp tests/constrained_derivatives_test.cpp
  tests/joint_friction_test.cpp tests/joint_space_test.cpp tests/report_hardening_test.cpp
  tests/robotics_cli_test.cpp tests/rolling_test.cpp tests/tree_state_space_test.cpp
  DIRECTORY ${PROJECT_SOURCE_DIR} PROPERTIES UNITY_GROUP tests_12)
