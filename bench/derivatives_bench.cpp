// The exact derivatives of the dynamics (appell/derivatives.hpp) on the standard chain
// (bench/chain_scenes.hpp, STYLE §9), against what they replace:
//   BM_ForwardOnce/n          one forward evaluation u̇ = FD(q, u) (JointForward, the O(n)
//                             recursion; the model's own forces)
//   BM_ForwardDerivatives/n   forward_dynamics_derivatives(): u̇, ∂u̇/∂q, ∂u̇/∂u, M⁻¹
//   BM_InverseDerivatives/n   inverse_dynamics_derivatives(): τ, ∂τ/∂q, ∂τ/∂u, M
//   BM_FiniteDifferences/n    2n + 1 forward evaluations (one-sided differences in q and u)
//   BM_ClosedForwardOnce/n    one forward evaluation of the closed chain (bench::closed_chain:
//                             the chain's tip held by a ball joint to the world, 3 extra rows)
//   BM_ClosedDerivatives/n    forward_dynamics_derivatives() on it: the constrained u̇, λ and
//                             their derivatives (automatic path: dual passes with the rows)
// The chain's revolute joints take the analytical path (docs/derivatives.md): the inverse
// derivatives cost O(n · depth), O(n²) on a chain; the forward ones add M⁻¹ applied to
// 3n columns by the articulated-body factor, O(n) each, so their ratio to one O(n)
// forward evaluation grows like n (the output alone is 3n² numbers).
// After the run the ratios to BM_ForwardOnce are printed per n.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "appell/derivatives.hpp"
#include "appell/jacobians.hpp"
#include "bench_ratios.hpp"
#include "chain_scenes.hpp"

namespace appell {
namespace {

State chain_state(const Model& m) {
  Data d(m);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  State s;
  s.q = x.head(m.tree().nq);
  s.u = x.tail(m.tree().nu);
  return s;
}

void BM_ForwardOnce(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  const State s = chain_state(m);
  JointForward forward(m);
  const Eigen::VectorXd none;
  Eigen::VectorXd udot;
  for (auto _ : st) {
    forward(s, none, udot);
    benchmark::DoNotOptimize(udot.data());
    benchmark::ClobberMemory();
  }
}

void BM_ForwardDerivatives(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  const State s = chain_state(m);
  Data d(m);
  const Eigen::VectorXd tau = Eigen::VectorXd::Constant(m.tree().nu, 0.1);
  ForwardDerivatives out;
  for (auto _ : st) {
    forward_dynamics_derivatives(m, d, s, tau, out);
    benchmark::DoNotOptimize(out.dudot_dq.data());
    benchmark::ClobberMemory();
  }
}

void BM_InverseDerivatives(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  const State s = chain_state(m);
  Data d(m);
  const Eigen::VectorXd udot = Eigen::VectorXd::Constant(m.tree().nu, 0.1);
  InverseDerivatives out;
  for (auto _ : st) {
    inverse_dynamics_derivatives(m, d, s, udot, out);
    benchmark::DoNotOptimize(out.dtau_dq.data());
    benchmark::ClobberMemory();
  }
}

void BM_FiniteDifferences(benchmark::State& st) {
  const Model m = bench::standard_chain(static_cast<int>(st.range(0)));
  const State s = chain_state(m);
  JointForward forward(m);
  const int nu = m.tree().nu;
  const Eigen::VectorXd tau;  // the model's own forces: the O(n) recursion
  Eigen::VectorXd u0, u1;
  Eigen::MatrixXd J(nu, 2 * nu);
  for (auto _ : st) {
    forward(s, tau, u0);
    State p = s;
    for (int j = 0; j < nu; ++j) {
      p.q(j) += 1e-7;  // revolute joints: q̇ = u
      forward(p, tau, u1);
      J.col(j) = (u1 - u0) / 1e-7;
      p.q(j) = s.q(j);
      p.u(j) += 1e-7;
      forward(p, tau, u1);
      J.col(nu + j) = (u1 - u0) / 1e-7;
      p.u(j) = s.u(j);
    }
    benchmark::DoNotOptimize(J.data());
    benchmark::ClobberMemory();
  }
}

// the closed chain at its initial state (on its loop)
void BM_ClosedForwardOnce(benchmark::State& st) {
  const Model m = bench::closed_chain(static_cast<int>(st.range(0)));
  const State s = m.initial_state();
  JointForward forward(m);
  const Eigen::VectorXd none;
  Eigen::VectorXd udot;
  for (auto _ : st) {
    forward(s, none, udot);
    benchmark::DoNotOptimize(udot.data());
    benchmark::ClobberMemory();
  }
}

void BM_ClosedDerivatives(benchmark::State& st) {
  const Model m = bench::closed_chain(static_cast<int>(st.range(0)));
  const State s = m.initial_state();
  Data d(m);
  ForwardDerivatives out;
  for (auto _ : st) {
    forward_dynamics_derivatives(m, d, s, Eigen::VectorXd(), out);
    benchmark::DoNotOptimize(out.dudot_dq.data());
    benchmark::ClobberMemory();
  }
}

}  // namespace
}  // namespace appell

BENCHMARK(appell::BM_ClosedForwardOnce)->Arg(10)->Arg(100);
BENCHMARK(appell::BM_ClosedDerivatives)->Arg(10)->Arg(100);
BENCHMARK(appell::BM_ForwardOnce)->Arg(10)->Arg(100);
BENCHMARK(appell::BM_ForwardDerivatives)->Arg(10)->Arg(100);
BENCHMARK(appell::BM_InverseDerivatives)->Arg(10)->Arg(100);
BENCHMARK(appell::BM_FiniteDifferences)->Arg(10)->Arg(100);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  appell::bench::CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  for (int n : {10, 100}) {
    const double once = reporter.ns("appell::BM_ForwardOnce", n);
    if (once <= 0) continue;
    std::printf(
        "n = %d: forward derivatives / one forward = %.1f, inverse derivatives / one "
        "forward = %.1f, 2n+1 finite differences / one forward = %.1f\n",
        n, reporter.ns("appell::BM_ForwardDerivatives", n) / once,
        reporter.ns("appell::BM_InverseDerivatives", n) / once,
        reporter.ns("appell::BM_FiniteDifferences", n) / once);
    const double closed = reporter.ns("appell::BM_ClosedForwardOnce", n);
    if (closed > 0)
      std::printf("n = %d, closed chain: constrained derivatives / one forward = %.1f\n", n,
                  reporter.ns("appell::BM_ClosedDerivatives", n) / closed);
  }
  benchmark::Shutdown();
  return 0;
}
