// Expression constraints: 100 particles, each under its own expression constraint, at
// the position level (value, gradient and second-order Taylor sweep, X2) and at the
// velocity level (value and gradient, X1).  Reported per row; the allocation counter
// must read 0 (evaluation never allocates).
#include <benchmark/benchmark.h>

#include <appell/appell.hpp>
#include <atomic>
#include <cstdlib>
#include <new>
#include <sstream>

#include "engine/assembly/stages.hpp"

static std::atomic<long> g_allocations{0};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

namespace {

constexpr int kParticles = 100;

// particle i sits on the ellipse r = eps x + p of Kepler's first law [UK96 eq. 30], or
// obeys the areal-velocity law [UK96 eq. 31] with a time-dependent wobble
std::string scene(bool position) {
  std::ostringstream s;
  s << "{\"bodies\": [";
  for (int i = 0; i < kParticles; ++i)
    s << (i ? "," : "") << "{\"name\": \"p" << i
      << "\", \"type\": \"particle\", \"mass\": 1, \"position\": [3, 4, 0], "
         "\"velocity\": [-2, 0.25, 0.1]}";
  s << "], \"constraints\": [";
  for (int i = 0; i < kParticles; ++i) {
    const std::string p = "p" + std::to_string(i);
    const std::string x = "x(" + p + ")", y = "y(" + p + ")", z = "z(" + p + ")";
    const std::string vx = "vx(" + p + ")", vy = "vy(" + p + ")", vz = "vz(" + p + ")";
    s << (i ? "," : "") << "{\"type\": \"expression\", ";
    if (position)
      s << "\"level\": \"position\", \"parameters\": {\"eps\": 0.5, \"q\": 3.5}, \"equation\": "
           "\"sqrt("
        << x << "^2 + " << y << "^2) - eps*" << x << " - q + 0*sin(t)*" << z << "\"}";
    else
      s << "\"level\": \"velocity\", \"parameters\": {\"c\": 8.75, \"a\": 0.1}, \"equation\": \""
        << x << "*" << vy << " - " << y << "*" << vx << " - c - a*sin(2*t)*" << vz << "^2\"}";
  }
  s << "]}";
  return s.str();
}

void BM_ExpressionRows(benchmark::State& state) {
  const bool position = state.range(0) == 0;
  const appell::Model m = appell::load_model_from_string(scene(position), "bench");
  appell::Data d(m);
  appell::kinematics(m, d);
  appell::constraint_rows(m, d);  // warm the workspace
  const long before = g_allocations.load();
  for (auto _ : state) {
    d.t += 1e-6;
    appell::constraint_rows(m, d);
    benchmark::DoNotOptimize(d.b.data());
  }
  state.counters["allocs_per_eval"] = benchmark::Counter(
      static_cast<double>(g_allocations.load() - before) / static_cast<double>(state.iterations()));
  // seconds per row
  state.counters["per_row"] = benchmark::Counter(
      kParticles, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.SetLabel(position ? "position level" : "velocity level");
}
BENCHMARK(BM_ExpressionRows)->Arg(0)->Arg(1);

// baseline: the same number of hand-written rows (distance, K5) on the same particles
void BM_DistanceRows(benchmark::State& state) {
  std::ostringstream s;
  s << "{\"bodies\": [";
  for (int i = 0; i < kParticles; ++i)
    s << (i ? "," : "") << "{\"name\": \"p" << i
      << "\", \"type\": \"particle\", \"mass\": 1, \"position\": [3, 4, 0], "
         "\"velocity\": [-2, 0.25, 0.1]}";
  s << "], \"constraints\": [";
  for (int i = 0; i < kParticles; ++i)
    s << (i ? "," : "") << "{\"type\": \"distance\", \"bodies\": [\"world\", \"p" << i
      << "\"], \"points\": [[0, 0, 0], [3, 4, 0]]}";
  s << "]}";
  const appell::Model m = appell::load_model_from_string(s.str(), "bench");
  appell::Data d(m);
  appell::kinematics(m, d);
  for (auto _ : state) {
    appell::constraint_rows(m, d);
    benchmark::DoNotOptimize(d.b.data());
  }
  state.counters["per_row"] = benchmark::Counter(
      kParticles, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DistanceRows);

// for scale: one whole evaluation of the equations of motion of that scene (pinv, dense)
void BM_ForwardPinvExpressionScene(benchmark::State& state) {
  const appell::Model m = appell::load_model_from_string(scene(true), "bench");
  appell::Data d(m);
  for (auto _ : state) {
    appell::forward(m, d, appell::Formulation::Pinv);
    benchmark::DoNotOptimize(d.udot.data());
  }
}
BENCHMARK(BM_ForwardPinvExpressionScene);

}  // namespace
