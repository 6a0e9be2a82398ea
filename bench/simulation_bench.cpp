// A whole simulation of the standard chain (bench/chain_scenes.hpp): rk4, dt = 1 ms, the model's
// own formulation (auto) and `sparse`.  Reports simulated steps per second and the share of a step
// spent outside the acceleration evaluation (state packing, quaternion updates, the odeint vector
// operations, output).
//
// Durations are shortened from the reference 10 s so that one run takes seconds, not hours,
// with the dense O(n³) formulations: n = 10 runs 1 s (1000 steps), n = 100 runs 5 ms
// (5 steps; 100 ms with sparse).  Steps per second do not depend on the duration (a fixed-step
// method).
//
// Counters:
//   steps_per_s      accepted steps per wall second
//   steps_per_cpu_s  accepted steps per CPU second of this thread
//   rhs_per_step     right-hand-side evaluations per step (4 for rk4)
//   outside_rhs      1 − (time inside StateSpace::derivative) / (wall time)
//   packing_in_rhs   share of one StateSpace::derivative() spent outside forward() (packing
//                    x into q, u and q̇, u̇ into ẋ), timed separately in CPU time
//   outside_forward  the share of the step outside the acceleration evaluation proper:
//                    1 − (1 − outside_rhs)(1 − packing_in_rhs)
#include <benchmark/benchmark.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <appell/state_space.hpp>
#include <ctime>

#include "engine/assembly/stages.hpp"

namespace {

double duration_for(int n, appell::Formulation f) {
  if (n <= 10) return 1.0;
  return f == appell::Formulation::Sparse ? 0.1 : 0.005;
}

// this thread's CPU time: the machine may be shared, wall time would count other jobs
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// CPU time per call of forward() alone and of StateSpace::derivative() (forward plus the
// packing of x into q, u and of q̇, u̇ into ẋ), interleaved so both see the same machine
void evaluation_seconds(const appell::Model& m, appell::Formulation f, double& t_forward,
                        double& t_derivative) {
  appell::Data d(m);
  const auto ss = appell::make_state_space(m, appell::SolverOptions{f, {}});
  Eigen::VectorXd x, xdot;
  ss->from_maximal(d, x);
  double in_forward = 0, in_derivative = 0;
  int reps = 0;
  do {
    double c0 = cpu_seconds();
    appell::forward(m, d, f);
    in_forward += cpu_seconds() - c0;
    c0 = cpu_seconds();
    ss->derivative(x, 0.0, d, xdot);
    in_derivative += cpu_seconds() - c0;
    ++reps;
  } while (in_forward + in_derivative < 0.4 && reps < 100000);
  t_forward = in_forward / reps;
  t_derivative = in_derivative / reps;
}

void BM_SimulateStandardChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const appell::Model m = appell::standard_chain(n);
  appell::SimulationOptions o;
  o.formulation = state.range(1) ? appell::Formulation::Sparse : appell::Formulation::Auto;
  o.integrator.method = "rk4";
  o.integrator.dt = 1e-3;
  o.integrator.duration = duration_for(n, o.formulation);
  o.every = 1;
  // an observer that reads what a trajectory writer reads
  double sink = 0;
  const appell::Observer observe = [&](const appell::Sample& s) {
    sink += s.energy + s.violation_position + s.data.body[0].x.x();
  };
  long steps = 0, rhs = 0;
  double wall = 0, in_rhs = 0, cpu = 0;
  for (auto _ : state) {
    const double c0 = cpu_seconds();
    const appell::SimulationResult r = appell::simulate(m, o, observe);
    cpu += cpu_seconds() - c0;
    if (!r.ok()) state.SkipWithError(r.message.c_str());
    steps += r.steps;
    rhs += r.rhs_evaluations;
    wall += r.wall_seconds;
    in_rhs += r.rhs_seconds;
  }
  benchmark::DoNotOptimize(sink);
  double t_forward = 0, t_derivative = 0;
  evaluation_seconds(m, o.formulation, t_forward, t_derivative);
  const double packing = 1.0 - t_forward / t_derivative;  // share of derivative() outside forward()
  state.counters["steps_per_s"] = steps / wall;
  state.counters["steps_per_cpu_s"] = steps / cpu;
  state.counters["rhs_per_step"] = static_cast<double>(rhs) / steps;
  state.counters["outside_rhs"] = 1.0 - in_rhs / wall;
  state.counters["packing_in_rhs"] = packing;
  state.counters["outside_forward"] = 1.0 - (in_rhs / wall) * (1.0 - packing);
  state.counters["forward_us"] = t_forward * 1e6;
  state.SetLabel(appell::formulation_name(appell::resolve_formulation(m, o.formulation)));
}
// {n, 0: the model's formulation (auto) | 1: sparse}
BENCHMARK(BM_SimulateStandardChain)
    ->Args({10, 0})
    ->Args({100, 0})
    ->Args({10, 1})
    ->Args({100, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
