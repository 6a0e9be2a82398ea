// The seven systems of issue 5 against their closed forms, with every dense formulation:
// scenes/examples/*.json evaluated by `appell eval` (t = 0) and by forward() (t ≠ 0 where
// the system depends on time).  Each test prints its measured relative error.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/assembly/stages.hpp"

namespace {

using appell::Vec3;
using nlohmann::json;

// every formulation
const std::vector<std::string> kFormulations = {"pinv", "gibbs-appell", "recursive", "sparse"};

std::string example(const std::string& name) {
  return std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + name;
}

// `appell eval SCENE --formulation F`, parsed
json eval_cli(const std::string& scene, const std::string& formulation) {
  const std::string cmd =
      std::string(APPELL_CLI_PATH) + " eval " + scene + " --formulation " + formulation + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = pclose(p);
  EXPECT_EQ(rc, 0) << out;
  return json::parse(out);
}

Vec3 vec(const json& j) {
  return Vec3(j[0].get<double>(), j[1].get<double>(), j[2].get<double>());
}

double rel(const Vec3& got, const Vec3& want) {
  return (got - want).norm() / std::max(want.norm(), 1e-300);
}

void report(const std::string& system, const std::string& f, double err) {
  std::cout << "[agreement] " << system << " (" << f << "): relative error " << err << "\n";
}

appell::Formulation formulation(const std::string& f) {
  appell::Formulation out;
  appell::parse_formulation(f, out);
  return out;
}

// forward() on the scene's initial state at time t
struct Evaluated {
  appell::Model model;
  std::unique_ptr<appell::Data> data;
};
Evaluated forward_at(const std::string& scene, double t, const std::string& f) {
  Evaluated e{appell::load_model(scene), nullptr};
  e.data = std::make_unique<appell::Data>(e.model);
  e.data->t = t;
  EXPECT_EQ(appell::forward(e.model, *e.data, formulation(f)), appell::SolveStatus::Ok);
  return e;
}

// ---- Appell's constraint [UK98 eqs. 28–32] ------------------------------------------------
// ẋ² + ẏ² − ż² = 2α h, h = x y cos(w t) + k z sin(3t) + c t, unit... here m = 2 (M = m I,
// so the mass-weighted inverse of (31) is the plain Moore–Penrose inverse).
Vec3 appell_closed_form(const Vec3& x, const Vec3& v, double t) {
  const double g = 9.81, alpha = 1.0, w = 1.3, k = 0.5, c = 0.25;
  const double hx = x.y() * std::cos(w * t), hy = x.x() * std::cos(w * t), hz = k * std::sin(3 * t),
               ht = -w * x.x() * x.y() * std::sin(w * t) + 3 * k * x.z() * std::cos(3 * t) + c;
  const Vec3 a(0, 0, -g);              // (29)
  const Vec3 A(v.x(), v.y(), -v.z());  // (30)
  const double b = alpha * (hx * v.x() + hy * v.y() + hz * v.z() + ht);
  return a + A * (b - A.dot(a)) / A.squaredNorm();  // (31), (32)
}

TEST(NonholonomicExamples, AppellConstraintUK98) {
  const Vec3 x(1, 2, 0.5), v(1, 2, 1);
  for (const std::string& f : kFormulations) {
    const json out = eval_cli(example("appell_constraint.json"), f);
    const double e0 =
        rel(vec(out["bodies"]["p"]["linear_acceleration"]), appell_closed_form(x, v, 0));
    // at t = 0.9 the time dependence of h enters through h_t
    Evaluated ev = forward_at(example("appell_constraint.json"), 0.9, f);
    const double e1 = rel(Vec3(ev.data->udot.head<3>()), appell_closed_form(x, v, 0.9));
    // the constraint force is the second member of (32), times m
    const Vec3 fc = vec(out["constraints"]["appell"]["bodies"]["p"]["force"]);
    const double e2 = rel(fc, 2.0 * (appell_closed_form(x, v, 0) - Vec3(0, 0, -9.81)));
    report("Appell's constraint, t = 0", f, e0);
    report("Appell's constraint, t = 0.9", f, e1);
    report("Appell's constraint force", f, e2);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
    EXPECT_LT(e2, 1e-8);
  }
}

// ---- Kepler's first two laws [UK96 ex. 2, eqs. 29–34] --------------------------------------
TEST(NonholonomicExamples, KeplerUK96) {
  const double m = 1.5, eps = 0.5, p = 3.5, c = 8.75;
  const Vec3 x(3, 4, 0);
  const double r = x.norm();
  (void)eps;
  const Vec3 want = -c * c / (p * r * r) * x / r;  // (34): central, inverse-square
  for (const std::string& f : kFormulations) {
    const json out = eval_cli(example("kepler.json"), f);
    const double e0 = rel(vec(out["bodies"]["planet"]["linear_acceleration"]), want);
    const Vec3 force = vec(out["constraints"]["ellipse"]["bodies"]["planet"]["force"]) +
                       vec(out["constraints"]["areal_velocity"]["bodies"]["planet"]["force"]) +
                       vec(out["constraints"]["orbital_plane"]["bodies"]["planet"]["force"]);
    const double e1 = rel(force, m * want);
    report("Kepler acceleration", f, e0);
    report("Kepler constraint force", f, e1);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
  }
}

// ---- ẏ = z ẋ + α(t) under X(t), Y(t), Z(t) [UK96 ex. 3, eqs. 35–37] ------------------------
Vec3 uk96_ex3_closed_form(const Vec3& x, const Vec3& v, double t) {
  const double m = 0.7, a1 = 0.5, w = 2.0;
  const Vec3 F(1.2 * std::cos(t), -0.4 + 0.3 * t, 0.9 * std::exp(-t) - 2);
  const double alpha_dot = a1 * w * std::cos(w * t);
  const double z = x.z();
  const double mult = (m * (v.z() * v.x() + alpha_dot) + z * F.x() - F.y()) / (z * z + 1);  // (37)
  return (F + mult * Vec3(-z, 1, 0)) / m;
}

TEST(NonholonomicExamples, TimeDependentConstraintUK96) {
  const Vec3 x(0.3, -0.2, 1.5), v(0.4, 0.7, 0.6);
  for (const std::string& f : kFormulations) {
    const json out = eval_cli(example("time_dependent_constraint.json"), f);
    const double e0 =
        rel(vec(out["bodies"]["q"]["linear_acceleration"]), uk96_ex3_closed_form(x, v, 0));
    Evaluated ev = forward_at(example("time_dependent_constraint.json"), 1.7, f);
    const double e1 = rel(Vec3(ev.data->udot.head<3>()), uk96_ex3_closed_form(x, v, 1.7));
    report("UK96 ex. 3, t = 0", f, e0);
    report("UK96 ex. 3, t = 1.7", f, e1);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
  }
}

// ---- Lewis's particle [L96 §2, eqs. 2.2–2.5] --------------------------------------------------
Vec3 lewis_closed_form(const Vec3& x, const Vec3& v, double t) {
  const double m = 1.3, g = 9.81, k = 2.0, c = 0.5, d = 0.1;
  const Vec3 F(-k * x.x(), c * std::sin(t) - d * v.y(), -m * g);
  const double y = x.y(), q = 1 + y * y;
  const double nu1 = v.y(), nu2 = y * v.z() + v.x();                   // (2.1)
  const double nu1_dot = F.y() / m;                                    // (2.4)
  const double nu2_dot = (F.x() + y * F.z()) / m + y * nu1 * nu2 / q;  // (2.5) × (1+y²)/m
  return Vec3(nu2_dot / q - 2 * y * nu1 * nu2 / (q * q),               // (2.3)
              nu1_dot, y * nu2_dot / q + nu1 * nu2 / q - 2 * y * y * nu1 * nu2 / (q * q));
}

TEST(NonholonomicExamples, LewisParticleL96) {
  const Vec3 x(0.4, 0.7, -0.2), v(0.5, -0.3, 0.35);
  for (const std::string& f : kFormulations) {
    const json out = eval_cli(example("lewis_particle.json"), f);
    const double e0 =
        rel(vec(out["bodies"]["s"]["linear_acceleration"]), lewis_closed_form(x, v, 0));
    Evaluated ev = forward_at(example("lewis_particle.json"), 0.6, f);
    const double e1 = rel(Vec3(ev.data->udot.head<3>()), lewis_closed_form(x, v, 0.6));
    report("Lewis's particle, t = 0", f, e0);
    report("Lewis's particle, t = 0.6", f, e1);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
  }
}

// ---- a solid sphere rolling on an incline: 5/7 g sin θ ----------------------------------------
TEST(NonholonomicExamples, SphereRollingOnIncline) {
  const double m = 2.0, R = 0.4, g = 9.81;
  const Vec3 n(-0.6, 0, 0.8), gv(0, 0, -g);
  const Vec3 gt = gv - gv.dot(n) * n;  // |gt| = g sin θ, sin θ = 0.6
  const Vec3 a = 5.0 / 7.0 * gt;
  const Vec3 wdot = n.cross(a) / R;
  for (const std::string& f : kFormulations) {
    const json out = eval_cli(example("sphere_incline.json"), f);
    const json& b = out["bodies"]["ball"];
    const double e0 = rel(vec(b["linear_acceleration"]), a);
    const double e1 = rel(vec(b["angular_acceleration"]), wdot);
    const double e2 =
        rel(vec(out["constraints"]["contact"]["bodies"]["ball"]["force"]), m * (a - gv));
    EXPECT_NEAR(vec(b["linear_acceleration"]).norm(), 5.0 / 7.0 * g * 0.6, 1e-12);
    report("rolling sphere, centre acceleration", f, e0);
    report("rolling sphere, angular acceleration", f, e1);
    report("rolling sphere, contact force", f, e2);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
    EXPECT_LT(e2, 1e-8);
  }
}

// ---- the Chaplygin sleigh ----------------------------------------------------------------------
// Contact point P, centre of mass C = P + a e₁, u = v_P·e₁, Ω the yaw rate:
//   u̇ = a Ω²,  Ω̇ = −m a u Ω / (I + m a²),  so  dv̄/dt = (u Ω + a Ω̇) e₂.
TEST(NonholonomicExamples, ChaplyginSleigh) {
  const double m = 2.0, I = 0.25, a = 0.3, u = 1.2, W = 0.7;
  const Vec3 e1(0.6, 0.8, 0), e2(-0.8, 0.6, 0);
  const double Wdot = -m * a * u * W / (I + m * a * a);
  const Vec3 acc = (u * W + a * Wdot) * e2;
  for (const std::string& f : kFormulations) {
    const json out = eval_cli(example("chaplygin_sleigh.json"), f);
    const json& b = out["bodies"]["sleigh"];
    const double e0 = rel(vec(b["linear_acceleration"]), acc);
    const double e1 = rel(vec(b["angular_acceleration"]), Vec3(0, 0, Wdot));
    // the blade's force is lateral: λ e₂ with λ = m (uΩ + aΩ̇)
    const double e2 = rel(vec(out["constraints"]["blade"]["bodies"]["sleigh"]["force"]), m * acc);
    report("Chaplygin sleigh, centre acceleration", f, e0);
    report("Chaplygin sleigh, yaw acceleration", f, e1);
    report("Chaplygin sleigh, blade force", f, e2);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
    EXPECT_LT(e2, 1e-8);
  }
}

// ---- the rolling disk: steady motion in a circle ----------------------------------------------
// Steady motion: every vector turns about the vertical E₃ at the rate Ω, ω = Ω E₃ + s e₃, so
//   dv̄/dt = Ω E₃ × v̄,   dω/dt = s Ω E₃ × e₃.
// The scene holds such a state (s from the Newton–Euler balance, see SteadyDiskState).
TEST(NonholonomicExamples, RollingDiskSteadyCircle) {
  const appell::Model model = appell::load_model(example("rolling_disk.json"));
  const appell::BodyState s0 = model.initial_body_state(0);
  const Vec3 e3 = s0.Q.col(2);
  const double s = s0.w.x() / e3.x();
  const double W = s0.w.z() - s * e3.z();
  ASSERT_LT((W * Vec3::UnitZ() + s * e3 - s0.w).norm(), 1e-12);
  for (const std::string& f : kFormulations) {
    const json out = eval_cli(example("rolling_disk.json"), f);
    const json& b = out["bodies"]["disk"];
    const double e0 = rel(vec(b["linear_acceleration"]), W * Vec3::UnitZ().cross(s0.v));
    const double e1 = rel(vec(b["angular_acceleration"]), s * W * Vec3::UnitZ().cross(e3));
    report("rolling disk (steady circle), centre acceleration", f, e0);
    report("rolling disk (steady circle), angular acceleration", f, e1);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
  }
}

// The steady circular motion of a disk (cylinder r, h) with tilt β and precession Ω,
// solved from Newton–Euler independently of the engine: the contact force F = m dv̄/dt +
// m g E₃ and the balance of moments about the centre J dω/dt + ω × Jω = r_C × F, which is
// linear in the spin s (its E₂ component fixes s; the others vanish by symmetry).
struct SteadyDisk {
  Vec3 x, v, w, e3, c;
  appell::Mat3 Q;
  double s;
};
SteadyDisk steady_disk(double m, double R, double h, double beta, double W, double g) {
  const double A = m * (3 * R * R + h * h) / 12, C = m * R * R / 2;
  const Vec3 E3 = Vec3::UnitZ();
  SteadyDisk d;
  d.c = Vec3(std::sin(beta), 0, -std::cos(beta));  // centre → contact
  d.e3 = Vec3(-std::cos(beta), 0, -std::sin(beta));
  const appell::Mat3 J = A * appell::Mat3::Identity() + (C - A) * d.e3 * d.e3.transpose();
  auto residual = [&](double s) {
    const Vec3 w = W * E3 + s * d.e3;
    const Vec3 v = -w.cross(R * d.c);  // rolling: v̄ + ω × r_C = 0
    const Vec3 wdot = s * W * E3.cross(d.e3);
    const Vec3 F = m * W * E3.cross(v) + m * g * E3;
    return Vec3(J * wdot + w.cross(J * w) - (R * d.c).cross(F));
  };
  const double r0 = residual(0).y(), r1 = residual(1).y();
  d.s = -r0 / (r1 - r0);
  EXPECT_LT(residual(d.s).norm(), 1e-12);
  d.w = W * E3 + d.s * d.e3;
  d.v = -d.w.cross(R * d.c);
  d.x = -R * d.c;
  d.Q.col(0) = d.c;
  d.Q.col(2) = d.e3;
  d.Q.col(1) = d.e3.cross(d.c);
  return d;
}

TEST(NonholonomicExamples, RollingDiskSteadyCircleNewtonEuler) {
  const double m = 0.8, R = 0.3, h = 0.12, beta = -0.5, W = -1.1, g = 9.81;
  const SteadyDisk sd = steady_disk(m, R, h, beta, W, g);
  appell::ModelBuilder model_b;
  model_b.gravity = Vec3(0, 0, -g);
  appell::Body b;
  b.name = "disk";
  b.mass = m;
  b.inertia = appell::inertia_cylinder(m, R, h);
  b.position = sd.x;
  b.orientation = appell::Quat(sd.Q);
  b.velocity = sd.v;
  b.angular_velocity = sd.w;
  model_b.add_body(b);
  model_b.add_constraint(std::make_shared<appell::RollingConstraint>(
      "contact", 0, model_b.initial_state(0), R, appell::RollingConstraint::Shape::Disk,
      Vec3::UnitZ()));
  const appell::Model model = appell::compile(model_b);
  for (const std::string& f : kFormulations) {
    appell::Data d(model);
    ASSERT_EQ(appell::forward(model, d, formulation(f)), appell::SolveStatus::Ok);
    const double e0 = rel(Vec3(d.udot.head<3>()), W * Vec3::UnitZ().cross(sd.v));
    const double e1 = rel(Vec3(d.udot.segment<3>(3)), sd.s * W * Vec3::UnitZ().cross(sd.e3));
    // the contact force: F = m dv̄/dt + m g E₃
    const Vec3 F = m * W * Vec3::UnitZ().cross(sd.v) + m * g * Vec3::UnitZ();
    const double e2 = rel(d.reaction[0].force, F);
    report("rolling disk (Newton-Euler steady circle), centre acceleration", f, e0);
    report("rolling disk (Newton-Euler steady circle), angular acceleration", f, e1);
    report("rolling disk (Newton-Euler steady circle), contact force", f, e2);
    EXPECT_LT(e0, 1e-8);
    EXPECT_LT(e1, 1e-8);
    EXPECT_LT(e2, 1e-8);
  }
}

}  // namespace
