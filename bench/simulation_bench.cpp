// A whole simulation of the standard chain (SPEC §5): rk4, dt = 1 ms, the model's own
// formulation (auto).  Reports simulated steps per second and the share of a step spent
// outside the acceleration evaluation (state packing, quaternion updates, the odeint
// vector operations, output).
//
// Durations are shortened from the SPEC's 10 s so that one run takes seconds, not hours,
// with the dense O(n³) formulations: n = 10 runs 1 s (1000 steps), n = 100 runs 5 ms
// (5 steps).  Steps per second do not depend on the duration (a fixed-step method).
//
// Counters:
//   steps_per_s      accepted steps per wall second
//   steps_per_cpu_s  accepted steps per CPU second of this thread
//   rhs_per_step     right-hand-side evaluations per step (4 for rk4)
//   outside_rhs      1 − (time inside StateSpace::derivative) / (wall time)
//   outside_forward  1 − (rhs evaluations × CPU time of one forward() alone) / (CPU time
//                    of the simulation): also counts the packing of x into (q, u) and q̇
//                    inside derivative(); CPU time, because the machine may be shared
#include <benchmark/benchmark.h>

#include <appell/appell.hpp>
#include <ctime>

namespace {

double duration_for(int n) {
  return n <= 10 ? 1.0 : 0.005;
}

// this thread's CPU time: the machine may be shared, wall time would count other jobs
double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// the CPU time of one forward() on the initial state, averaged
double forward_seconds(const appell::Model& m) {
  appell::Data d(m);
  appell::forward(m, d);
  int reps = 0;
  const double t0 = cpu_seconds();
  double elapsed = 0;
  do {
    appell::forward(m, d);
    ++reps;
    elapsed = cpu_seconds() - t0;
  } while (elapsed < 0.2 && reps < 100000);
  return elapsed / reps;
}

void BM_SimulateStandardChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const appell::Model m = appell::standard_chain(n);
  appell::SimulationOptions o = appell::SimulationOptions::from_model(m);
  o.integrator.method = "rk4";
  o.integrator.dt = 1e-3;
  o.integrator.duration = duration_for(n);
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
  const double t_forward = forward_seconds(m);
  state.counters["steps_per_s"] = steps / wall;
  state.counters["steps_per_cpu_s"] = steps / cpu;
  state.counters["rhs_per_step"] = static_cast<double>(rhs) / steps;
  state.counters["outside_rhs"] = 1.0 - in_rhs / wall;
  state.counters["outside_forward"] = 1.0 - rhs * t_forward / cpu;
  state.counters["forward_us"] = t_forward * 1e6;
  state.SetLabel(appell::formulation_name(appell::resolve_formulation(m, o.formulation)));
}
BENCHMARK(BM_SimulateStandardChain)
    ->Arg(10)
    ->Arg(100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
