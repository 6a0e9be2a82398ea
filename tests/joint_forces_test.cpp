// Actuation at joints (engine/assembly/joint_forces.cpp, constraints/joint_state.cpp) and their
// scene syntax: closed forms, agreement between formulations, the energy balance.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/joint_state.hpp>
#include <cmath>

namespace appell {
namespace {

// an arm on a revolute "shoulder" (axis z through the origin) and a prismatic "slider"
// (along the upper link's x), with `forces` appended
std::string arm_scene(const std::string& forces, const std::string& gravity = "[0, -9.81, 0]") {
  return R"j({"gravity": )j" + gravity + R"j(,
    "bodies": [
      {"name": "upper", "mass": 1.2, "inertia": {"principal": [0.01, 0.04, 0.05]},
       "position": [0.3, 0, 0], "velocity": [0, 0.6, 0], "angular_velocity": [0, 0, 2]},
      {"name": "fore", "mass": 0.7, "inertia": {"principal": [0.02, 0.03, 0.01]},
       "position": [0.8, 0, 0], "velocity": [0.5, 1.6, 0], "angular_velocity": [0, 0, 2]}],
    "constraints": [
      {"name": "shoulder", "type": "revolute", "bodies": ["world", "upper"], "anchor": [0, 0, 0],
       "axis": [0, 0, 1]},
      {"name": "slider", "type": "prismatic", "bodies": ["upper", "fore"], "axis": [1, 0, 0]}],
    "forces": [)j" +
         forces + "]}";
}

Eigen::VectorXd accelerations(const Model& m, Formulation f) {
  Data d(m);
  EXPECT_EQ(forward(m, d, f), SolveStatus::Ok);
  return d.udot;
}

const Joint& joint(const Model& m, const std::string& name) {
  for (const ConstraintPtr& c : m.constraints())
    if (c->name() == name) return dynamic_cast<const Joint&>(*c);
  throw std::runtime_error("no joint " + name);
}

TEST(JointForces, TorqueOnAHingeGivesTheAxisAcceleration) {
  // one body on a hinge, no gravity: θ̈ = τ / (I_zz + m r²), in every formulation
  const Model m = compile(load_scene_from_string(R"j({
    "bodies": [{"name": "arm", "mass": 2, "inertia": {"principal": [0.1, 0.2, 0.3]},
                "position": [0.5, 0, 0]}],
    "constraints": [{"name": "hinge", "type": "revolute", "bodies": ["world", "arm"],
                     "anchor": [0, 0, 0], "axis": [0, 0, 1]}],
    "forces": [{"type": "joint_torque", "joint": "hinge", "value": 1.5}]})j"));
  for (Formulation f :
       {Formulation::Recursive, Formulation::GibbsAppell, Formulation::Pinv, Formulation::Sparse})
    EXPECT_NEAR(accelerations(m, f)(5), 1.5 / (0.3 + 2 * 0.25), 1e-12) << formulation_name(f);
}

TEST(JointForces, EveryFormulationAgrees) {
  const Model m = compile(load_scene_from_string(arm_scene(R"j(
    {"type": "joint_torque", "joint": "shoulder", "value": "0.5*sin(3*t) - 0.2*qd(shoulder) + x(fore)"},
    {"type": "pd", "joint": "slider", "kp": 40, "kd": 3, "target": "0.1*cos(t)"},
    {"type": "joint_spring", "joint": "shoulder", "stiffness": 2, "rest": 0.3, "damping": 0.1},
    {"type": "joint_damping", "joint": "slider", "damping": 0.4})j")));
  const Eigen::VectorXd ref = accelerations(m, Formulation::Recursive);
  for (Formulation f : {Formulation::GibbsAppell, Formulation::Pinv, Formulation::Sparse})
    EXPECT_LT((accelerations(m, f) - ref).norm(), 1e-9 * (1 + ref.norm())) << formulation_name(f);
}

TEST(JointForces, ServoAndSpringFollowTheirLaws) {
  // τ read back against the laws on the joint's own q and u (joint_state.hpp)
  const Model m = compile(load_scene_from_string(arm_scene(R"j(
    {"type": "pd", "joint": "slider", "kp": 40, "kd": 3, "target": "0.1*cos(t) + 0.5"},
    {"type": "joint_spring", "joint": "shoulder", "stiffness": 2, "rest": 0.3, "damping": 0.1})j")));
  Data d(m);
  d.t = 0.7;
  forward(m, d);
  const StateView s = d.view();
  double q[2], u[2], tau;
  joint_coordinates(joint(m, "slider"), s, &q[0], &u[0]);
  joint_coordinates(joint(m, "shoulder"), s, &q[1], &u[1]);
  EXPECT_NEAR(q[0], 0.0, 1e-12);  // the state of t = 0: the reference pose, q = 0
  EXPECT_NEAR(u[0], 0.5, 1e-12);  // fore moves 0.5 along x relative to upper's point
  EXPECT_NEAR(u[1], 2.0, 1e-12);
  const auto& pd = dynamic_cast<const JointForce&>(*m.forces()[0]);
  pd.generalized_force(s, &tau);
  EXPECT_NEAR(tau, 40 * (0.1 * std::cos(0.7) + 0.5 - q[0]) + 3 * (-0.1 * std::sin(0.7) - u[0]),
              1e-12);
  const auto& spring = dynamic_cast<const JointForce&>(*m.forces()[1]);
  spring.generalized_force(s, &tau);
  EXPECT_NEAR(tau, -2 * (q[1] - 0.3) - 0.1 * u[1], 1e-12);
  EXPECT_NEAR(spring.potential(s), 0.5 * 2 * (q[1] - 0.3) * (q[1] - 0.3), 1e-15);
}

TEST(JointForces, ExpressionOfJointVariablesEqualsTheSpring) {
  const std::string spring =
      R"j({"type": "joint_spring", "joint": "shoulder", "stiffness": 3, "damping": 0.2})j";
  const std::string expr =
      R"j({"type": "joint_torque", "joint": "shoulder", "value": "-3*q(shoulder) - 0.2*qd(shoulder)"})j";
  // start away from the rest angle: the shoulder turned by 0.4 rad
  for (Formulation f : {Formulation::Recursive, Formulation::Pinv}) {
    const Model a = compile(load_scene_from_string(arm_scene(spring)));
    const Model b = compile(load_scene_from_string(arm_scene(expr)));
    Data da(a), db(b);
    State s = a.initial_state();
    s.q(0) = 0.4;
    ASSERT_EQ(forward(a, da, s, SolverOptions{f, {}}), SolveStatus::Ok);
    ASSERT_EQ(forward(b, db, s, SolverOptions{f, {}}), SolveStatus::Ok);
    EXPECT_LT((da.udot - db.udot).norm(), 1e-12) << formulation_name(f);
    EXPECT_GT((da.udot - accelerations(compile(load_scene_from_string(arm_scene(""))), f)).norm(),
              0.1);
  }
}

TEST(JointForces, EnergyBalanceCountsTheActuatorsPower) {
  // E(T) − E(0) = ∫ Σ power dt of the non-conservative joint forces; the spring's
  // potential is part of E
  const Model m = compile(load_scene_from_string(arm_scene(R"j(
    {"type": "joint_torque", "joint": "shoulder", "value": "0.8*sin(2*t)"},
    {"type": "joint_spring", "joint": "slider", "stiffness": 30, "rest": 0.05},
    {"type": "joint_damping", "joint": "shoulder", "damping": 0.3},
    {"type": "pd", "joint": "slider", "kp": 5, "kd": 0.5, "target": "0.1*sin(t)"})j")));
  SimulationOptions o;
  o.integrator.method = "rk4";
  o.integrator.dt = 5e-4;
  o.integrator.duration = 1.0;
  std::vector<double> t, power, energy;
  Simulation sim(m, o);
  const SimulationResult r = sim.run([&](const Sample& s) {
    double p = 0.0;
    for (const ForcePtr& f : m.forces())
      if (const auto* jf = dynamic_cast<const JointForce*>(f.get()))
        if (jf->type() != "joint_spring") p += jf->power(s.data.view());
    t.push_back(s.t);
    power.push_back(p);
    energy.push_back(s.energy);
  });
  ASSERT_TRUE(r.ok());
  double work = 0.0;  // Simpson's rule on the uniform samples
  const size_t n = t.size() - 1;
  ASSERT_EQ(n % 2, 0u);
  for (size_t k = 0; k + 2 <= n; k += 2)
    work += (t[k + 2] - t[k]) / 6 * (power[k] + 4 * power[k + 1] + power[k + 2]);
  const double change = energy.back() - energy.front();
  EXPECT_GT(std::abs(change), 1e-2);
  EXPECT_NEAR(change, work, 1e-7);
}

TEST(JointForces, OrientationVariablesReadTheQuaternion) {
  // a torque about z equal to qz(arm) on a body turned by 0.8 rad about z: qz = sin(0.4)
  const Model m = compile(load_scene_from_string(R"j({
    "bodies": [{"name": "arm", "mass": 1, "inertia": {"principal": [1, 1, 1]},
                "orientation": {"axis_angle": [0, 0, 1, 0.8]}}],
    "constraints": [{"name": "hinge", "type": "revolute", "bodies": ["world", "arm"],
                     "anchor": [0, 0, 0], "axis": [0, 0, 1]}],
    "forces": [{"type": "joint_torque", "joint": "hinge", "value": "qz(arm) + 10*qw(arm)"}]})j"));
  EXPECT_NEAR(accelerations(m, Formulation::Pinv)(5), std::sin(0.4) + 10 * std::cos(0.4), 1e-12);
}

std::string load_error(const std::string& text) {
  try {
    load_scene_from_string(text, "s.json");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

TEST(JointForces, SceneErrorsAreLocated) {
  EXPECT_EQ(load_error(arm_scene(R"j({"type": "joint_damping", "joint": "elbow", "damping": 1})j")),
            "s.json: /forces/0/joint: unknown joint 'elbow'; expected the name of a joint listed "
            "in constraints");
  EXPECT_EQ(
      load_error(arm_scene(R"j({"type": "pd", "joint": "slider", "kp": 1, "target": "q(nope)"})j")),
      "s.json: /forces/0/target: column 3: unknown joint 'nope' in q(...)");
  EXPECT_EQ(
      load_error(arm_scene(R"j({"type": "joint_torque", "joint": "shoulder", "value": [1, 2]})j")),
      "s.json: /forces/0/value: expected 1 elements, got 2");
  EXPECT_EQ(load_error(arm_scene(
                R"j({"type": "pd", "joint": "slider", "kp": 1, "target": "q(slider, 1)"})j")),
            "s.json: /forces/0/target: column 3: joint 'slider' has 1 coordinates, got index 1");
  const std::string ball = R"j({"bodies": [{"name": "b", "mass": 1, "inertia": {"sphere": 0.1}}],
    "constraints": [{"name": "ball", "type": "spherical", "bodies": ["world", "b"], "anchor": [0, 0, 0.1]},
                    {"type": "expression", "level": "position", "equation": "q(ball, 1) - x(b)"}],
    "forces": [{"type": "joint_spring", "joint": "ball", "stiffness": 1}]})j";
  EXPECT_EQ(load_error(ball),
            "s.json: /constraints/1/equation: column 1: 'q(ball, 1)' may be used in forces only; "
            "constraints need the derivatives of x, v and w variables");
  const std::string weld = R"j({"bodies": [{"name": "b", "mass": 1, "inertia": {"sphere": 0.1}}],
    "constraints": [{"name": "weld", "type": "fixed", "bodies": ["world", "b"]}],
    "forces": [{"type": "joint_damping", "joint": "weld", "damping": 1}]})j";
  EXPECT_EQ(load_error(weld),
            "s.json: /forces/0/joint: joint 'weld' is fixed: it has no motion to act on");
  const std::string ball2 = R"j({"bodies": [{"name": "b", "mass": 1, "inertia": {"sphere": 0.1}}],
    "constraints": [{"name": "ball", "type": "spherical", "bodies": ["world", "b"], "anchor": [0, 0, 0.1]},
                    {"type": "prescribed", "q": 0}],
    "forces": [{"type": "joint_torque", "joint": "ball", "value": "q(ball)"}]})j";
  EXPECT_EQ(load_error(ball2),
            "s.json: /constraints/1: a prescribed motion names a \"joint\" (with \"q\") or a "
            "\"body\" (with \"position\")");
  const std::string ball3 = R"j({"bodies": [{"name": "b", "mass": 1, "inertia": {"sphere": 0.1}}],
    "constraints": [{"name": "ball", "type": "spherical", "bodies": ["world", "b"], "anchor": [0, 0, 0.1]}],
    "forces": [{"type": "joint_torque", "joint": "ball", "value": ["q(ball)", "0", "0"]},
               {"type": "joint_spring", "joint": "ball", "stiffness": 1}]})j";
  EXPECT_EQ(load_error(ball3),
            "s.json: /forces/0/value/0: column 3: joint 'ball' has 4 coordinates; write q(ball, k) "
            "with k from 0 to 3");
}

}  // namespace
}  // namespace appell
