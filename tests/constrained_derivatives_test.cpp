// Exact derivatives with extra rows (appell/derivatives.hpp, Constraint::evaluate_tangent):
// each built-in constraint's row derivatives against Richardson differences of its own
// evaluate() along a curve of body states, and the constrained accelerations' derivatives
// against Richardson differences of the engine's forward dynamics (JointForward).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <Eigen/QR>
#include <appell/derivatives.hpp>
#include <appell/inverse_dynamics.hpp>
#include <appell/jacobians.hpp>
#include <appell/joint.hpp>
#include <appell/mimic.hpp>
#include <appell/primitives.hpp>
#include <appell/rolling.hpp>
#include <appell/scene.hpp>
#include <appell/tree.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "numeric_derivatives.hpp"
#include "random_chain.hpp"

namespace appell {
namespace {

using test_derivatives::rel_gap;
using test_derivatives::richardson;

const std::string kScenes = std::string(APPELL_SOURCE_DIR) + "/scenes/";

struct Draw {
  std::mt19937 rng{7};
  double operator()(double a = -1.0, double b = 1.0) {
    return std::uniform_real_distribution<double>(a, b)(rng);
  }
  Vec3 vec(double s = 1.0) {
    Draw& d = *this;
    return Vec3(d(), d(), d()) * s;
  }
  Mat3 rotation() {
    Eigen::Vector4d q(Draw::operator()(), Draw::operator()(), Draw::operator()(),
                      Draw::operator()());
    q.normalize();
    return Quat(q(0), q(1), q(2), q(3)).toRotationMatrix();
  }
};

// a body state and a direction of motion of it: dx̄, dQ = [Ω]× Q, dv̄, dω
struct Moving {
  BodyState s, ds;
  Vec3 Omega;
  BodyState at(double h) const {
    BodyState r;
    r.x = s.x + h * ds.x;
    r.Q = Eigen::AngleAxisd(h * Omega.norm(), Omega.normalized()).toRotationMatrix() * s.Q;
    r.v = s.v + h * ds.v;
    r.w = s.w + h * ds.w;
    return r;
  }
};

Moving random_moving(Draw& d) {
  Moving m;
  m.s.x = d.vec();
  m.s.Q = d.rotation();
  m.s.v = d.vec();
  m.s.w = d.vec(2.0);
  m.Omega = d.vec();
  Mat3 W;
  W << 0, -m.Omega.z(), m.Omega.y(), m.Omega.z(), 0, -m.Omega.x(), -m.Omega.y(), m.Omega.x(), 0;
  m.ds.x = d.vec();
  m.ds.Q = W * m.s.Q;
  m.ds.v = d.vec();
  m.ds.w = d.vec();
  return m;
}

// lin, ang (per row and body slot), b and π of c's rows, stacked
Eigen::VectorXd rows_of(const Constraint& c, const std::vector<BodyState>& bodies) {
  const int nr = c.rows(), ns = static_cast<int>(c.bodies().size());
  std::vector<SpatialForce> terms(nr * ns);
  std::vector<double> b(nr), v(nr), p(nr);
  StateView in;
  in.bodies = bodies.data();
  c.evaluate(in, RowSpan{terms.data(), b.data(), v.data(), p.data(), ns});
  Eigen::VectorXd out(nr * ns * 6 + 2 * nr);
  int k = 0;
  for (const SpatialForce& t : terms)
    out.segment<3>(k) = t.force, out.segment<3>(k + 3) = t.moment, k += 6;
  for (int i = 0; i < nr; ++i) out(k++) = b[i];
  for (int i = 0; i < nr; ++i) out(k++) = v[i];
  return out;
}

// the same stacking of evaluate_tangent()'s rows (value) and derivatives (slope)
bool tangent_of(const Constraint& c, const std::vector<BodyState>& bodies,
                const std::vector<BodyState>& tangents, Eigen::VectorXd& value,
                Eigen::VectorXd& slope) {
  const int nr = c.rows(), ns = static_cast<int>(c.bodies().size());
  std::vector<SpatialForce> terms(nr * ns), dterms(nr * ns);
  std::vector<double> b(nr), v(nr), p(nr), db(nr), dv(nr), dp(nr);
  StateView in, dir;
  in.bodies = bodies.data();
  dir.bodies = tangents.data();
  if (!c.evaluate_tangent(in, dir, RowSpan{terms.data(), b.data(), v.data(), p.data(), ns},
                          RowSpan{dterms.data(), db.data(), dv.data(), dp.data(), ns}))
    return false;
  value.resize(nr * ns * 6 + 2 * nr);
  slope.resize(value.size());
  int k = 0;
  for (int e = 0; e < nr * ns; ++e, k += 6) {
    value.segment<3>(k) = terms[e].force, value.segment<3>(k + 3) = terms[e].moment;
    slope.segment<3>(k) = dterms[e].force, slope.segment<3>(k + 3) = dterms[e].moment;
  }
  for (int i = 0; i < nr; ++i, ++k) value(k) = b[i], slope(k) = db[i];
  for (int i = 0; i < nr; ++i, ++k) value(k) = v[i], slope(k) = dv[i];
  return true;
}

TEST(RowTangents, EveryBuiltInConstraintAgreesWithDifferencesOfItsRows) {
  Draw d;
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<Moving> moving;
    for (int b = 0; b < 4; ++b) moving.push_back(random_moving(d));
    std::vector<BodyState> s0;
    for (const Moving& m : moving) s0.push_back(m.s);
    const BodyState world;
    std::vector<ConstraintPtr> cs;
    for (const char* type : {"revolute", "prismatic", "spherical", "fixed", "universal",
                             "cylindrical", "planar", "free"}) {
      const Vec3 axis = d.vec().normalized();
      Vec3 axis2 = d.vec();
      axis2 = (axis2 - axis * axis.dot(axis2)).normalized();
      cs.push_back(std::make_shared<Joint>(std::string(type) + " joint", joint_type(type), 0, 1,
                                           s0[0], s0[1], d.vec(), axis, axis2));
      cs.push_back(std::make_shared<Joint>(std::string(type) + " to the world", joint_type(type),
                                           kWorld, 2, world, s0[2], d.vec(), axis, axis2));
    }
    cs.push_back(std::make_shared<Joint>("helical joint", joint_type("helical").with_parameter(0.3),
                                         1, 3, s0[1], s0[3], d.vec(), d.vec().normalized()));
    cs.push_back(std::make_shared<DistanceConstraint>("distance", 0, 2, s0[0], s0[2], d.vec(),
                                                      d.vec(), 1.5));
    cs.push_back(std::make_shared<PointOnPlaneConstraint>("on plane", 1, s0[1], d.vec(), d.vec()));
    cs.push_back(std::make_shared<PerpendicularConstraint>("perpendicular", 2, 3, s0[2], s0[3],
                                                           d.vec(), d.vec()));
    for (auto frame : {LinearConstraint::Frame::World, LinearConstraint::Frame::Body})
      cs.push_back(std::make_shared<LinearConstraint>("linear", 3, s0[3], d.vec(), d.vec(), d.vec(),
                                                      0.2, frame));
    for (auto shape : {RollingConstraint::Shape::Sphere, RollingConstraint::Shape::Disk})
      cs.push_back(std::make_shared<RollingConstraint>("rolling", 0, s0[0], 0.4, shape,
                                                       d.vec().normalized()));
    cs.push_back(std::make_shared<KnifeEdgeConstraint>("knife edge", 1, s0[1], d.vec(), d.vec()));
    for (const char* type : {"revolute", "prismatic"}) {
      auto follower = std::make_shared<Joint>("follower", joint_type(type), 0, 1, s0[0], s0[1],
                                              d.vec(), d.vec().normalized());
      auto leader = std::make_shared<Joint>("leader", joint_type(type), 2, 3, s0[2], s0[3], d.vec(),
                                            d.vec().normalized());
      cs.push_back(std::make_shared<MimicConstraint>("mimic", follower, leader, -0.7, 0.1));
    }
    for (const ConstraintPtr& c : cs) {
      SCOPED_TRACE(c->name());
      std::vector<BodyState> dirs;
      for (const Moving& m : moving) dirs.push_back(m.ds);
      Eigen::VectorXd value, slope;
      ASSERT_TRUE(tangent_of(*c, s0, dirs, value, slope));
      if (c->rows() == 0) continue;  // a free joint
      const Eigen::VectorXd rows = rows_of(*c, s0);
      EXPECT_LE(rel_gap(value, rows), 1e-14);
      const Eigen::VectorXd reference = richardson(
          [&](double h) {
            std::vector<BodyState> at;
            for (const Moving& m : moving) at.push_back(m.at(h));
            return rows_of(*c, at);
          },
          1e-2);
      EXPECT_LE(rel_gap(slope, reference), 1e-8);
    }
  }
}

// A spatial closed loop, full rank: a crank on a hinge, two links on ball joints, and the
// last link hinged back to the ground (5 rows on 7 tree coordinates)
std::string spatial_loop_scene() {
  return R"({"name": "spatial loop", "gravity": [0, 0, -9.81],
  "bodies": [
    {"name": "crank", "mass": 1.0, "inertia": {"principal": [0.02, 0.03, 0.01]}, "position": [0, 0, 0.25]},
    {"name": "coupler", "mass": 1.5, "inertia": {"principal": [0.05, 0.04, 0.02]}, "position": [0.4, 0.1, 0.5]},
    {"name": "rocker", "mass": 0.8, "inertia": {"principal": [0.02, 0.01, 0.02]}, "position": [0.8, 0.2, 0.25]}],
  "constraints": [
    {"name": "base", "type": "revolute", "bodies": ["world", "crank"], "anchor": [0, 0, 0], "axis": [1, 0, 0]},
    {"name": "ball1", "type": "spherical", "bodies": ["crank", "coupler"], "anchor": [0, 0, 0.5]},
    {"name": "ball2", "type": "spherical", "bodies": ["coupler", "rocker"], "anchor": [0.8, 0.2, 0.5]},
    {"name": "ground", "type": "revolute", "bodies": ["rocker", "world"], "anchor": [0.8, 0.2, 0], "axis": [0, 1, 0]}]})";
}

// ∂u̇/∂q, ∂u̇/∂u, ∂u̇/∂τ and λ's against Richardson differences of JointForward (u̇) and of
// the function's own values (λ), at a state moved off s
void expect_exact_derivatives(const Model& m, const State& s0, double tol) {
  const int nu = m.tree().nu;
  Draw draw;
  State s = s0;
  Eigen::VectorXd delta(nu), tau(nu);
  for (int k = 0; k < nu; ++k) delta(k) = 0.02 * draw(), s.u(k) += 0.2 * draw(), tau(k) = draw();
  s.q = tangent_step(m, s0.q, delta);
  Data d(m);
  ForwardDerivatives fd;
  forward_dynamics_derivatives(m, d, s, tau, fd);
  const int mr = m.tree().nrows_extra;
  ASSERT_EQ(fd.A.rows(), mr);
  ASSERT_EQ(fd.lambda.size(), mr);
  ASSERT_EQ(Eigen::ColPivHouseholderQR<Eigen::MatrixXd>(fd.A).rank(), mr) << "rows not full rank";
  JointForward forward(m);
  Eigen::VectorXd udot;
  forward(s, tau, udot);
  EXPECT_LE(rel_gap(fd.udot, udot), 1e-10);
  // the multipliers carry what the tree needs beyond τ: Aᵀλ = ID(q, u, u̇) − τ
  Eigen::VectorXd id;
  inverse_dynamics(m, d, s, fd.udot, id);
  EXPECT_LE(rel_gap(fd.A.transpose() * fd.lambda, id - tau), 1e-10);
  const auto fd_of = [&](const State& p, const Eigen::VectorXd& t) {
    Eigen::VectorXd r;
    forward(p, t, r);
    return r;
  };
  const auto lambda_of = [&](const State& p, const Eigen::VectorXd& t) {
    ForwardDerivatives o;
    forward_dynamics_derivatives(m, d, p, t, o);
    return o.lambda;
  };
  for (int j = 0; j < nu; ++j) {
    SCOPED_TRACE("direction " + std::to_string(j));
    const Eigen::VectorXd e = Eigen::VectorXd::Unit(nu, j);
    const auto at_q = [&](double h) {
      State p = s;
      p.q = tangent_step(m, s.q, h * e);
      return p;
    };
    const auto at_u = [&](double h) {
      State p = s;
      p.u += h * e;
      return p;
    };
    const double scale_q = std::max(1.0, fd.dudot_dq.cwiseAbs().maxCoeff());
    const double scale_u = std::max(1.0, fd.dudot_du.cwiseAbs().maxCoeff());
    const double scale_t = std::max(1.0, fd.dudot_dtau.cwiseAbs().maxCoeff());
    EXPECT_LE((fd.dudot_dq.col(j) - richardson([&](double h) { return fd_of(at_q(h), tau); }, 1e-3))
                      .cwiseAbs()
                      .maxCoeff() /
                  scale_q,
              tol);
    EXPECT_LE((fd.dudot_du.col(j) - richardson([&](double h) { return fd_of(at_u(h), tau); }, 1e-3))
                      .cwiseAbs()
                      .maxCoeff() /
                  scale_u,
              tol);
    EXPECT_LE(
        (fd.dudot_dtau.col(j) - richardson([&](double h) { return fd_of(s, tau + h * e); }, 1e-1))
                .cwiseAbs()
                .maxCoeff() /
            scale_t,
        tol);
    const double scale_l = std::max(1.0, fd.dlambda_dq.cwiseAbs().maxCoeff());
    EXPECT_LE(
        (fd.dlambda_dq.col(j) - richardson([&](double h) { return lambda_of(at_q(h), tau); }, 1e-3))
                .cwiseAbs()
                .maxCoeff() /
            scale_l,
        tol);
    EXPECT_LE(
        (fd.dlambda_du.col(j) - richardson([&](double h) { return lambda_of(at_u(h), tau); }, 1e-3))
                .cwiseAbs()
                .maxCoeff() /
            std::max(1.0, fd.dlambda_du.cwiseAbs().maxCoeff()),
        tol);
  }
}

TEST(ConstrainedDerivatives, SpatialLoopAgreesWithDifferencesOfTheEngine) {
  const Model m = compile(load_scene_from_string(spatial_loop_scene()));
  ASSERT_EQ(m.tree().nrows_extra, 5);
  expect_exact_derivatives(m, m.initial_state(), 1e-8);
}

// Random chains on joints of every type closed into loops: the tip held to the world by a
// ball joint, a rod between two links and a nonholonomic row (5 rows), at random states
TEST(ConstrainedDerivatives, RandomLoopsAgreeWithDifferencesOfTheEngine) {
  for (unsigned seed : {3u, 11u, 29u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    test_chain::Chain c = test_chain::random_chain(seed, 5, false);
    ModelBuilder& b = c.b;
    b.add_constraint(std::make_shared<Joint>("close", joint_type("spherical"), 4, kWorld,
                                             b.initial_state(4), BodyState{},
                                             b.initial_state(4).x + Vec3(0.1, 0.05, -0.2)));
    b.add_constraint(std::make_shared<DistanceConstraint>(
        "rod", 1, 3, b.initial_state(1), b.initial_state(3), b.initial_state(1).x,
        b.initial_state(3).x + Vec3(0.1, 0, 0),
        (b.initial_state(3).x + Vec3(0.1, 0, 0) - b.initial_state(1).x).norm()));
    b.add_constraint(std::make_shared<LinearConstraint>(
        "skate", 2, b.initial_state(2), b.initial_state(2).x, Vec3(0.3, 1.0, 0.2),
        Vec3(0.1, 0, 0.4), 0.05, LinearConstraint::Frame::Body));
    const Model m = compile(b);
    ASSERT_EQ(m.tree().nrows_extra, 5);
    test_chain::Rng rng(seed);
    expect_exact_derivatives(m, test_chain::random_state(m, rng), 1e-8);
  }
}

// the shipped scenes whose rows beyond the tree are full rank: rolling (holonomic and
// nonholonomic rows), the Whipple bicycle, the primitives, a knife edge, a helical joint
struct SceneCase {
  const char* path;
};
void PrintTo(const SceneCase& c, std::ostream* os) {
  *os << c.path;
}
class ConstrainedDerivativesScene : public ::testing::TestWithParam<SceneCase> {};

TEST_P(ConstrainedDerivativesScene, AgreesWithDifferencesOfTheEngine) {
  const Model m = compile(load_scene(kScenes + GetParam().path));
  ASSERT_GT(m.tree().nrows_extra, 0);
  expect_exact_derivatives(m, m.initial_state(), 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Shipped, ConstrainedDerivativesScene,
                         ::testing::Values(SceneCase{"examples/rolling_disk.json"},
                                           SceneCase{"benchmarks/whipple_bicycle.json"},
                                           SceneCase{"examples/chaplygin_sleigh.json"},
                                           SceneCase{"examples/primitive_linear.json"},
                                           SceneCase{"examples/primitive_distance.json"},
                                           SceneCase{"examples/robots/delta.json"}),
                         [](const ::testing::TestParamInfo<SceneCase>& info) {
                           std::string n = info.param.path;
                           n = n.substr(n.rfind('/') + 1);
                           n = n.substr(0, n.find('.'));
                           return n;
                         });

// joints coupled by mimic rows: a slide and a wrist following a shoulder
TEST(ConstrainedDerivatives, MimicRowsAgreeWithDifferencesOfTheEngine) {
  const Model m = compile(load_scene_from_string(R"({"name": "mimics", "gravity": [0, 0, -9.81],
  "bodies": [
    {"name": "arm", "mass": 1.0, "inertia": {"principal": [0.02, 0.03, 0.01]}, "position": [0, 0, -0.3]},
    {"name": "slider", "mass": 0.5, "inertia": {"principal": [0.01, 0.01, 0.01]}, "position": [0, 0.1, -0.5]},
    {"name": "hand", "mass": 0.3, "inertia": {"principal": [0.003, 0.002, 0.001]}, "position": [0.1, 0.1, -0.7]}],
  "constraints": [
    {"name": "shoulder", "type": "revolute", "bodies": ["world", "arm"], "anchor": [0, 0, 0], "axis": [1, 0, 0]},
    {"name": "slide", "type": "prismatic", "bodies": ["arm", "slider"], "axis": [0, 0, 1]},
    {"name": "wrist", "type": "revolute", "bodies": ["slider", "hand"], "anchor": [0, 0.1, -0.6], "axis": [0, 1, 0]},
    {"name": "couple slide", "type": "mimic", "joint": "slide", "leader": "shoulder", "multiplier": 0.3},
    {"name": "couple wrist", "type": "mimic", "joint": "wrist", "leader": "shoulder", "multiplier": -0.5}]})"));
  ASSERT_EQ(m.tree().nrows_extra, 2);
  expect_exact_derivatives(m, m.initial_state(), 1e-8);
}

// a row that gives no derivatives (an expression) is named
TEST(ConstrainedDerivatives, ARowWithoutDerivativesIsNamed) {
  const Model m =
      compile(load_scene_from_string(R"js({"name": "expression row", "gravity": [0, 0, -9.81],
  "bodies": [{"name": "q", "type": "particle", "mass": 0.7, "position": [0.3, -0.2, 1.5]}],
  "constraints": [{"name": "alpha", "type": "expression", "level": "velocity",
     "equation": "vy(q) - z(q)*vx(q)"}]})js"));
  ASSERT_GT(m.tree().nrows_extra, 0);
  Data d(m);
  ForwardDerivatives fd;
  try {
    forward_dynamics_derivatives(m, d, m.initial_state(), Eigen::VectorXd(), fd);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("constraint 'alpha' (expression) gives no derivatives"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace appell
