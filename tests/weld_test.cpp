// Welded bodies merged into composites (appell/model.hpp "Composites"): the same motion as
// one hand-merged body in every formulation, energy kept, loops attached to welded links,
// URDF robots with dummy and sensor links, and the error where a merge cannot help.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "appell/inertia.hpp"
#include "appell/joint.hpp"
#include "appell/primitives.hpp"
#include "appell/scene.hpp"
#include "appell/simulation.hpp"
#include "cli_util.hpp"
#include "engine/model/tree.hpp"
#include "maximal_formulations.hpp"

namespace appell {
namespace {

using testing::maximal_formulations;

const Vec3 kHinge0(0, 0, 0), kHinge1(0.9, 0.2, -0.1);  // world anchors at t = 0
const Vec3 kAxis0 = Vec3(0.2, 1, 0.1).normalized(), kAxis1 = Vec3(1, 0.3, -0.2).normalized();
const Vec3 kLoopPoint(0.7, 0.35, -0.05);  // on the welded (massless) link C at t = 0

Body body(const std::string& name, double mass, const Mat3& J, const Vec3& x, const Quat& o) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.inertia = J;
  b.position = x;
  b.orientation = o;
  return b;
}

// A: a rod on a hinge at the origin; B: a block welded to A; C: a massless link of zero
// inertia welded to B, which carries the second hinge to D.
struct Parts {
  Body A = body("A", 1.3, inertia_box(1.3, Vec3(0.6, 0.1, 0.12)), Vec3(0.3, 0.05, 0),
                Quat(Eigen::AngleAxisd(0.3, Vec3(0, 0, 1))));
  Body B = body("B", 0.7, inertia_box(0.7, Vec3(0.2, 0.3, 0.1)), Vec3(0.7, 0.25, -0.05),
                Quat(Eigen::AngleAxisd(-0.8, Vec3(1, 1, 0).normalized())));
  Body C = body("C", 0.0, Mat3::Zero(), Vec3(0.85, 0.2, -0.1),
                Quat(Eigen::AngleAxisd(1.1, Vec3(0, 1, 0))));
  Body D = body("D", 0.9, inertia_box(0.9, Vec3(0.5, 0.08, 0.08)), Vec3(1.15, 0.2, -0.15),
                Quat::Identity());
};

void add_joint(ModelBuilder& m, const std::string& name, const char* type, int p, int c,
               const Vec3& anchor, const Vec3& axis) {
  m.add_constraint(std::make_shared<Joint>(name, joint_type(type), p, c, m.initial_state(p),
                                           m.initial_state(c), anchor, axis));
}

void add_loop(ModelBuilder& m, int b) {
  const Vec3 ground(0.7, 0.35, -1.2);
  m.add_constraint(std::make_shared<DistanceConstraint>("loop", kWorld, b, m.initial_state(kWorld),
                                                        m.initial_state(b), ground, kLoopPoint,
                                                        (kLoopPoint - ground).norm()));
}

// the chain with its welds: A ← fixed B ← fixed C ← hinge D
ModelBuilder welded(bool loop) {
  const Parts p;
  ModelBuilder m;
  m.gravity = Vec3(0, 0, -9.81);
  const int a = m.add_body(p.A), b = m.add_body(p.B), c = m.add_body(p.C), d = m.add_body(p.D);
  add_joint(m, "hinge0", "revolute", kWorld, a, kHinge0, kAxis0);
  add_joint(m, "weld_ab", "fixed", a, b, Vec3::Zero(), Vec3::UnitZ());
  add_joint(m, "weld_bc", "fixed", b, c, Vec3::Zero(), Vec3::UnitZ());
  add_joint(m, "hinge1", "revolute", c, d, kHinge1, kAxis1);
  if (loop) add_loop(m, c);
  return m;
}

// the same chain with A, B, C merged by hand: mass, centre and inertia (parallel axes)
ModelBuilder merged(bool loop) {
  const Parts p;
  Body K = p.A;
  K.name = "ABC";
  K.mass = p.A.mass + p.B.mass + p.C.mass;
  K.position = (p.A.mass * p.A.position + p.B.mass * p.B.position) / K.mass;
  const Mat3 QK = p.A.orientation.toRotationMatrix();
  Mat3 J = Mat3::Zero();  // world frame, about K's centre
  for (const Body* b : {&p.A, &p.B}) {
    const Mat3 Q = b->orientation.toRotationMatrix();
    const Vec3 r = b->position - K.position;
    J += Q * b->inertia * Q.transpose() +
         b->mass * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
  }
  K.inertia = QK.transpose() * J * QK;
  ModelBuilder m;
  m.gravity = Vec3(0, 0, -9.81);
  const int k = m.add_body(K), d = m.add_body(p.D);
  add_joint(m, "hinge0", "revolute", kWorld, k, kHinge0, kAxis0);
  add_joint(m, "hinge1", "revolute", k, d, kHinge1, kAxis1);
  if (loop) add_loop(m, k);
  return m;
}

State moving(const Model& m) {
  State s = m.initial_state();
  s.q << 0.3, -0.4;
  s.u << 0.7, -1.3;
  return s;
}

// body `name`'s accelerations after forward(f) at the moving state
void accelerations(const Model& m, Formulation f, const std::string& name, Vec3& a, Vec3& alpha) {
  Data d(m);
  ASSERT_EQ(forward(m, d, moving(m), SolverOptions{f, Stabilization{}}), SolveStatus::Ok)
      << d.diagnostics.message;
  body_acceleration(m, d, m.body_index(name), a, alpha);
}

void expect_near(const Vec3& x, const Vec3& y, double tol, const std::string& what) {
  EXPECT_LT((x - y).norm(), tol * (1.0 + y.norm()))
      << what << ": " << x.transpose() << " vs " << y.transpose();
}

std::vector<Formulation> all_formulations() {
  std::vector<Formulation> f = maximal_formulations();
  f.push_back(Formulation::Recursive);
  return f;
}

TEST(Weld, CompositesCarryTheMaximalCoordinates) {
  const Model m = compile(welded(false));
  EXPECT_EQ(m.nbody(), 4);
  EXPECT_EQ(m.ncomposite(), 2);
  EXPECT_TRUE(m.merged());
  EXPECT_EQ(m.nq(), 14);  // two composites, not four bodies
  EXPECT_EQ(m.nu(), 12);
  EXPECT_EQ(m.tree().nu, 2);
  EXPECT_EQ(m.composite(0), m.composite(2));
  EXPECT_NE(m.composite(0), m.composite(3));
  const Parts p;
  EXPECT_NEAR(m.composites()[m.composite(0)].mass, p.A.mass + p.B.mass, 1e-15);
  EXPECT_TRUE(m.internal(1));  // weld_ab
  EXPECT_FALSE(m.internal(3));
}

TEST(Weld, WeldedChainMovesAsTheHandMergedOne) {
  for (bool loop : {false, true}) {
    const Model w = compile(welded(loop)), h = compile(merged(loop));
    for (Formulation f : all_formulations()) {
      const std::string what = std::string(loop ? "loop, " : "") + formulation_name(f);
      Vec3 a_w, al_w, a_h, al_h;
      accelerations(w, f, "D", a_w, al_w);
      accelerations(h, f, "D", a_h, al_h);
      expect_near(a_w, a_h, 1e-12, what + ": D linear");
      expect_near(al_w, al_h, 1e-12, what + ": D angular");
      // A turns with the composite; its centre moves as the composite's point there
      Vec3 a_A, al_A;
      accelerations(w, f, "A", a_A, al_A);
      accelerations(h, f, "ABC", a_h, al_h);
      expect_near(al_A, al_h, 1e-12, what + ": A angular");
      Data dh(h);
      ASSERT_EQ(forward(h, dh, moving(h), SolverOptions{f, Stabilization{}}), SolveStatus::Ok);
      Data dw(w);
      set_state(w, dw, moving(w));
      const BodyState& K = dh.body[0];
      const Vec3 r = dw.body[0].x - K.x;
      expect_near(a_A, a_h + al_h.cross(r) + K.w.cross(K.w.cross(r)), 1e-12, what + ": A linear");
    }
  }
}

TEST(Weld, LoopOnAWeldedLinkHasTheCompositesMultiplier) {
  const Model w = compile(welded(true)), h = compile(merged(true));
  for (Formulation f : all_formulations()) {
    Data dw(w), dh(h);
    ASSERT_EQ(forward(w, dw, moving(w), SolverOptions{f, Stabilization{}}), SolveStatus::Ok);
    ASSERT_EQ(forward(h, dh, moving(h), SolverOptions{f, Stabilization{}}), SolveStatus::Ok);
    const int cw = static_cast<int>(w.constraints().size()) - 1;
    const int ch = static_cast<int>(h.constraints().size()) - 1;
    EXPECT_NEAR(dw.lambda(w.row_offset(cw)), dh.lambda(h.row_offset(ch)),
                1e-10 * (1 + std::abs(dh.lambda(h.row_offset(ch)))))
        << formulation_name(f);
  }
}

TEST(Weld, EnergyIsConserved) {
  for (bool loop : {false, true})
    for (Formulation f : {Formulation::Recursive, Formulation::Sparse}) {
      const Model m = compile(welded(loop));
      // the loop holds at the described state (at rest); without it, start moving
      SimulationOptions o;
      o.formulation = f;
      o.integrator.method = "rk4";
      o.integrator.duration = 0.5;
      o.integrator.dt = 1e-3;
      double e0 = NAN, drift = 0.0;
      const SimulationResult r =
          simulate(m, loop ? m.initial_state() : moving(m), o, [&](const Sample& s) {
            if (std::isnan(e0)) e0 = s.energy;
            drift = std::max(drift, std::abs(s.energy - e0));
          });
      EXPECT_EQ(r.status, SimulationStatus::Completed) << formulation_name(f) << ": " << r.message;
      EXPECT_LT(drift, 1e-6 * (1 + std::abs(e0))) << formulation_name(f) << (loop ? ", loop" : "");
      EXPECT_GT(r.t, 0.49);
    }
}

TEST(Weld, MasslessLinkAloneOnAHingeIsAnError) {
  Parts p;
  ModelBuilder m;
  const int c = m.add_body(p.C);  // no mass, no inertia: accepted here
  add_joint(m, "hinge", "revolute", kWorld, c, kHinge0, kAxis0);
  try {
    (void)compile(m);
    FAIL() << "compiled";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("body 'C'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("singular mass matrix"), std::string::npos) << msg;
  }
}

// a trunk on a dummy base link of degenerate inertia (ANYmal, Go1), a leg, and a sensor
// link of zero inertia on a fixed joint (Talos's force-torque links)
const char* kRobot = R"(<robot name="dog">
  <link name="base">
    <inertial><mass value="1e-6"/>
      <inertia ixx="1e-6" ixy="1e-6" ixz="1e-6" iyy="1e-6" iyz="1e-6" izz="1e-6"/></inertial>
  </link>
  <joint name="base_to_trunk" type="fixed"><parent link="base"/><child link="trunk"/>
    <origin xyz="0.01 0 0.02" rpy="0 0 0"/></joint>
  <link name="trunk">
    <inertial><origin xyz="0 0.01 0"/><mass value="16.8"/>
      <inertia ixx="0.22" ixy="-0.001" ixz="-0.002" iyy="0.64" iyz="-0.001" izz="0.62"/></inertial>
  </link>
  <joint name="hip" type="revolute"><parent link="base"/><child link="thigh"/>
    <origin xyz="0.3 0.1 0" rpy="0 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="10"/></joint>
  <link name="thigh">
    <inertial><origin xyz="0 0 -0.1"/><mass value="1.4"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.002"/></inertial>
  </link>
  <joint name="knee" type="revolute"><parent link="thigh"/><child link="shank"/>
    <origin xyz="0 0 -0.25" rpy="0 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="10"/></joint>
  <link name="shank">
    <inertial><origin xyz="0 0 -0.1"/><mass value="0.3"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.0002"/></inertial>
  </link>
  <joint name="ft_joint" type="fixed"><parent link="shank"/><child link="ft_link"/>
    <origin xyz="0 0 -0.25" rpy="0 0 0"/></joint>
  <link name="ft_link">
    <inertial><mass value="0.1"/>
      <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
  </link>
</robot>)";

std::string robot_scene(const std::string& base) {
  const std::string urdf = testing::write_temp("weld_dog.urdf", kRobot);
  return testing::write_temp("weld_dog_" + base + ".json", R"({"include": {"urdf": ")" + urdf +
                                                               R"(", "base": ")" + base +
                                                               R"("}, "gravity": [0, 0, -9.81]})");
}

TEST(Weld, RobotWithDummyAndSensorLinksLoadsAndEvaluates) {
  for (const char* base : {"floating", "fixed"}) {
    const Model m = compile(load_scene(robot_scene(base)));
    // base + trunk, thigh, shank + ft_link (a fixed base makes base and trunk the world)
    const int composites = std::string(base) == "floating" ? 3 : 2;
    EXPECT_EQ(m.ncomposite(), composites) << base;
    EXPECT_EQ(m.nu(), 6 * composites) << base;
    EXPECT_GE(m.body_index("ft_link"), 0) << base;
    Vec3 ref_a, ref_al;
    for (Formulation f : all_formulations()) {
      Data d(m);
      ASSERT_EQ(forward(m, d, m.initial_state(), SolverOptions{f, Stabilization{}}),
                SolveStatus::Ok)
          << base << " " << formulation_name(f) << ": " << d.diagnostics.message;
      Vec3 a, al;
      body_acceleration(m, d, m.body_index("ft_link"), a, al);
      if (f == Formulation::Pinv) {
        ref_a = a;
        ref_al = al;
      }
      expect_near(a, ref_a, 1e-9, std::string(base) + " " + formulation_name(f));
      expect_near(al, ref_al, 1e-9, std::string(base) + " " + formulation_name(f));
    }
  }
}

TEST(Weld, RobotCliEvalAndZeroInertiaAloneIsOneLine) {
  const testing::CliResult ok = testing::run_cli("eval " + robot_scene("floating"));
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("ft_link"), std::string::npos);
  // the sensor link alone at the end of a hinge: nothing with inertia to weld it to
  std::string alone = kRobot;
  const std::string from = R"(<joint name="ft_joint" type="fixed">)";
  alone.replace(alone.find(from), from.size(), R"(<joint name="ft_joint" type="continuous">)");
  alone.replace(
      alone.find("<origin xyz=\"0 0 -0.25\" rpy=\"0 0 0\"/></joint>\n  <link name=\"ft_link\">"),
      std::string("<origin xyz=\"0 0 -0.25\" rpy=\"0 0 0\"/></joint>").size(),
      "<origin xyz=\"0 0 -0.25\" rpy=\"0 0 0\"/><axis xyz=\"0 0 1\"/></joint>");
  const std::string path = testing::write_temp("weld_alone.urdf", alone);
  const testing::CliResult bad = testing::run_cli("check " + path);
  EXPECT_EQ(bad.status, 2) << bad.out << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
  EXPECT_NE(bad.err.find("link 'ft_link'"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("inertia is zero"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find(path), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace appell
