// A robot with actuators on every joint: the standard chain (bench/chain_scenes.hpp) with a PD
// servo (constant target) and viscous damping on each revolute joint.
//   BM_ActuatedForward/n            forward_tree(): the recursion with the joint forces added
//                                   into τ from the joint coordinates (generalized_forces.cpp)
//   BM_ActuatedForward_baseline/n   the same forces hidden behind a plain Force, so that they
//                                   take the body-wrench path (joint q, u read back from the
//                                   body states, a wrench on two bodies, projected by Sᵀ):
//                                   what every joint force did before the τ stage
//   BM_ActuatedStep/n, _baseline/n  one rk4 step (dt 1 ms) of appell::Simulation, no output
// n ∈ {10, 30, 100}.  Both variants give the same accelerations (checked before timing).
#include <benchmark/benchmark.h>

#include <appell/appell.hpp>

#include "chain_scenes.hpp"
#include "engine/formulations/recursive.hpp"

namespace appell {
namespace {

// a force that hides the joint-space capability of the one it wraps (the old path)
class BodySpaceOnly final : public Force {
 public:
  explicit BodySpaceOnly(ForcePtr f) : f_(std::move(f)) {}
  std::string type() const override { return f_->type(); }
  void apply(const StateView& s, SpatialForce* out) const override { f_->apply(s, out); }
  double potential(const StateView& s) const override { return f_->potential(s); }

 private:
  ForcePtr f_;
};

Model actuated_chain(int n, bool baseline) {
  ModelBuilder b = bench::standard_chain_builder(n);
  const std::vector<ConstraintPtr> joints = b.constraints();
  for (const ConstraintPtr& c : joints) {
    const auto j = std::dynamic_pointer_cast<const Joint>(c);
    std::vector<ForcePtr> f = {
        std::make_shared<JointServo>(
            j, 20.0, 2.0, std::vector<Expression>{Expression::parse("0.3", {}, nullptr)}),
        std::make_shared<JointDamping>(j, 0.1)};
    for (ForcePtr& x : f) b.add_force(baseline ? std::make_shared<BodySpaceOnly>(x) : x);
  }
  return compile(b);
}

void forward_bench(benchmark::State& st, bool baseline) {
  const int n = static_cast<int>(st.range(0));
  const Model m = actuated_chain(n, baseline), other = actuated_chain(n, !baseline);
  Data d(m), e(other);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  const auto q = x.head(n), u = x.tail(n);  // one coordinate per revolute joint
  forward_tree(m, d, q, u);
  forward_tree(other, e, q, u);
  const double diff = (joint_accelerations(m, d) - joint_accelerations(other, e)).norm() /
                      joint_accelerations(other, e).norm();
  if (!(diff < 1e-10)) {
    st.SkipWithError(("the two paths differ: " + std::to_string(diff)).c_str());
    return;
  }
  for (auto _ : st) {
    forward_tree(m, d, q, u);
    benchmark::DoNotOptimize(d.udot.data());
    benchmark::ClobberMemory();
  }
  st.counters["max_rel_diff"] = diff;
}

void step_bench(benchmark::State& st, bool baseline) {
  const int n = static_cast<int>(st.range(0));
  const Model m = actuated_chain(n, baseline);
  SimulationOptions o;
  o.integrator.method = "rk4";
  o.integrator.dt = 1e-3;
  o.integrator.duration = 1e6;  // never reached
  o.every = 1000000;
  Simulation sim(m, o);
  if (!sim.start()) {
    st.SkipWithError(sim.result().message.c_str());
    return;
  }
  for (auto _ : st)
    if (!sim.step()) {
      st.SkipWithError(sim.result().message.c_str());
      break;
    }
}

void BM_ActuatedForward(benchmark::State& st) {
  forward_bench(st, false);
}
void BM_ActuatedForward_baseline(benchmark::State& st) {
  forward_bench(st, true);
}
void BM_ActuatedStep(benchmark::State& st) {
  step_bench(st, false);
}
void BM_ActuatedStep_baseline(benchmark::State& st) {
  step_bench(st, true);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int n : {10, 30, 100}) b->Arg(n);
}
BENCHMARK(BM_ActuatedForward)->Apply(sizes);
BENCHMARK(BM_ActuatedForward_baseline)->Apply(sizes);
BENCHMARK(BM_ActuatedStep)->Apply(sizes);
BENCHMARK(BM_ActuatedStep_baseline)->Apply(sizes);

}  // namespace
}  // namespace appell
