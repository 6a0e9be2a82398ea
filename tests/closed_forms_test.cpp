// Worked examples against their closed forms, with both dense formulations.
//
//  * the spherical pendulum of [UK96 §"Examples", eqs. 24–28]: a particle on a massless rod;
//  * the cylinder sliding on a smooth plane of [HO21 §7, eqs. 22–28];
//  * the physical pendulum: a box on a hinge, against the textbook equation
//    (J_c + m d²) θ̈ = −m g d sin θ and the Newton–Euler balance of the hinge reaction.
//
// Every expected value is computed here from its closed form, never copied from the engine.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/assembly/stages.hpp"

namespace appell {
namespace {

constexpr double kTol = 1e-10;  // relative
const Formulation kFormulations[] = {Formulation::Pinv, Formulation::GibbsAppell};

// |a − b| ≤ tol · scale, with a message naming both vectors
::testing::AssertionResult Near(const Vec3& a, const Vec3& b, double tol, double scale) {
  const double err = (a - b).norm();
  if (err <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got [" << a.transpose() << "], expected [" << b.transpose() << "], |diff| " << err
         << " > " << tol * scale;
}

Mat3 rot_x(double a) {
  return Eigen::AngleAxisd(a, Vec3::UnitX()).toRotationMatrix();
}

// ---- spherical pendulum [UK96 eqs. 24–28] ---------------------------------------------
//
// A particle of mass m at x on a rod of length L to the origin, gravity g (a vector):
//     m ẍ = m g + F^c,   x·ẍ = −|ẋ|²  (eq. 26, the twice-differentiated eq. 25)
// so, with the generalized inverse (eq. 27–28, gravity as a vector),
//     F^c = −m (|ẋ|² + x·g) x / L².
// Our distance row is written for |x| − L (not |x|² − L²): e·ẍ = −(|ẋ|² − (e·ẋ)²)/L with
// e = x/L; its multiplier therefore is the paper's times L:  λ = −m (|ẋ|² + x·g) / L,
// and the force on the particle is λ e = F^c.
struct Pendulum {
  double m = 2.0, L = 1.5;
  Vec3 g = Vec3(0, 0, -9.81);
  Vec3 x, v;
  Pendulum() {
    const double th = 0.7, ph = 0.3;
    x = L * Vec3(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), -std::cos(th));
    const Vec3 w(0.4, -1.1, 2.3);  // tangential velocity: v = w × x
    v = w.cross(x);
  }
  Vec3 accel() const { return g - x * (v.squaredNorm() + x.dot(g)) / (L * L); }
  double lambda() const { return -m * (v.squaredNorm() + x.dot(g)) / L; }
};

void check_pendulum(const Model& model, const Pendulum& p) {
  const Vec3 force = p.m * (p.accel() - p.g);                             // F^c = m ẍ − m g
  ASSERT_TRUE(Near(force, p.lambda() * p.x / p.L, 1e-14, force.norm()));  // the two closed forms
  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(model);
    ASSERT_EQ(forward(model, d, f), SolveStatus::Ok) << d.diagnostics.message;
    EXPECT_TRUE(Near(d.udot.head<3>(), p.accel(), kTol, p.accel().norm()));
    ASSERT_EQ(d.lambda.size(), 1);
    EXPECT_NEAR(d.lambda(0), p.lambda(), kTol * std::abs(p.lambda()));
    ASSERT_EQ(d.reaction.size(), 1u);
    EXPECT_TRUE(Near(d.reaction[0].force, force, kTol, force.norm()));
    EXPECT_EQ(d.diagnostics.rank, 1);
  }
}

TEST(SphericalPendulumUK96, AccelerationAndRodForceFromCode) {
  const Pendulum p;
  ModelBuilder model_b;
  model_b.gravity = p.g;
  Body bob;
  bob.name = "bob";
  bob.type = BodyType::Particle;
  bob.mass = p.m;
  bob.position = p.x;
  bob.velocity = p.v;
  const int b = model_b.add_body(bob);
  model_b.add_constraint(
      std::make_shared<DistanceConstraint>("rod", kWorld, b, model_b.initial_state(kWorld),
                                           model_b.initial_state(b), Vec3::Zero(), p.x, p.L));
  const Model model = compile(model_b);
  check_pendulum(model, p);
}

TEST(SphericalPendulumUK96, AccelerationAndRodForceFromScene) {
  const Pendulum p;
  char text[2048];
  std::snprintf(text, sizeof text, R"({
    "name": "spherical pendulum [UK96 eqs. 24-28]",
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "type": "particle", "mass": 2.0,
                "position": [%.17g, %.17g, %.17g], "velocity": [%.17g, %.17g, %.17g]}],
    "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                     "points": [[0, 0, 0], [%.17g, %.17g, %.17g]], "length": 1.5}]
  })",
                p.x.x(), p.x.y(), p.x.z(), p.v.x(), p.v.y(), p.v.z(), p.x.x(), p.x.y(), p.x.z());
  const Model model = load_model_from_string(text, "pendulum.json");
  ASSERT_EQ(model.nbody(), 1);
  ASSERT_EQ(model.constraints().at(0)->name(), "rod");
  check_pendulum(model, p);
}

// ---- cylinder on a smooth plane [HO21 §7] ------------------------------------------------
//
// Constraints (eq. 22): v̄·E3 = 0 (point_on_plane at the centre, normal E3) and ω·h = 0,
// h = e3 × E3, which is exactly the rate of the holonomic e3·E3 = 0: a `perpendicular`
// constraint between the world's E3 and the body's axis e3 (kernel K3: k = c × n = e3 × E3).
// With ω = Ω3 E3 + ω3 e3 and v̄ = ẋ E1 + ẏ E2 (eq. 24), eqs. 28 give ẍ = ÿ = 0,
// Ω̇3 = ω̇3 = 0, hence ω̇ = −ω3 Ω3 h, and eq. 27 with z̈ = 0 gives λ1 = m g.
// The constraint moment follows from Euler's law with J of eq. 23:
//     λ2 h = J ω̇ + ω × Jω = −Jt ω3 Ω3 h + (Jt − Ja) Ω3 ω3 h,   so λ2 = −Ja Ω3 ω3.
TEST(CylinderOnPlaneHO21, Eqs22To28) {
  const double m = 2.0, radius = 0.3, height = 1.0, g = 9.81;
  const double Ja = 0.5 * m * radius * radius;
  const double psi = 0.4, phi = 1.1, Omega3 = 0.9, omega3 = 5.0;
  const Vec3 E3 = Vec3::UnitZ();
  const Mat3 Q = Eigen::AngleAxisd(psi, E3).toRotationMatrix() *
                 Eigen::AngleAxisd(M_PI / 2, Vec3::UnitY()).toRotationMatrix() *
                 Eigen::AngleAxisd(phi, E3).toRotationMatrix();
  const Vec3 e3 = Q * E3;
  ASSERT_NEAR(e3.dot(E3), 0.0, 1e-15);
  const Vec3 h = e3.cross(E3);

  ModelBuilder model_b;
  model_b.gravity = Vec3(0, 0, -g);
  Body cyl;
  cyl.name = "cylinder";
  cyl.mass = m;
  cyl.inertia = inertia_cylinder(m, radius, height);
  cyl.position = Vec3(0.3, -0.2, radius);
  cyl.orientation = Quat(Q);
  cyl.velocity = Vec3(1.2, -0.7, 0.0);
  cyl.angular_velocity = Omega3 * E3 + omega3 * e3;
  const int c = model_b.add_body(cyl);
  const BodyState s0 = model_b.initial_state(c);
  model_b.add_constraint(std::make_shared<PointOnPlaneConstraint>("plane", c, s0, s0.x, E3));
  model_b.add_constraint(std::make_shared<PerpendicularConstraint>(
      "upright", kWorld, c, model_b.initial_state(kWorld), s0, E3, e3));

  const Model model = compile(model_b);
  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(model);
    ASSERT_EQ(forward(model, d, f), SolveStatus::Ok) << d.diagnostics.message;
    const Vec3 a = d.udot.head<3>(), wdot = d.udot.segment<3>(3);
    const double scale = Ja * std::abs(omega3 * Omega3);
    EXPECT_TRUE(Near(a, Vec3::Zero(), kTol, g));                       // ẍ = ÿ = z̈ = 0
    EXPECT_NEAR(wdot.dot(E3), 0.0, kTol * std::abs(omega3 * Omega3));  // Ω̇3 = 0
    EXPECT_NEAR(wdot.dot(e3), 0.0, kTol * std::abs(omega3 * Omega3));  // ω̇3 = 0
    EXPECT_TRUE(Near(wdot, -omega3 * Omega3 * h, kTol, std::abs(omega3 * Omega3)));
    EXPECT_NEAR(d.lambda(0), m * g, kTol * m * g);                  // λ1 = m g
    EXPECT_NEAR(d.lambda(1), -Ja * Omega3 * omega3, kTol * scale);  // λ2
    // Lagrange's prescription (eq. 27): force λ1 E3 at the centre, moment λ2 h
    EXPECT_TRUE(Near(d.reaction[0].force, m * g * E3, kTol, m * g));
    EXPECT_TRUE(Near(d.reaction[0].moment, Vec3::Zero(), kTol, m * g));
    EXPECT_TRUE(Near(d.reaction[1].force, Vec3::Zero(), kTol, scale));
    EXPECT_TRUE(Near(d.reaction[1].moment, -Ja * Omega3 * omega3 * h, kTol, scale));
  }
}

// ---- physical pendulum ---------------------------------------------------------------------
//
// A box (edges a, b, c along body x, y, z) hangs from a hinge about world x at the anchor
// A; its centre is at distance d from A along the body's −z axis.  θ is its rotation about
// x.  With J_c = m (b² + c²)/12 about the centre:
//     θ̈ = −m g d sin θ / (J_c + m d²),
//     a_c = θ̈ E1 × r + ω × (ω × r),  r = x̄ − A,
//     F_hinge = m a_c − m g,   M_hinge (about the centre) = J_c θ̈ E1   (ω ∥ principal axis).
TEST(PhysicalPendulum, AngularAccelerationAndHingeReaction) {
  const double m = 3.0, b = 0.2, c = 0.6, dist = 0.25, g = 9.81;
  const double theta = 0.8, rate = 1.3;
  const Vec3 A(0.1, -0.2, 0.3);
  const Mat3 Q = rot_x(theta);
  const Vec3 r = Q * Vec3(0, 0, -dist);
  const Vec3 w = rate * Vec3::UnitX();
  const Vec3 xc = A + r, vc = w.cross(r);

  // the scene, inline: orientation as axis-angle, inertia from the box
  char text[2048];
  std::snprintf(text, sizeof text, R"({
    "gravity": [0, 0, -9.81],
    "bodies": [{"name": "box", "mass": 3.0, "inertia": {"box": [0.1, 0.2, 0.6]},
                "position": [%.17g, %.17g, %.17g],
                "orientation": {"axis_angle": [1, 0, 0, 0.8]},
                "velocity": [%.17g, %.17g, %.17g], "angular_velocity": [1.3, 0, 0]}],
    "constraints": [{"name": "hinge", "type": "revolute", "bodies": ["world", "box"],
                     "anchor": [0.1, -0.2, 0.3], "axis": [1, 0, 0]}]
  })",
                xc.x(), xc.y(), xc.z(), vc.x(), vc.y(), vc.z());
  const Model model = load_model_from_string(text, "physical_pendulum.json");

  const double Jc = m * (b * b + c * c) / 12.0;
  const double alpha = -m * g * dist * std::sin(theta) / (Jc + m * dist * dist);
  const Vec3 ac = alpha * Vec3::UnitX().cross(r) + w.cross(w.cross(r));
  const Vec3 F_hinge = m * ac - m * Vec3(0, 0, -g);
  const Vec3 M_hinge = Jc * alpha * Vec3::UnitX();

  for (Formulation f : kFormulations) {
    SCOPED_TRACE(formulation_name(f));
    Data d(model);
    ASSERT_EQ(forward(model, d, f), SolveStatus::Ok) << d.diagnostics.message;
    EXPECT_TRUE(Near(d.udot.segment<3>(3), alpha * Vec3::UnitX(), kTol, std::abs(alpha)));
    EXPECT_TRUE(Near(d.udot.head<3>(), ac, kTol, ac.norm()));
    ASSERT_EQ(d.reaction.size(), 1u);
    EXPECT_TRUE(Near(d.reaction[0].force, F_hinge, kTol, F_hinge.norm()));
    EXPECT_TRUE(Near(d.reaction[0].moment, M_hinge, kTol, F_hinge.norm() * dist));
    // a hinge exerts no moment about its own axis at the anchor
    const Vec3 M_anchor = d.reaction[0].moment + (xc - A).cross(d.reaction[0].force);
    EXPECT_NEAR(M_anchor.dot(Vec3::UnitX()), 0.0, kTol * F_hinge.norm() * dist);
    EXPECT_EQ(d.diagnostics.rank, 5);
  }
}

}  // namespace
}  // namespace appell
