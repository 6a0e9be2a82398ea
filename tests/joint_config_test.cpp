// The configuration space each joint type declares (appell/joint_type.hpp) against its
// own motion, and the helical joint, added as one file and one registry line, against a
// closed form, the four formulations, energy conservation and the command line.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "appell/joint_columns.hpp"
#include "appell/joint_state.hpp"
#include "cli_util.hpp"
#include "engine/model/tree.hpp"

namespace appell {

// gtest shows a joint type by its name
static void PrintTo(const JointType* t, std::ostream* os) {
  *os << t->name();
}

namespace {

using testing::run_cli;
using testing::write_temp;

double uniform(std::mt19937& rng, double a, double b) {
  return std::uniform_real_distribution<double>(a, b)(rng);
}

std::vector<const JointType*> every_type() {
  std::vector<const JointType*> out = joint_types();
  out.push_back(&particle_joint());
  return out;
}

std::vector<double> random_q(std::mt19937& rng, const JointType& t) {
  std::vector<double> q(t.nq());
  for (double& x : q) x = uniform(rng, -1.2, 1.2);
  return q;
}

JointMotion motion_at(const JointType& t, const std::vector<double>& q) {
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  JointMotion jm;
  t.motion(q.data(), zero, jm);
  return jm;
}

double pose_distance(const JointMotion& a, const JointMotion& b) {
  return (a.R - b.R).norm() + (a.d - b.d).norm();
}

class EachJointType : public ::testing::TestWithParam<const JointType*> {};

// quaternion(): normalize() rescales exactly those four coordinates to unit length, the
// motion does not see their scale, and they are why nq exceeds nu by one
TEST_P(EachJointType, QuaternionOffsetIsWhatNormalizeAndTheMotionSee) {
  const JointType& t = *GetParam();
  const int qo = t.quaternion();
  EXPECT_EQ(t.nq() - t.nu(), qo >= 0 ? 1 : 0);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<double> q = random_q(rng, t);
    std::vector<double> n = q;
    t.normalize(n.data());
    for (int k = 0; k < t.nq(); ++k) {
      if (qo >= 0 && k >= qo && k < qo + 4) continue;
      EXPECT_EQ(n[k], q[k]) << "coordinate " << k;  // not a quaternion's: untouched
    }
    if (qo < 0) continue;
    ASSERT_LE(qo + 4, t.nq());
    EXPECT_NEAR(Eigen::Map<const Eigen::Vector4d>(n.data() + qo).norm(), 1.0, 1e-15);
    std::vector<double> scaled = n;
    for (int k = qo; k < qo + 4; ++k) scaled[k] *= 3.0;
    EXPECT_LT(pose_distance(motion_at(t, n), motion_at(t, scaled)), 1e-12);
  }
}

// angle(k): q and q + 2π e_k give the same pose exactly for the declared angles
TEST_P(EachJointType, AnglesAreThePeriodicCoordinates) {
  const JointType& t = *GetParam();
  std::mt19937 rng(5);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> q = random_q(rng, t);
    t.normalize(q.data());
    for (int k = 0; k < t.nq(); ++k) {
      std::vector<double> turned = q;
      turned[k] += 2.0 * M_PI;
      const double moved = pose_distance(motion_at(t, q), motion_at(t, turned));
      if (t.angle(k)) {
        EXPECT_LT(moved, 1e-12) << "coordinate " << k;
      } else {
        EXPECT_GT(moved, 1e-3) << "coordinate " << k;
      }
      EXPECT_EQ(periodic_coordinates(t)[k] != 0, t.angle(k));
    }
  }
}

// mimicable(): one coordinate; holds(): has rows; the output frame rule follows quaternion()
TEST_P(EachJointType, MimicHoldAndFrameFollowTheMotion) {
  const JointType& t = *GetParam();
  if (t.mimicable()) {
    EXPECT_EQ(t.nq(), 1);
    EXPECT_EQ(t.nu(), 1);
  }
  EXPECT_EQ(t.holds(), t.rows() > 0);
  if (!t.holds()) {
    EXPECT_EQ(t.nu(), t.syntax().rigid ? 6 : 3);  // its child moves freely
  }
  // free and spherical report rates in the joint frame: S = I₆ or (0; I₃) at the reference
  std::vector<double> q(t.nq());
  t.neutral(q.data());
  const JointMotion jm = motion_at(t, q);
  Eigen::Matrix<double, 6, 6> S = Eigen::Matrix<double, 6, 6>::Zero();
  S.leftCols(t.nu()) = jm.S.leftCols(t.nu());
  Eigen::Matrix<double, 6, 6> I6 = Eigen::Matrix<double, 6, 6>::Identity(), ang = I6 * 0.0;
  ang.block<3, 3>(3, 0).setIdentity();
  EXPECT_EQ(frame_dependent(t), S == I6 || (t.nu() == 3 && S == ang));
}

INSTANTIATE_TEST_SUITE_P(Registered, EachJointType, ::testing::ValuesIn(every_type()),
                         [](const ::testing::TestParamInfo<const JointType*>& info) {
                           return std::string(info.param->name());
                         });

// the formats' own lists: URDF's <joint type> values and MJCF's <joint type> values
TEST(JointNames, EveryUrdfAndMjcfTypeAnswersOnce) {
  const std::map<JointFormat, std::map<std::string, std::string>> expected = {
      {JointFormat::Urdf,
       {{"revolute", "revolute"},
        {"continuous", "revolute"},
        {"prismatic", "prismatic"},
        {"fixed", "fixed"},
        {"floating", "free"},
        {"planar", "planar"}}},
      {JointFormat::Mjcf,
       {{"hinge", "revolute"}, {"slide", "prismatic"}, {"ball", "spherical"}, {"free", "free"}}}};
  for (const auto& [format, names] : expected) {
    std::set<std::string> declared;
    for (const JointType* t : joint_types())
      for (const std::string& n : t->names_in(format)) {
        EXPECT_TRUE(declared.insert(n).second) << n << " twice";
        EXPECT_EQ(find_joint_type(format, n), t) << n;
      }
    std::set<std::string> want;
    for (const auto& [n, ours] : names) {
      want.insert(n);
      ASSERT_NE(find_joint_type(format, n), nullptr) << n;
      EXPECT_EQ(find_joint_type(format, n)->name(), ours) << n;
    }
    EXPECT_EQ(declared, want);
  }
  EXPECT_EQ(find_joint_type(JointFormat::Urdf, "hinge"), nullptr);
  EXPECT_EQ(find_joint_type(JointFormat::Mjcf, "floating"), nullptr);
}

// ---- the helical joint ----------------------------------------------------------------

const JointType& helical() {
  return joint_type("helical");
}

TEST(HelicalJoint, TakesItsPitchAndMovesAlongTheScrew) {
  ASSERT_NE(helical().syntax().parameter, nullptr);
  EXPECT_STREQ(helical().syntax().parameter, "pitch");
  EXPECT_FALSE(helical().mimicable());
  EXPECT_TRUE(helical().holds());
  EXPECT_THROW(helical().with_parameter(NAN), std::invalid_argument);
  EXPECT_THROW(joint_type("revolute").with_parameter(1.0), std::invalid_argument);
  for (const double p : {0.25, -0.03, 0.0}) {
    const auto t = helical().with_parameter(p);
    EXPECT_EQ(t->angle(0), p == 0.0);
    for (const double theta : {0.3, -2.0, 7.5, 40.0}) {
      // s = θ √(1 + p²): a turn θ about z with the slide p θ
      const std::vector<double> q = {theta * std::sqrt(1 + p * p)};
      const JointMotion jm = motion_at(*t, q);
      EXPECT_LT((jm.R - Mat3(Eigen::AngleAxisd(theta, Vec3::UnitZ()))).norm(), 1e-13);
      EXPECT_LT((jm.d - Vec3(0, 0, p * theta)).norm(), 1e-13);
      // coordinates() counts the whole turns from the slide (when it slides)
      double back = 0;
      t->coordinates(jm.R, jm.d, &back);
      if (p != 0.0) {
        EXPECT_NEAR(back, q[0], 1e-12 * (1 + std::abs(q[0])));
      }
    }
  }
}

// A body on a vertical screw through its centre, axis a principal axis: with θ the turn,
// T = ½ (I_zz + m p²) θ̇², V = m g p θ, so θ̈ = −m g p / (I_zz + m p²) whatever θ, θ̇; the
// centre falls with z̈ = p θ̈ and spins up with ω̇_z = θ̈ (every formulation).
TEST(HelicalJoint, BodyOnAVerticalScrewMatchesTheClosedForm) {
  const double m = 0.7, g = 9.81, Izz = 0.004;
  for (const double p : {0.02, -0.15, 1.3}) {
    ModelBuilder b;
    b.gravity = Vec3(0, 0, -g);
    Body nut;
    nut.name = "nut";
    nut.mass = m;
    nut.inertia = Vec3(0.003, 0.005, Izz).asDiagonal();
    nut.position = Vec3(0.1, -0.2, 0.5);
    b.add_body(nut);
    b.add_constraint(std::make_shared<Joint>("thread", helical().with_parameter(p), kWorld, 0,
                                             b.initial_state(kWorld), b.initial_state(0),
                                             nut.position, Vec3::UnitZ()));
    const Model model = compile(b);
    const double theta_dd = -m * g * p / (Izz + m * p * p);
    State s = model.initial_state();
    s.q(0) = 0.8, s.u(0) = 3.0;
    for (Formulation f : {Formulation::Recursive, Formulation::Pinv, Formulation::GibbsAppell,
                          Formulation::Sparse}) {
      Data d(model);
      ASSERT_EQ(forward(model, d, s, {f, {}}), SolveStatus::Ok) << formulation_name(f);
      EXPECT_NEAR(d.udot(2), p * theta_dd, 1e-10 * std::abs(theta_dd)) << formulation_name(f);
      EXPECT_NEAR(d.udot(5), theta_dd, 1e-10 * std::abs(theta_dd)) << formulation_name(f);
      EXPECT_LT(Eigen::Vector4d(d.udot(0), d.udot(1), d.udot(3), d.udot(4)).norm(),
                1e-10 * std::abs(theta_dd))
          << formulation_name(f);
    }
  }
}

// a random chain: helical joints of random pitch between spherical, revolute, cylindrical
// and universal ones, on a free base; `closed`: one more helical joint from the last link
// to the world, whose rows the recursion takes as extra rows
Model screw_chain(std::mt19937& rng, int n, bool closed) {
  ModelBuilder b;
  b.gravity = Vec3(0.3, -0.2, -9.81);
  const char* types[] = {"helical",     "spherical", "helical",  "revolute",
                         "cylindrical", "helical",   "universal"};
  for (int i = 0; i < n; ++i) {
    Body body;
    body.name = "link" + std::to_string(i);
    body.mass = uniform(rng, 0.5, 2.0);
    body.inertia = inertia_box(
        body.mass, Vec3(uniform(rng, 0.05, 0.4), uniform(rng, 0.05, 0.4), uniform(rng, 0.1, 0.4)));
    body.position = Vec3(0, 0, -0.4 * i) + Vec3::Random() * 0.1;
    body.orientation = quat_from_rotation_vector(Vec3::Random() * 2);
    b.add_body(body);
    const std::string type = i == 0 ? "free" : types[(i - 1) % 7];
    std::shared_ptr<const JointType> t(std::shared_ptr<void>(), &joint_type(type));
    if (type == "helical") t = joint_type(type).with_parameter(uniform(rng, -0.3, 0.3));
    const Vec3 axis = Vec3::Random().normalized(), axis2 = axis.cross(Vec3::Random()).normalized();
    const int parent = i == 0 ? kWorld : i - 1;
    b.add_constraint(std::make_shared<Joint>("j" + std::to_string(i), t, parent, i,
                                             b.initial_state(parent), b.initial_state(i),
                                             Vec3(0, 0, -0.4 * i + 0.2), axis, axis2));
  }
  if (closed)
    b.add_constraint(std::make_shared<Joint>(
        "close", joint_type("helical").with_parameter(0.05), n - 1, kWorld, b.initial_state(n - 1),
        b.initial_state(kWorld), Vec3(0, 0, -0.4 * n), Vec3::UnitX()));
  return compile(b);
}

TEST(HelicalJoint, EveryFormulationAgreesOnRandomStatesOfAChain) {
  std::mt19937 rng(20261125);
  int compared = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const Model m = screw_chain(rng, 8, trial % 2 == 1);
    State s = m.initial_state();
    for (int k = 0; k < s.q.size(); ++k) s.q(k) += uniform(rng, -1, 1);
    for (const TreeJoint& j : m.tree().joints) j.type->normalize(s.q.data() + j.q_offset);
    for (int k = 0; k < s.u.size(); ++k) s.u(k) = uniform(rng, -1.5, 1.5);
    Data ref(m);
    ASSERT_EQ(forward(m, ref, s, {Formulation::Recursive, {}}), SolveStatus::Ok)
        << ref.diagnostics.message;
    const double scale = 1.0 + ref.udot.lpNorm<Eigen::Infinity>();
    for (Formulation f : {Formulation::Pinv, Formulation::GibbsAppell, Formulation::Sparse}) {
      Data d(m);
      ASSERT_EQ(forward(m, d, s, {f, {}}), SolveStatus::Ok) << d.diagnostics.message;
      EXPECT_LT((d.udot - ref.udot).lpNorm<Eigen::Infinity>(), 1e-10 * scale)
          << formulation_name(f) << " trial " << trial;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 30);
}

TEST(HelicalJoint, ConservesEnergyInASimulation) {
  std::mt19937 rng(11);
  const Model m = screw_chain(rng, 5, false);
  for (Formulation f : {Formulation::Recursive, Formulation::Sparse}) {
    SimulationOptions o;
    o.formulation = f;
    o.integrator.method = "dopri5";
    o.integrator.duration = 1.0;
    o.integrator.rtol = 1e-10;
    o.integrator.atol = 1e-10;
    double e0 = NAN, drift = 0.0, scale = 0.0;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      if (s.index == 0) e0 = s.energy;
      drift = std::max(drift, std::abs(s.energy - e0));
      scale = std::max(scale, s.kinetic_energy);
    });
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_GT(scale, 0.1);  // it moved
    EXPECT_LT(drift, 1e-6 * scale) << formulation_name(f);
  }
}

// scenes/examples/screw.json through the command line: the nut's turn follows
// θ(t) = θ̇₀ t + ½ θ̈ t² (rk4 integrates a quadratic exactly)
TEST(HelicalJoint, ExampleSceneSimulatesThroughTheCli) {
  const std::string scene = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/screw.json";
  const testing::CliResult r = run_cli("simulate " + scene);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(testing::read_file(scene));
  const double m = doc["bodies"][0]["mass"], Izz = doc["bodies"][0]["inertia"]["principal"][2];
  const double p = doc["constraints"][0]["pitch"], g = -doc["gravity"][2].get<double>();
  const double w0 = doc["bodies"][0]["angular_velocity"][2], T = doc["integrator"]["duration"];
  const double theta_dd = -m * g * p / (Izz + m * p * p);
  const double theta = w0 * T + 0.5 * theta_dd * T * T, rate = w0 + theta_dd * T;
  const nlohmann::json thread = nlohmann::json::parse(r.out)["final_state"]["joints"]["thread"];
  const double c = std::sqrt(1 + p * p);
  EXPECT_NEAR(thread["q"][0].get<double>(), theta * c, 1e-9);
  EXPECT_NEAR(thread["qd"][0].get<double>(), rate * c, 1e-9);
  // the same scene with a pitch that is not a number: exit 2, located
  nlohmann::json bad = doc;
  bad["constraints"][0]["pitch"] = "fine";
  const std::string path = write_temp("bad_screw.json", bad.dump());
  const testing::CliResult e = run_cli("check " + path);
  EXPECT_EQ(e.status, 2);
  EXPECT_EQ(e.err.rfind("error: " + path + ": /constraints/0/pitch: ", 0), 0u) << e.err;
  bad["constraints"][0].erase("pitch");
  const std::string missing = write_temp("missing_pitch.json", bad.dump());
  const testing::CliResult e2 = run_cli("check " + missing);
  EXPECT_EQ(e2.status, 2);
  EXPECT_NE(e2.err.find("pitch"), std::string::npos) << e2.err;
}

}  // namespace
}  // namespace appell
