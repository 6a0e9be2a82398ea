// The shipped contact scenes with the model's own collision detector (Bullet's, from the
// scene's shapes) under the Moreau–Jean stepper: a box and a ball dropped on the ground, and
// the example quadruped on its sphere feet.  Checked against conservation laws: each step's
// contact impulses equal the change of momentum less gravity's impulse; nothing sinks into
// the ground; the energy never grows; bodies come to rest; the quadruped stands still on
// four feet whose normal forces carry its weight.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "engine/contact/moreau.hpp"
#include "engine/model/tree.hpp"

namespace appell {
namespace {

struct SceneRun {
  Model m;
  Data d;
  Eigen::VectorXd q, u;
  MoreauStepper stepper;
  explicit SceneRun(const std::string& scene)
      : m(load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + scene)),
        d(m),
        q(m.initial_state().q),
        u(m.initial_state().u),
        stepper(m, make_contact_detector(m), options()) {}
  static MoreauOptions options() {
    MoreauOptions o;
    o.solver.tolerance = 1e-12;
    return o;
  }
  // total momentum and mass from d's body states
  Vec3 momentum() const {
    Vec3 p = Vec3::Zero();
    for (int b = 0; b < m.nbody(); ++b) p += m.bodies()[b].mass * d.body[b].v;
    return p;
  }
  double mass() const {
    double M = 0;
    for (const Body& b : m.bodies()) M += b.mass;
    return M;
  }
  // the contacts' impulse on the bodies over the last step (limits excluded)
  Vec3 contact_impulse() const {
    Vec3 P = Vec3::Zero();
    for (const ContactSample& r : stepper.records()) {
      if (r.joint >= 0) continue;
      const Vec3 f = r.impulse(0) * r.point.normal + r.impulse(1) * r.t1 + r.impulse(2) * r.t2;
      // the world is body a of every ground contact here: b is pushed along +f
      P += (r.point.body_b >= 0 ? f : Vec3::Zero()) - (r.point.body_a >= 0 ? f : Vec3::Zero());
    }
    return P;
  }
};

TEST(ContactScenes, BoxAndBallLandWithoutSinkingAndComeToRest) {
  SceneRun r("box_on_ground_shapes.json");
  const double h = 1e-3;
  ASSERT_EQ(forward(r.m, r.d, State{0.0, r.q, r.u}), SolveStatus::Ok);
  double worst_depth = 0, worst_gain = 0;
  int impacts = 0;
  double e_prev = kinetic_energy(r.m, r.d) + potential_energy(r.m, r.d);
  for (int k = 0; k < 1500; ++k) {
    const Vec3 p0 = r.momentum();
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << "step " << k;
    ASSERT_TRUE(r.stepper.stats().converged) << "step " << k;
    // momentum balance of the step: Δp = M g h + contact impulses (no other force acts)
    const Vec3 balance = r.momentum() - p0 - r.mass() * r.m.gravity() * h - r.contact_impulse();
    ASSERT_LT(balance.norm(), 1e-9) << "step " << k;
    worst_depth = std::max(worst_depth, r.stepper.stats().penetration);
    impacts += r.stepper.stats().impacts;
    // no force but gravity and contact acts: the energy never grows
    const double e = kinetic_energy(r.m, r.d) + potential_energy(r.m, r.d);
    worst_gain = std::max(worst_gain, e - e_prev);
    e_prev = e;
  }
  EXPECT_LE(worst_depth, 1e-6);
  EXPECT_LE(worst_gain, 1e-12);
  EXPECT_GT(impacts, 1);  // the ball bounces more than once
  // at rest in the end: the box flat on the ground (centre at half its height), still
  const int box = r.m.body_index("box");
  EXPECT_NEAR(r.d.body[box].x.z(), 0.1, 1e-6);
  EXPECT_LT(r.d.body[box].v.norm(), 1e-6);
  EXPECT_LT(r.d.body[box].w.norm(), 1e-6);
}

TEST(ContactScenes, QuadrupedStandsOnItsFeetCarryingItsWeight) {
  SceneRun r("robots/quadruped_standing.json");
  const double h = 1e-3;
  ASSERT_EQ(forward(r.m, r.d, State{0.0, r.q, r.u}), SolveStatus::Ok);
  const double z0 = r.d.body[r.m.body_index("torso")].x.z();
  double worst_depth = 0;
  int impacts = 0;
  for (int k = 0; k < 2000; ++k) {
    ASSERT_EQ(r.stepper.step(k * h, h, r.q, r.u, r.d), SolveStatus::Ok) << "step " << k;
    ASSERT_TRUE(r.stepper.stats().converged) << "step " << k;
    worst_depth = std::max(worst_depth, r.stepper.stats().penetration);
    impacts += r.stepper.stats().impacts;
  }
  EXPECT_LE(worst_depth, 1e-6);
  EXPECT_LT(impacts, 20);  // the feet settle; they do not chatter
  // on its feet: the torso sags only by the servos' give under its weight (under 2 cm)
  EXPECT_NEAR(r.d.body[r.m.body_index("torso")].x.z(), z0, 0.02);
  // at rest, four feet on the ground, and their normal forces carry the weight exactly
  double vmax = 0;
  for (int b = 0; b < r.m.nbody(); ++b)
    vmax = std::max({vmax, r.d.body[b].v.norm(), r.d.body[b].w.norm()});
  EXPECT_LT(vmax, 1e-9);
  double normal = 0;
  int feet = 0;
  for (const ContactSample& c : r.stepper.records()) {
    if (c.joint >= 0 || !(c.impulse(0) > 0)) continue;
    normal += c.impulse(0) * std::abs(c.point.normal.dot(r.m.gravity().normalized())) / h;
    ++feet;
  }
  EXPECT_EQ(feet, 4);
  const double weight = r.mass() * r.m.gravity().norm();
  EXPECT_NEAR(normal / weight, 1.0, 1e-9);
  RecordProperty("normal_over_weight_minus_1", std::to_string(normal / weight - 1.0));
}

// The MJCF quadruped with collision shapes (box torso, capsule legs, sphere feet, position
// servos; bench/contact_bench.cpp times it against MuJoCo) from its keyframe "stand": the
// same checks, and the four pushing contacts are one per shin (the feet), none on a leg's
// capsule or the torso.
TEST(ContactScenes, MjcfQuadrupedWithShapesStandsOnItsFourFeet) {
  const std::string json =
      R"({"include": {"mjcf": ")" + std::string(APPELL_SOURCE_DIR) +
      R"(/scenes/examples/robots/quadruped_shapes.xml", "keyframe": "stand"}})";
  const Model m = load_model_from_string(json);
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  MoreauStepper stepper(m, make_contact_detector(m), SceneRun::options());
  const double h = 1e-3;
  ASSERT_EQ(forward(m, d, State{0.0, q, u}), SolveStatus::Ok);
  const int torso = m.body_index("torso");
  const double z0 = d.body[torso].x.z();
  EXPECT_NEAR(z0, 0.2 + 0.2 * std::cos(0.8) + 0.02, 1e-6);  // the keyframe: feet on the ground
  for (int k = 0; k < 1000; ++k) {
    ASSERT_EQ(stepper.step(k * h, h, q, u, d), SolveStatus::Ok) << "step " << k;
    ASSERT_TRUE(stepper.stats().converged) << "step " << k;
    ASSERT_LE(stepper.stats().penetration, 1e-6) << "step " << k;
  }
  EXPECT_NEAR(d.body[torso].x.z(), z0, 0.02);
  double normal = 0, mass = 0;
  std::set<int> shins;
  for (const ContactSample& c : stepper.records()) {
    if (c.joint >= 0 || !(c.impulse(0) > 0)) continue;
    normal += c.impulse(0) * std::abs(c.point.normal.dot(m.gravity().normalized())) / h;
    const int b = std::max(c.point.body_a, c.point.body_b);
    EXPECT_NE(m.bodies()[b].name.find("_shin"), std::string::npos) << m.bodies()[b].name;
    shins.insert(b);
  }
  EXPECT_EQ(shins.size(), 4u);
  for (const Body& b : m.bodies()) mass += b.mass;
  EXPECT_NEAR(mass, 10 + 4 * 1.5, 1e-12);  // the file's inertials
  EXPECT_NEAR(normal / (mass * m.gravity().norm()), 1.0, 1e-6);
}

// A free joint constrains nothing and so joins nothing: a box floating on an explicit
// free joint from the world (a JSON "free" joint, an MJCF <freejoint>) falls onto the
// world's floor and rests on it, its centre at half its height, like a body with no joint.
// (Before, the joint's "parent and child" exclusion let it fall through the floor.)
TEST(ContactScenes, BodiesOnFreeJointsFromTheWorldLandOnTheFloor) {
  const std::string json = R"({"name": "box on a free joint", "gravity": [0, 0, -9.81],
    "shapes": [{"name": "floor", "type": "plane"}],
    "bodies": [{"name": "box", "mass": 1, "inertia": {"box": [0.2, 0.2, 0.2]},
                "position": [0, 0, 0.3], "shapes": [{"type": "box", "size": [0.2, 0.2, 0.2]}]}],
    "constraints": [{"name": "float", "type": "free", "bodies": ["world", "box"], "anchor": [0, 0, 0]}],
    "integrator": {"duration": 1.5, "dt": 0.002}})";
  const std::string mjcf = R"(<mujoco model="box on a freejoint">
    <option timestep="0.002"/>
    <worldbody>
      <geom name="floor" type="plane" size="5 5 0.1"/>
      <body name="box" pos="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    </worldbody></mujoco>)";
  for (const auto& [text, file] :
       {std::pair{json, std::string("free.json")}, std::pair{mjcf, std::string("free.xml")}}) {
    const Scene scene = load_scene_from_string(text, file);
    const Model m = compile(scene);
    ASSERT_TRUE(has_unilateral_rows(m, true, true)) << file;
    SimulationOptions o = SimulationOptions::from_settings(scene.settings);
    o.integrator.duration = 1.5;
    double lowest = INFINITY, z = NAN;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      z = s.data.body[0].x.z();
      lowest = std::min(lowest, z);
    });
    ASSERT_TRUE(r.ok()) << file << ": " << r.message;
    EXPECT_NEAR(z, 0.1, 1e-6) << file;
    EXPECT_GT(lowest, 0.1 - 1e-6) << file;
  }
}

// A ball rolling on the ground (r = 0.1 m, v = 1 m/s, ω = v / r) with `inertia`; returns
// the midpoint passes of 500 steps and, for its end, the errors of x = v t and of ω.
int rolling_ball(const std::string& inertia, double& x_error, double& w_error) {
  const Model m = load_model_from_string(R"({"gravity": [0, 0, -9.81],
    "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],
    "bodies": [{"name": "ball", "mass": 1.0, "inertia": )" +
                                         inertia + R"(,
      "position": [0, 0, 0.1], "velocity": [1, 0, 0], "angular_velocity": [0, 10, 0],
      "shapes": [{"name": "ball", "type": "sphere", "radius": 0.1}]}]})");
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  EXPECT_EQ(forward(m, d, State{0.0, q, u}), SolveStatus::Ok);
  MoreauStepper stepper(m, make_contact_detector(m));
  const double h = 1e-3;
  int passes = 0;
  for (int k = 0; k < 500; ++k) {
    EXPECT_EQ(stepper.step(k * h, h, q, u, d), SolveStatus::Ok);
    passes += stepper.stats().midpoint_passes;
  }
  x_error = std::abs(d.body[0].x.x() - 500 * h);
  w_error = (d.body[0].w - Vec3(0, 10, 0)).norm();
  return passes;
}

TEST(ContactScenes, BallOfIsotropicInertiaRollsWithoutMidpointPasses) {
  // ω × J ω vanishes for J = c I: the free velocity's midpoint passes would give its
  // explicit value again, and none is taken; the ball rolls as the closed form has it
  double x_error = 0, w_error = 0;
  EXPECT_EQ(rolling_ball(R"({"sphere": 0.1})", x_error, w_error), 0);
  EXPECT_LT(x_error, 1e-9);
  EXPECT_LT(w_error, 1e-8);  // 1e-9 of ω: the solver's tolerance, 1e-10 a step
  // a ball of unequal principal moments rolls by the passes (ω × J ω ≠ 0 once it turns)
  EXPECT_GT(rolling_ball(R"({"principal": [0.004, 0.0045, 0.005]})", x_error, w_error), 0);
}

TEST(ContactScenes, ARunsOwnNormalizationKeepsTheLastStepsRows) {
  // a box spinning on its face (friction slows it), its quaternion normalized again after
  // every step as a run does (an ulp's change): each step starts where the last ended,
  // whose rows cover it, and looks at no first half of its own; by symmetry its centre
  // stays where it was put
  const Model m = load_model_from_string(R"({"gravity": [0, 0, -9.81],
    "shapes": [{"name": "ground", "type": "plane", "friction": 0.8}],
    "bodies": [{"name": "box", "mass": 2.0, "inertia": {"box": [0.3, 0.2, 0.1]},
      "position": [0, 0, 0.05], "orientation": {"axis_angle": [0, 0, 1, 0.7]},
      "angular_velocity": [0, 0, 3],
      "shapes": [{"name": "crate", "type": "box", "size": [0.3, 0.2, 0.1]}]}]})");
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  const Eigen::VectorXd q0 = q;
  MoreauStepper stepper(m, make_contact_detector(m));
  const double h = 1e-3;
  int first_halves = 0, moved = 0;
  for (int k = 0; k < 300; ++k) {
    ASSERT_EQ(stepper.step(k * h, h, q, u, d), SolveStatus::Ok);
    if (k > 0) first_halves += stepper.stats().first_half;
    const Eigen::VectorXd before = q;
    tree_normalize(m.tree(), q);
    moved += q != before;
  }
  EXPECT_GT(moved, 0);  // the case: normalizing again moves some steps' quaternions
  EXPECT_EQ(first_halves, 0);
  EXPECT_LT((q.head<3>() - q0.head<3>()).norm(), 1e-9);
}

TEST(ContactScenes, PileOfRedundantFaceContactsConvergesEveryStep) {
  // five layers of 2 × 2 boxes resting face on face: four corner contacts per face, 54 rows
  // of rank 28 in a layer's island, with μ = 0.8.  The corners' gaps carry the collision
  // test's noise (~1e-12 m); made into targets g/h they were inconsistent by ~1e-9 m/s and
  // the solver stalled there on 4 of the first 300 steps.  Every step must now meet the
  // tolerance, and the boxes stay where they were put (the exact law: no creep, no sinking).
  const double e = 0.1;
  std::ostringstream bodies;
  bodies.precision(17);
  for (int k = 0; k < 20; ++k)
    bodies << (k ? ", " : "") << R"({"name": "b)" << k
           << R"(", "mass": 1, "inertia": {"box": [0.1, 0.1, 0.1]}, "position": [)"
           << (k % 2) * (e + 0.002) << ", " << ((k / 2) % 2) * (e + 0.002) << ", "
           << e / 2 + (k / 4) * e
           << R"(], "shapes": [{"type": "box", "size": [0.1, 0.1, 0.1], "friction": 0.8}]})";
  const std::string text =
      R"({"gravity": [0, 0, -9.81], "shapes": [{"type": "plane", "friction": 0.8}], "bodies": [)" +
      bodies.str() + R"(], "integrator": {"method": "moreau", "duration": 0.15, "dt": 0.001}})";
  const Scene scene = load_scene_from_string(text, "pile.json");
  const Model m = compile(scene);
  const SimulationOptions o = SimulationOptions::from_settings(scene.settings);
  Eigen::VectorXd z0(m.nbody()), z(m.nbody());
  bool first = true;
  const SimulationResult r = simulate(m, o, [&](const Sample& s) {
    for (int b = 0; b < m.nbody(); ++b) (first ? z0 : z)(b) = s.data.body[b].x.z();
    first = false;
  });
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.contact_unconverged, 0);
  EXPECT_LE(r.contact_residual, o.contact.tolerance);
  EXPECT_LT((z - z0).lpNorm<Eigen::Infinity>(), 1e-6);
}

TEST(ContactScenes, RestingPileStartsEachStepNearItsAnswer) {
  // three layers of 2 × 2 boxes, each upper one set a quarter box over so that it rests on
  // up to four below: a pair's corners come from the box–box clipping in an order that is
  // not kept from step to step.  Numbered by that order, the warm start gave each corner
  // another's impulse, and a resting step took up to 990 iterations; matched by where they
  // lie, a resting step starts near its answer and takes a few.
  const double e = 0.1;
  std::ostringstream bodies;
  bodies.precision(17);
  for (int k = 0; k < 12; ++k) {
    const double off = (k / 4) % 2 ? 0.25 * e : 0.0;
    bodies << (k ? ", " : "") << R"({"name": "b)" << k
           << R"(", "mass": 1, "inertia": {"box": [0.1, 0.1, 0.1]}, "position": [)"
           << (k % 2) * (e + 0.002) + off << ", " << ((k / 2) % 2) * (e + 0.002) + off << ", "
           << e / 2 + (k / 4) * e
           << R"(], "shapes": [{"type": "box", "size": [0.1, 0.1, 0.1], "friction": 0.8}]})";
  }
  const Model m = compile(load_scene_from_string(
      R"({"gravity": [0, 0, -9.81], "shapes": [{"type": "plane", "friction": 0.8}], "bodies": [)" +
          bodies.str() + "]}",
      "offset_pile.json"));
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  ASSERT_EQ(forward(m, d, State{0.0, q, u}), SolveStatus::Ok);
  MoreauStepper stepper(m, make_contact_detector(m));
  const double h = 1e-3;
  int worst = 0;
  for (int k = 0; k < 200; ++k) {
    ASSERT_EQ(stepper.step(k * h, h, q, u, d), SolveStatus::Ok) << d.diagnostics.message;
    EXPECT_TRUE(stepper.stats().converged) << "step " << k;
    if (k >= 100) worst = std::max(worst, stepper.stats().iterations);
  }
  EXPECT_GT(stepper.stats().rows, 200);  // the corners of every face, three rows each
  EXPECT_LE(worst, 32);
  EXPECT_LT(u.lpNorm<Eigen::Infinity>(), 1e-6);  // at rest
}

}  // namespace
}  // namespace appell
