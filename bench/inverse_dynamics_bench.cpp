// Inverse dynamics on the standard chain (bench/chain_scenes.hpp, STYLE §9): O(n) recursive
// Newton–Euler beside the forward recursion it inverts.
//   BM_InverseDynamics/n       inverse_dynamics(): set_state, applied forces, passes 1–2
//   BM_ForwardRecursive/n      recursive_accelerations(): the forward passes, for scale
// Run with --benchmark_format=json for the JSON record.
#include <benchmark/benchmark.h>

#include "appell/inverse_dynamics.hpp"
#include "chain_scenes.hpp"
#include "engine/formulations/recursive.hpp"

namespace appell {
namespace {

// the standard state as a joint-space State, and u̇ = the forward recursion's
State chain_state(const Model& m, Data& d, Eigen::VectorXd& udot) {
  const Eigen::VectorXd x = bench::standard_state(m, d);
  State s;
  s.q = x.head(m.tree().nq);
  s.u = x.tail(m.tree().nu);
  recursive_accelerations(m, d, s.q, s.u);
  udot = joint_accelerations(m, d);
  return s;
}

void BM_InverseDynamics(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  Data d(m);
  Eigen::VectorXd udot, tau;
  const State s = chain_state(m, d, udot);
  for (auto _ : st) {
    inverse_dynamics(m, d, s, udot, tau);
    benchmark::DoNotOptimize(tau.data());
    benchmark::ClobberMemory();
  }
  st.counters["bodies"] = m.nbody();
}

void BM_ForwardRecursive(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  Data d(m);
  Eigen::VectorXd udot;
  const State s = chain_state(m, d, udot);
  for (auto _ : st) {
    recursive_accelerations(m, d, s.q, s.u);
    benchmark::DoNotOptimize(d.udot.data());
    benchmark::ClobberMemory();
  }
  st.counters["bodies"] = m.nbody();
}

}  // namespace
}  // namespace appell

BENCHMARK(appell::BM_InverseDynamics)->RangeMultiplier(4)->Range(4, 1024);
BENCHMARK(appell::BM_ForwardRecursive)->RangeMultiplier(4)->Range(4, 1024);
