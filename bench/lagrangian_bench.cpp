// One evaluation of a Lagrangian system in its quasi-velocities (engine/lagrangian/), beside
// the rigid-body path on the same system: L96 §2's particle, as a Lagrangian (the scene of
// scenes/examples/lagrangian/lewis_particle.json) and as a particle with an expression
// constraint (scenes/examples/lewis_particle.json), both inline below.  States drawn once.
//   BM_LagrangianGibbsAppell   terms + map + Gibbs–Appell in ν (what a simulate step calls)
//   BM_LagrangianBothForms     the same + the Gauss/Udwadia–Kalaba solve (what eval prints)
//   BM_RigidBodyForward        forward() on the particle scene (the scene's formulation)
//   BM_Disk*                   the same two for the rolling disk (5 coordinates, 2 rolling rows)
//   BM_*InNu / BM_*Recursion   a scene of bodies in its user's quasi-velocities (terms, map,
//                              Gibbs–Appell in ν; appell/rigid_quasi_velocities.hpp) beside
//                              the recursion on the same scene: the rolling disk in its
//                              body-frame ω, the benchmark bicycle in lean, steer and speed
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "appell/lagrangian.hpp"
#include "appell/lagrangian_scene.hpp"
#include "appell/rigid_quasi_velocities.hpp"
#include "appell/scene.hpp"

namespace {

constexpr char kLagrangian[] = R"J({"lagrangian": {
  "parameters": {"m": 1.3, "g": 9.81, "k": 2.0, "c": 0.5, "d": 0.1},
  "coordinates": [{"name": "x", "q": 0.4, "rate": 0.5}, {"name": "y", "q": 0.7, "rate": -0.3},
                  {"name": "z", "q": -0.2, "rate": 0.35}],
  "L": "0.5*m*(qd(x)^2 + qd(y)^2 + qd(z)^2) - m*g*q(z)",
               "forces" : {"x" : "-k*q(x)", "y" : "c*sin(t) - d*qd(y)"},
               "constraints"
    : [ {"name" : "lewis", "level" : "velocity", "equation" : "qd(z) - q(y)*qd(x)"} ],
               "quasi_velocities" : [
                 {"name" : "nu1", "expression" : "qd(y)"},
                 {"name" : "nu2", "expression" : "q(y)*qd(z) + qd(x)"}
               ]
}
})J";

constexpr char kParticle[] = R"J({"gravity": [0, 0, -9.81],
  "bodies": [{"name": "s", "type": "particle", "mass": 1.3, "position": [0.4, 0.7, -0.2],
              "velocity": [0.5, -0.3, 0.35]}],
  "constraints": [{"name": "lewis", "type": "expression", "level": "velocity",
                   "equation": "vz(s) - y(s)*vx(s)"
}],
  "forces": [{"type": "expression", "body": "s", "vector": ["-k*x(s)", "c*sin(t) - d*vy(s)", "0"],
              "parameters": {"k": 2.0, "c": 0.5, "d": 0.1}}]
})J";

// the rolling disk both ways (scenes/examples/lagrangian/rolling_disk.json,
// scenes/examples/rolling_disk.json)
constexpr char kDiskLagrangian[] =
    R"J({"lagrangian": {"parameters": {"m": 1.5, "R": 0.5, "A": 0.0940625, "C": 0.1875, "g": 9.81}, "coordinates": [{"name": "x", "q": -0.14776010333066977, "rate": 0.0}, {"name": "y", "q": 0.0, "rate": 1.14802983467914}, {"name": "th", "q": 0.3, "rate": 0.0}, {"name": "ph", "q": -1.5707963267948966, "rate": 1.7}, {"name": "ps", "q": 0.0, "rate": -2.798444020682557}], "L": "0.5*m*(qd(x)^2 + qd(y)^2 + R^2*sin(q(th))^2*qd(th)^2) + 0.5*(A*qd(th)^2 + A*cos(q(th))^2*qd(ph)^2 + C*(qd(ps) + sin(q(th))*qd(ph))^2) - m*g*R*cos(q(th))", "constraints": [{"name": "roll_x", "level": "velocity", "equation": "qd(x) - R*(qd(ps) + sin(q(th))*qd(ph))*cos(q(ph)) - R*cos(q(th))*sin(q(ph))*qd(th)"}, {"name": "roll_y", "level": "velocity", "equation": "qd(y) - R*(qd(ps) + sin(q(th))*qd(ph))*sin(q(ph)) + R*cos(q(th))*cos(q(ph))*qd(th)"}], "quasi_velocities": [{"name": "tilt_rate", "expression": "qd(th)"}, {"name": "heading_rate", "expression": "qd(ph)"}, {"name": "axial_spin", "expression": "qd(ps) + sin(q(th))*qd(ph)"}]}})J";
constexpr char kDiskRigid[] =
    R"J({"gravity": [0, 0, -9.81], "bodies": [{"name": "disk", "mass": 1.5, "inertia": {"cylinder": [0.5, 0.05]}, "position": [-0.14776010333066977, -0.0, 0.477668244562803], "orientation": {"matrix": [[0.29552020666133955, 0.0, -0.955336489125606], [0, -1.0, 0], [-0.955336489125606, -0.0, -0.29552020666133955]]}, "velocity": [0.0, 1.14802983467914, 0.0], "angular_velocity": [-2.673455685733419, 0.0, 0.8730032446777006]}], "constraints": [{"name": "contact", "type": "rolling", "body": "disk", "radius": 0.5, "shape": "disk", "normal": [0, 0, 1]}]})J";

struct Fixture {
  appell::LagrangianScene sc = appell::load_lagrangian_scene_from_string(kLagrangian, "bench");
  std::vector<appell::LagrangianState> states;
  Fixture() {
    appell::LagrangianData d(sc.system);
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int i = 0; i < 64; ++i) {
      appell::LagrangianState x;
      x.t = u(rng);
      x.q = Eigen::Vector3d(u(rng), u(rng), u(rng));
      x.qd.resize(3);
      appell::rates_of(sc.system, x.t, x.q, Eigen::Vector2d(u(rng), u(rng)), d, x.qd);
      states.push_back(x);
    }
  }
};

void BM_LagrangianGibbsAppell(benchmark::State& state) {
  Fixture f;
  appell::LagrangianData d(f.sc.system);
  size_t i = 0;
  for (auto _ : state) {
    const appell::LagrangianState& x = f.states[i++ % f.states.size()];
    appell::lagrangian_terms(f.sc.system, x, d);
    appell::quasi_velocity_map(f.sc.system, x, d);
    appell::gibbs_appell_nu(f.sc.system, d);
    benchmark::DoNotOptimize(d.nudot.data());
  }
}
BENCHMARK(BM_LagrangianGibbsAppell);

void BM_LagrangianBothForms(benchmark::State& state) {
  Fixture f;
  appell::LagrangianData d(f.sc.system);
  size_t i = 0;
  for (auto _ : state) {
    appell::evaluate_lagrangian(f.sc.system, f.states[i++ % f.states.size()], d);
    benchmark::DoNotOptimize(d.qdd_gauss.data());
  }
}
BENCHMARK(BM_LagrangianBothForms);

void BM_RigidBodyForward(benchmark::State& state) {
  const appell::Model m = appell::load_model_from_string(kParticle, "bench");
  appell::Data d(m);
  const appell::State s = m.initial_state();
  for (auto _ : state) {
    appell::forward(m, d, s);
    benchmark::DoNotOptimize(d.udot.data());
  }
}
BENCHMARK(BM_RigidBodyForward);

void BM_DiskLagrangianGibbsAppell(benchmark::State& state) {
  const appell::LagrangianScene sc =
      appell::load_lagrangian_scene_from_string(kDiskLagrangian, "bench");
  appell::LagrangianData d(sc.system);
  for (auto _ : state) {
    appell::lagrangian_terms(sc.system, sc.initial, d);
    appell::quasi_velocity_map(sc.system, sc.initial, d);
    appell::gibbs_appell_nu(sc.system, d);
    benchmark::DoNotOptimize(d.nudot.data());
  }
}
BENCHMARK(BM_DiskLagrangianGibbsAppell);

void BM_DiskRigidBodyForward(benchmark::State& state) {
  const appell::Model m = appell::load_model_from_string(kDiskRigid, "bench");
  appell::Data d(m);
  const appell::State s = m.initial_state();
  for (auto _ : state) {
    appell::forward(m, d, s);
    benchmark::DoNotOptimize(d.udot.data());
  }
}
BENCHMARK(BM_DiskRigidBodyForward);

// a scene file of the repository (this file is bench/lagrangian_bench.cpp)
std::string repository_file(const std::string& name) {
  const std::string here = __FILE__;
  return here.substr(0, here.rfind("/bench/")) + "/" + name;
}

void rigid_in_nu(benchmark::State& state, const std::string& scene) {
  const appell::RigidNuScene rs = appell::load_rigid_nu_scene(repository_file(scene));
  appell::RigidNuData d(rs.system);
  for (auto _ : state) {
    appell::rigid_nu_terms(rs.system, rs.initial, d);
    appell::quasi_velocity_solve(rs.initial.u, d.r);
    appell::gibbs_appell_nu(d.r);
    benchmark::DoNotOptimize(d.r.nudot.data());
  }
}

void recursion(benchmark::State& state, const std::string& scene) {
  const appell::Model m = appell::load_model(repository_file(scene));
  appell::Data d(m);
  const appell::State s = m.initial_state();
  appell::SolverOptions o;
  o.formulation = appell::Formulation::Recursive;
  for (auto _ : state) {
    appell::forward(m, d, s, o);
    benchmark::DoNotOptimize(d.udot.data());
  }
}

void BM_DiskInNu(benchmark::State& state) {
  rigid_in_nu(state, "scenes/examples/quasi_velocities/rolling_disk.json");
}
BENCHMARK(BM_DiskInNu);
void BM_DiskRecursion(benchmark::State& state) {
  recursion(state, "scenes/examples/rolling_disk.json");
}
BENCHMARK(BM_DiskRecursion);
void BM_BicycleInNu(benchmark::State& state) {
  rigid_in_nu(state, "scenes/examples/quasi_velocities/bicycle.json");
}
BENCHMARK(BM_BicycleInNu);
void BM_BicycleRecursion(benchmark::State& state) {
  recursion(state, "scenes/benchmarks/whipple_bicycle.json");
}
BENCHMARK(BM_BicycleRecursion);

}  // namespace
