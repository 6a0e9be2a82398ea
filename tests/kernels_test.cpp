// Every row kernel (through every joint and primitive) against finite differences.
//
// For a constraint evaluated on a state s, with rows (lin, ang), b, π and g (constraint.hpp
// C1–C3), three identities must hold for every state, not only on the constraint manifold:
//
//  (a) π is the time derivative of g along the motion (holonomic rows):
//        π = d/dt g(x̄ + v̄t, exp((ωt)×) Q)                              (central differences)
//  (b) the acceleration row: along a motion with accelerations u̇,
//        x̄(t) = x̄ + v̄t + ½ v̄̇t²,  v̄(t) = v̄ + v̄̇t,
//        Q(t) = exp((ωt + ½ω̇t²)×) Q,  ω(t) = ω + ω̇t,
//      dπ/dt = A u̇ − b = Σ (lin·v̄̇ + ang·ω̇) − b.  This checks every velocity-product
//      term κ = −b independently of its derivation.
//  (c) the rows are linear in the velocities with coefficients lin, ang:
//        π(u) − π(0) = Σ (lin·v̄ + ang·ω).
//
// The rotation-lock rows (prismatic, fixed; kernel K4) measure their position error by
// log(Q_B R0ᵀ Q_Aᵀ), whose rate is ω_B − ω_A only on the manifold, so (a) is checked for
// them on states that satisfy the joint.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cctype>
#include <functional>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace {

constexpr double kStep = 1e-4;  // finite-difference step
constexpr double kTol = 1e-6;   // relative
constexpr int kStates = 20;     // random states per case

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(unsigned seed) : gen(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(gen);
  }
  Vec3 vec(double s) { return Vec3(uniform(-s, s), uniform(-s, s), uniform(-s, s)); }
  Vec3 unit() {
    Vec3 v;
    do v = vec(1.0);
    while (v.norm() < 0.1);
    return v.normalized();
  }
  Mat3 rotation() {
    Eigen::Vector4d q;
    do q = Eigen::Vector4d(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    while (q.norm() < 0.1);
    q.normalize();
    return Quat(q(0), q(1), q(2), q(3)).toRotationMatrix();
  }
};

// Two bodies, each rigid or a particle; the constraint under test joins some of them.
struct Bodies {
  bool rigid[2] = {true, true};
  std::vector<BodyState> state = std::vector<BodyState>(2);
};

void random_pose(Rng& rng, Bodies& s) {
  for (int i = 0; i < 2; ++i) {
    s.state[i].x = rng.vec(1.0);
    s.state[i].Q = s.rigid[i] ? rng.rotation() : Mat3::Identity();
  }
}
void random_velocity(Rng& rng, Bodies& s) {
  for (int i = 0; i < 2; ++i) {
    s.state[i].v = rng.vec(2.0);
    s.state[i].w = s.rigid[i] ? rng.vec(2.0) : Vec3::Zero();
  }
}

using Factory = std::function<ConstraintPtr(Rng&, const Bodies&)>;

struct Case {
  std::string name;
  bool rigid0, rigid1;
  Factory make;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

BodyState pose(const Bodies& s, int b) {
  return b == kWorld ? BodyState{} : s.state[b];
}

Factory joint(const JointType* type, int parent, int child) {
  return [=](Rng& rng, const Bodies& s) -> ConstraintPtr {
    const BodyState p = pose(s, parent), c = pose(s, child);
    const Vec3 axis = rng.unit();
    Vec3 axis2 = rng.unit();
    axis2 = (axis2 - axis2.dot(axis) * axis).normalized();
    return std::make_shared<Joint>("j", *type, parent, child, p, c, rng.vec(1.5), axis, axis2);
  };
}

Factory spherical_particle(int parent, int child) {
  return [=](Rng&, const Bodies& s) -> ConstraintPtr {
    const Vec3 anchor = s.state[child].x;  // the particle's own position
    return std::make_shared<Joint>("j", joint_type("spherical"), parent, child, pose(s, parent),
                                   pose(s, child), anchor, Vec3::UnitX(), Vec3::Zero());
  };
}

Factory distance(int a, int b, bool a_point_random, bool b_point_random) {
  return [=](Rng& rng, const Bodies& s) -> ConstraintPtr {
    const BodyState sa = pose(s, a), sb = pose(s, b);
    const Vec3 pa = a_point_random ? Vec3(rng.vec(1.5)) : sa.x;
    const Vec3 pb = b_point_random ? Vec3(rng.vec(1.5)) : sb.x;
    return std::make_shared<DistanceConstraint>("d", a, b, sa, sb, pa, pb, (pb - pa).norm());
  };
}

Factory point_on_plane(int body, bool point_random) {
  return [=](Rng& rng, const Bodies& s) -> ConstraintPtr {
    const BodyState sb = pose(s, body);
    const Vec3 p = point_random ? Vec3(rng.vec(1.5)) : sb.x;
    return std::make_shared<PointOnPlaneConstraint>("p", body, sb, p, rng.unit());
  };
}

Factory perpendicular(int a, int b) {
  return [=](Rng& rng, const Bodies& s) -> ConstraintPtr {
    const Vec3 na = rng.unit();
    Vec3 nb = rng.unit();
    nb = (nb - nb.dot(na) * na).normalized();
    return std::make_shared<PerpendicularConstraint>("n", a, b, pose(s, a), pose(s, b), na, nb);
  };
}

Factory linear(int body, LinearConstraint::Frame frame, bool point_random, bool with_h) {
  return [=](Rng& rng, const Bodies& s) -> ConstraintPtr {
    const BodyState sb = pose(s, body);
    const Vec3 p = point_random ? Vec3(rng.vec(1.5)) : sb.x;
    const Vec3 h = with_h ? rng.vec(1.0) : Vec3::Zero();
    return std::make_shared<LinearConstraint>("l", body, sb, p, rng.vec(1.0), h, rng.uniform(-1, 1),
                                              frame);
  };
}

std::vector<Case> all_cases() {
  using F = LinearConstraint::Frame;
  std::vector<Case> cases;
  for (const JointType* type : joint_types()) {
    if (type->rows() == 0) continue;  // a free joint: no rows to check
    const std::string name = type->name();
    cases.push_back({std::string(name) + " body-body", true, true, joint(type, 0, 1)});
    cases.push_back({std::string(name) + " world-body", true, true, joint(type, kWorld, 1)});
    cases.push_back({std::string(name) + " body-world", true, true, joint(type, 0, kWorld)});
  }
  cases.push_back({"spherical body-particle", true, false, spherical_particle(0, 1)});
  cases.push_back({"spherical world-particle", true, false, spherical_particle(kWorld, 1)});
  cases.push_back({"distance body-body", true, true, distance(0, 1, true, true)});
  cases.push_back({"distance world-body", true, true, distance(kWorld, 1, true, true)});
  cases.push_back({"distance body-particle", true, false, distance(0, 1, true, false)});
  cases.push_back({"distance particle-particle", false, false, distance(0, 1, false, false)});
  cases.push_back({"distance world-particle", true, false, distance(kWorld, 1, true, false)});
  cases.push_back({"point_on_plane body", true, true, point_on_plane(1, true)});
  cases.push_back({"point_on_plane particle", true, false, point_on_plane(1, false)});
  cases.push_back({"perpendicular body-body", true, true, perpendicular(0, 1)});
  cases.push_back({"perpendicular world-body", true, true, perpendicular(kWorld, 1)});
  cases.push_back({"perpendicular body-world", true, true, perpendicular(0, kWorld)});
  cases.push_back({"linear world-frame body", true, true, linear(1, F::World, true, true)});
  cases.push_back({"linear body-frame body", true, true, linear(1, F::Body, true, true)});
  cases.push_back({"linear world-frame particle", true, false, linear(1, F::World, false, false)});
  return cases;
}

// One evaluation of a constraint's rows on a state.
struct Rows {
  std::vector<SpatialForce> terms;
  std::vector<double> b, velocity, position;
  int nb = 0;
  Rows(const Constraint& c, const std::vector<BodyState>& state, double t = 0.0)
      : terms(c.rows() * c.bodies().size()),
        b(c.rows()),
        velocity(c.rows()),
        position(c.rows()),
        nb(static_cast<int>(c.bodies().size())) {
    c.evaluate(StateView{state.data(), t},
               RowSpan{terms.data(), b.data(), velocity.data(), position.data(), nb});
  }
  // Σ_j lin·x_j + ang·y_j over the constraint's bodies
  double apply(const Constraint& c, int row, const std::vector<Vec3>& x,
               const std::vector<Vec3>& y) const {
    double s = 0.0;
    for (int j = 0; j < nb; ++j) {
      const int body = c.bodies()[j];
      s += terms[row * nb + j].force.dot(x[body]) + terms[row * nb + j].moment.dot(y[body]);
    }
    return s;
  }
};

// The state at time h along the motion with accelerations (a, alpha).
std::vector<BodyState> moved(const Bodies& s, const std::vector<Vec3>& a,
                             const std::vector<Vec3>& alpha, double h) {
  std::vector<BodyState> out = s.state;
  for (int i = 0; i < 2; ++i) {
    const BodyState& b = s.state[i];
    out[i].x = b.x + b.v * h + 0.5 * a[i] * h * h;
    out[i].v = b.v + a[i] * h;
    if (s.rigid[i]) {
      out[i].Q =
          quat_from_rotation_vector(b.w * h + 0.5 * alpha[i] * h * h).toRotationMatrix() * b.Q;
      out[i].w = b.w + alpha[i] * h;
    }
  }
  return out;
}

bool rotation_lock_row(const Constraint& c, int row) {
  return (c.type() == "prismatic" && row < 3) || (c.type() == "fixed" && row >= 3);
}

class Kernels : public ::testing::TestWithParam<Case> {};

TEST_P(Kernels, RatesMatchFiniteDifferences) {
  const Case& cs = GetParam();
  Rng rng(std::hash<std::string>{}(cs.name) & 0xffffffffu);
  int checked_a = 0, checked_b = 0;
  for (int k = 0; k < kStates; ++k) {
    Bodies s;
    s.rigid[0] = cs.rigid0;
    s.rigid[1] = cs.rigid1;
    random_pose(rng, s);
    const ConstraintPtr c = cs.make(rng, s);
    const bool on_manifold = k % 2 == 0;  // half the states keep the defining pose
    if (!on_manifold) random_pose(rng, s);
    random_velocity(rng, s);
    std::vector<Vec3> a(2), alpha(2), v(2), w(2);
    for (int i = 0; i < 2; ++i) {
      a[i] = rng.vec(3.0);
      alpha[i] = s.rigid[i] ? rng.vec(3.0) : Vec3::Zero();
      v[i] = s.state[i].v;
      w[i] = s.state[i].w;
    }
    const Rows now(*c, s.state);
    const Rows plus(*c, moved(s, a, alpha, kStep)), minus(*c, moved(s, a, alpha, -kStep));
    Bodies still = s;
    for (BodyState& b : still.state) b.v.setZero(), b.w.setZero();
    const Rows rest(*c, still.state);

    for (int i = 0; i < c->rows(); ++i) {
      SCOPED_TRACE(cs.name + ", state " + std::to_string(k) + ", row " + std::to_string(i));
      // (c) linear in the velocities with coefficients lin, ang
      const double Au = now.apply(*c, i, v, w);
      EXPECT_NEAR(now.velocity[i] - rest.velocity[i], Au, 1e-12 * (1 + std::abs(Au)));
      // (a) π = dg/dt
      if (c->holonomic(i) && (on_manifold || !rotation_lock_row(*c, i))) {
        // positions along the motion do not depend on the accelerations to first order
        const double gdot = (plus.position[i] - minus.position[i]) / (2 * kStep);
        EXPECT_NEAR(now.velocity[i], gdot, kTol * (1 + std::abs(gdot)));
        ++checked_a;
      }
      if (!c->holonomic(i)) {
        EXPECT_EQ(now.position[i], 0.0);
      }
      // (b) dπ/dt = A u̇ − b
      const double pidot = (plus.velocity[i] - minus.velocity[i]) / (2 * kStep);
      const double Audot = now.apply(*c, i, a, alpha);
      EXPECT_NEAR(Audot - now.b[i], pidot,
                  kTol * (1 + std::abs(pidot) + std::abs(Audot) + std::abs(now.b[i])));
      ++checked_b;
    }
  }
  EXPECT_GT(checked_b, 0);
  if (cs.name.rfind("linear", 0) != 0) {
    EXPECT_GT(checked_a, 0);  // linear rows have no g
  }
}

INSTANTIATE_TEST_SUITE_P(AllRows, Kernels, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace appell
