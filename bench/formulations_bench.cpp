// One evaluation of the equations of motion, per formulation (bench/chain_scenes.hpp, STYLE §9).
//   BM_Forward/<formulation>/n     forward(m, d, f): kinematics, forces, rows, solve,
//                                  multipliers and reactions, on the standard chain
//   BM_RecursiveAccelerations/n    recursive_accelerations(): the three passes only
//   BM_TreeRate/n                  TreeStateSpace::rate(): ẋ as a simulation step needs it
//   BM_BranchedTree/<f>            a base with 4 limbs of 6 links
//   BM_ClosedChain/<f>             the chain of 100 with a spherical loop closure
//   BM_RedundantChain/<f>/n        the standard chain with one redundant row per joint
//                                  (compare with BM_Forward/<f>/n: the cost of redundancy)
//   BM_ExtraRows/<f>/n/m           the standard chain of n with m rows beyond the tree: where
//                                  `auto` switches from recursive to sparse (forward.cpp)
//   BM_ParticleNet/sparse/k        a k × k net of particles on distance rods (many loops),
//                                  up to 100 × 100, where the dense formulations cannot go
// Run with --benchmark_format=json for the JSON record.
#include <benchmark/benchmark.h>

#include "chain_scenes.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/recursive.hpp"

namespace appell {
namespace {

void run_forward(benchmark::State& st, const Model& m, Formulation f) {
  Data d(m);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  const TreeStateSpace ss(m);
  const auto q = x.head(ss.tree().nq), u = x.tail(ss.tree().nu);
  // the recursion on its joint coordinates, the others on the maximal state
  auto eval = [&] {
    return f == Formulation::Recursive ? forward_tree(m, d, q, u) : forward(m, d, f);
  };
  if (eval() != SolveStatus::Ok) {
    st.SkipWithError(d.diagnostics.message.c_str());
    return;
  }
  for (auto _ : st) {
    eval();
    benchmark::DoNotOptimize(d.udot.data());
    benchmark::ClobberMemory();
  }
  st.counters["bodies"] = m.nbody();
  st.counters["ns_per_body"] =
      benchmark::Counter(static_cast<double>(st.iterations()) * m.nbody(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Forward(benchmark::State& st, Formulation f) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  run_forward(st, m, f);
}

void BM_RecursiveAccelerations(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  Data d(m);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  const TreeStateSpace ss(m);
  const auto q = x.head(ss.tree().nq), u = x.tail(ss.tree().nu);
  recursive_accelerations(m, d, q, u);
  for (auto _ : st) {
    recursive_accelerations(m, d, q, u);
    benchmark::DoNotOptimize(d.udot.data());
    benchmark::ClobberMemory();
  }
  st.counters["bodies"] = m.nbody();
  st.counters["ns_per_body"] =
      benchmark::Counter(static_cast<double>(st.iterations()) * m.nbody(),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// what a simulation step evaluates between output instants: StateSpace::rate (ẋ only)
void BM_TreeRate(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  Data d(m);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  TreeStateSpace ss(m);
  Eigen::VectorXd xdot;
  ss.rate(x, 0.0, d, xdot);
  for (auto _ : st) {
    ss.rate(x, 0.0, d, xdot);
    benchmark::DoNotOptimize(xdot.data());
    benchmark::ClobberMemory();
  }
  st.counters["bodies"] = m.nbody();
}

void BM_BranchedTree(benchmark::State& st, Formulation f) {
  run_forward(st, bench::branched_tree(4, 6), f);
}
void BM_ClosedChain(benchmark::State& st, Formulation f) {
  run_forward(st, bench::closed_chain(100), f);
}

void BM_RedundantChain(benchmark::State& st, Formulation f) {
  run_forward(st, bench::redundant_chain(static_cast<int>(st.range(0))), f);
}

void BM_ExtraRows(benchmark::State& st, Formulation f) {
  run_forward(
      st,
      bench::chain_with_extra_rows(static_cast<int>(st.range(0)), static_cast<int>(st.range(1))),
      f);
}

// the net's own state (standard_state is for joint chains)
void BM_ParticleNet(benchmark::State& st, Formulation f) {
  const Model m = bench::particle_net(static_cast<int>(st.range(0)));
  Data d(m);
  if (forward(m, d, f) != SolveStatus::Ok) {
    st.SkipWithError(d.diagnostics.message.c_str());
    return;
  }
  for (auto _ : st) {
    forward(m, d, f);
    benchmark::DoNotOptimize(d.udot.data());
    benchmark::ClobberMemory();
  }
  st.counters["bodies"] = m.nbody();
  st.counters["rows"] = m.nrows();
}

// m ≤ 3n; the recursion only up to m = 100 (at m = 300 one evaluation takes about a second)
void extra_rows(benchmark::internal::Benchmark* b, int max_m) {
  for (int n : {10, 100, 1000})
    for (int m : {3, 5, 8, 12, 30, 100, 300})
      if (m <= 3 * n && m <= max_m) b->Args({n, m});
  b->Unit(benchmark::kMicrosecond);
}

void chain_sizes(benchmark::internal::Benchmark* b, int max_n) {
  // the reference sizes, and 30 (the size issue 2 reports)
  for (int n : {1, 2, 5, 10, 20, 30, 50, 100, 200, 500, 1000})
    if (n <= max_n) b->Arg(n);
  b->Unit(benchmark::kNanosecond);
}

// the dense formulations are O(n³): only while one evaluation stays under ~1 s
BENCHMARK_CAPTURE(BM_Forward, recursive, Formulation::Recursive)->Apply([](auto* b) {
  chain_sizes(b, 1000);
});
BENCHMARK(BM_RecursiveAccelerations)->Apply([](auto* b) { chain_sizes(b, 1000); });
BENCHMARK(BM_TreeRate)->Apply([](auto* b) { chain_sizes(b, 1000); });
BENCHMARK_CAPTURE(BM_Forward, gibbs_appell, Formulation::GibbsAppell)->Apply([](auto* b) {
  chain_sizes(b, 200);
});
BENCHMARK_CAPTURE(BM_Forward, pinv, Formulation::Pinv)->Apply([](auto* b) { chain_sizes(b, 200); });
BENCHMARK_CAPTURE(BM_Forward, sparse, Formulation::Sparse)->Apply([](auto* b) {
  chain_sizes(b, 1000);
});
// sparse drops the redundant rows in its LDLᵀ (O(n)); recursive solves n extra rows
// (O(n m + m³)) and the dense ones are O(n³): smaller sizes
BENCHMARK_CAPTURE(BM_RedundantChain, sparse, Formulation::Sparse)->Apply([](auto* b) {
  chain_sizes(b, 1000);
});
BENCHMARK_CAPTURE(BM_RedundantChain, recursive, Formulation::Recursive)->Apply([](auto* b) {
  chain_sizes(b, 100);
});
BENCHMARK_CAPTURE(BM_RedundantChain, pinv, Formulation::Pinv)->Apply([](auto* b) {
  chain_sizes(b, 100);
});
BENCHMARK_CAPTURE(BM_BranchedTree, recursive, Formulation::Recursive)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_BranchedTree, gibbs_appell, Formulation::GibbsAppell)
    ->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_BranchedTree, pinv, Formulation::Pinv)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_ClosedChain, recursive, Formulation::Recursive)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_ClosedChain, gibbs_appell, Formulation::GibbsAppell)
    ->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_ClosedChain, pinv, Formulation::Pinv)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_ClosedChain, sparse, Formulation::Sparse)->Unit(benchmark::kNanosecond);
BENCHMARK_CAPTURE(BM_ExtraRows, recursive, Formulation::Recursive)->Apply([](auto* b) {
  extra_rows(b, 100);
});
BENCHMARK_CAPTURE(BM_ExtraRows, sparse, Formulation::Sparse)->Apply([](auto* b) {
  extra_rows(b, 300);
});
BENCHMARK_CAPTURE(BM_ParticleNet, sparse, Formulation::Sparse)->Apply([](auto* b) {
  for (int k : {10, 30, 100}) b->Arg(k);  // 100, 900 and 10,000 particles
  b->Unit(benchmark::kMicrosecond);
});

}  // namespace
}  // namespace appell
