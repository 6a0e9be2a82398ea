// The standard chain (bench/chain_scenes.hpp) in other engines, side by side with ours (built only
// when Bullet (bullet-float64) or MuJoCo are found; `make bench` installs them).
//   BM_Appell/n    recursive_accelerations(): our three passes (accelerations only)
//   BM_AppellForward/n  forward_tree(): forward(Recursive) on the joint coordinates, with every
//                  joint's multipliers and reactions
//   BM_Bullet/n    btMultiBody::computeAccelerationsArticulatedBodyAlgorithmMultiDof
//   BM_MuJoCo/n    mj_forward on the same chain built from an XML string
//   BM_AppellStep/n   one rk4 step (dt 1 ms) through appell::Simulation with a sample every
//                  step, its traj.csv row built and formatted as `appell simulate` does
//   BM_AppellCsvRow/n  that row alone: values (SampleRows) and text (format_csv_row)
//   BM_MuJoCoStep/n  mj_step with integrator RK4, timestep 1 ms
//   BM_SimulateCommand/n  the whole `appell simulate` program per step, wall time, n ∈ {10, 100}
//                  (bench/simulate_command.cpp; BM_SimulateCommandNoOutput without traj.csv)
// n ∈ {1, 10, 100, 1000}.  After the run the ratios of these times are printed per n
// (bench/bench_ratios.hpp), and written with the times as JSON by --ratios_out=FILE.
// Before timing, each engine's joint accelerations are checked against ours: relative
// difference (max norm) under kAgree, reported as the counter max_rel_diff; a mismatch
// aborts that benchmark with an error.  The chain's mass matrix grows ill-conditioned
// with n, and at n = 1000 MuJoCo's sparse LDLᵀ of M agrees with the ABA only to ~1e-6
// (1e-15 at n = 10, 1e-10 at n = 100), hence the loose bound.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "appell/number_format.hpp"
#include "appell/standard_chain.hpp"
#include "appell/trajectory.hpp"
#include "bench_ratios.hpp"
#include "chain_scenes.hpp"
#include "engine/formulations/recursive.hpp"

#ifdef APPELL_HAVE_BULLET
#include <BulletDynamics/Featherstone/btMultiBody.h>
#endif
#ifdef APPELL_HAVE_MUJOCO
#include <mujoco/mujoco.h>

#include "engine/assembly/stages.hpp"
#endif

namespace appell {
namespace {

const Vec3 kLinkInertia = inertia_box(1.0, Vec3(0.05, 0.05, 0.2)).diagonal();
constexpr double kAgree = 1e-5;
// the standard state, joint i from 1 (bench/chain_scenes.hpp)
double q0(int i) {
  return 0.1 * std::sin(i);
}
double qd0(int i) {
  return 0.05 * std::cos(i);
}

// our joint accelerations on the standard chain of n links
Eigen::VectorXd appell_qdd(int n) {
  const Model m = bench::standard_chain(n);
  Data d(m);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  recursive_accelerations(m, d, x.head(n), x.tail(n));  // one coordinate per revolute joint
  return joint_accelerations(m, d);
}

double relative_difference(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / std::max(1e-300, b.lpNorm<Eigen::Infinity>());
}

const std::vector<int> kSizes = {1, 10, 100, 1000};
void sizes(benchmark::internal::Benchmark* b) {
  for (int n : kSizes) b->Arg(n);
}

void set_counters(benchmark::State& st, int n) {
  st.counters["bodies"] = n;
  st.counters["ns_per_body"] =
      benchmark::Counter(static_cast<double>(st.iterations()) * n,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_Appell(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Model m = bench::standard_chain(n);
  Data d(m);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  const auto q = x.head(n), u = x.tail(n);  // one coordinate per revolute joint
  recursive_accelerations(m, d, q, u);
  for (auto _ : st) {
    recursive_accelerations(m, d, q, u);
    benchmark::DoNotOptimize(d.udot.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, n);
}

void BM_AppellForward(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Model m = bench::standard_chain(n);
  Data d(m);
  const Eigen::VectorXd x = bench::standard_state(m, d);
  const auto q = x.head(n), u = x.tail(n);  // joint coordinates, as the other engines take
  forward_tree(m, d, q, u);
  for (auto _ : st) {
    forward_tree(m, d, q, u);
    benchmark::DoNotOptimize(d.udot.data());
    benchmark::ClobberMemory();
  }
  set_counters(st, n);
}

#ifdef APPELL_HAVE_BULLET
// link i: pivot at its top, centre 0.1 below; joint 0 at the fixed base's origin
std::unique_ptr<btMultiBody> bullet_chain(int n) {
  auto mb = std::make_unique<btMultiBody>(n, 0.0, btVector3(0, 0, 0), true, false);
  const btVector3 inertia(kLinkInertia.x(), kLinkInertia.y(), kLinkInertia.z());
  for (int i = 0; i < n; ++i) {
    const btVector3 axis = (i + 1) % 2 ? btVector3(1, 0, 0) : btVector3(0, 1, 0);
    mb->setupRevolute(i, 1.0, inertia, i - 1, btQuaternion::getIdentity(), axis,
                      i == 0 ? btVector3(0, 0, 0) : btVector3(0, 0, -0.1), btVector3(0, 0, -0.1),
                      true);
  }
  mb->finalizeMultiDof();
  mb->setLinearDamping(0);
  mb->setAngularDamping(0);
  mb->setMaxCoordinateVelocity(1e30);
  mb->setUseGyroTerm(true);
  mb->setCanSleep(false);
  for (int i = 0; i < n; ++i) {
    mb->setJointPos(i, q0(i + 1));
    mb->setJointVel(i, qd0(i + 1));
  }
  btAlignedObjectArray<btQuaternion> world_to_local;
  btAlignedObjectArray<btVector3> local_origin;
  mb->forwardKinematics(world_to_local, local_origin);
  return mb;
}

struct BulletScratch {
  btAlignedObjectArray<btScalar> r;
  btAlignedObjectArray<btVector3> v;
  btAlignedObjectArray<btMatrix3x3> m;
};

// one ABA evaluation with gravity; the velocities are restored (dt = 1: Δq̇ = q̈)
Eigen::VectorXd bullet_qdd(btMultiBody& mb, BulletScratch& s) {
  const int n = mb.getNumLinks();
  Eigen::VectorXd before(n), qdd(n);
  for (int i = 0; i < n; ++i) before(i) = mb.getJointVel(i);
  mb.clearForcesAndTorques();
  for (int i = 0; i < n; ++i) mb.addLinkForce(i, btVector3(0, 0, -9.81) * mb.getLinkMass(i));
  mb.computeAccelerationsArticulatedBodyAlgorithmMultiDof(1.0, s.r, s.v, s.m, false, false, false);
  for (int i = 0; i < n; ++i) {
    qdd(i) = mb.getJointVel(i) - before(i);
    mb.setJointVel(i, before(i));
  }
  return qdd;
}

void BM_Bullet(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  auto mb = bullet_chain(n);
  BulletScratch s;
  const double diff = relative_difference(bullet_qdd(*mb, s), appell_qdd(n));
  if (!(diff < kAgree)) {
    st.SkipWithError(
        ("Bullet accelerations differ from appell's: " + std::to_string(diff)).c_str());
    return;
  }
  for (auto _ : st) {
    // the evaluation Bullet's world does per step: forces, then the ABA (dt = 0: no
    // velocity update, so every iteration sees the same state)
    mb->clearForcesAndTorques();
    for (int i = 0; i < n; ++i) mb->addLinkForce(i, btVector3(0, 0, -9.81));
    mb->computeAccelerationsArticulatedBodyAlgorithmMultiDof(0.0, s.r, s.v, s.m, false, false,
                                                             false);
    benchmark::ClobberMemory();
  }
  set_counters(st, n);
  st.counters["max_rel_diff"] = diff;
}
BENCHMARK(BM_Bullet)->Apply(sizes);
#endif

#ifdef APPELL_HAVE_MUJOCO
// The chain as MJCF files of at most kChunk nested bodies each, every file including the
// next at its innermost body: MuJoCo's XML parser (tinyxml2) refuses nesting deeper than
// 100 elements per file, and includes are spliced in after parsing.
constexpr int kChunk = 40;
std::vector<std::string> mujoco_xml(int n, bool rk4) {
  std::vector<std::string> files;
  for (int first = 1; first <= n; first += kChunk) {
    const int last = std::min(n, first + kChunk - 1);
    std::ostringstream x;
    x.precision(17);
    x << "<mujoco>";
    if (first == 1)
      x << "<option gravity='0 0 -9.81' timestep='0.001'" << (rk4 ? " integrator='RK4'" : "")
        << "><flag contact='disable'/></option>"
        << "<worldbody>";
    for (int i = first; i <= last; ++i)
      x << "<body name='l" << i << "' pos='0 0 " << (i == 1 ? 0.0 : -0.2) << "'>"
        << "<joint type='hinge' pos='0 0 0' axis='" << (i % 2 ? "1 0 0" : "0 1 0") << "'/>"
        << "<inertial pos='0 0 -0.1' mass='1' diaginertia='" << kLinkInertia.x() << " "
        << kLinkInertia.y() << " " << kLinkInertia.z() << "'/>";
    if (last < n) x << "<include file='chain" << files.size() + 1 << ".xml'/>";
    for (int i = first; i <= last; ++i) x << "</body>";
    if (first == 1) x << "</worldbody>";
    x << "</mujoco>";
    files.push_back(x.str());
  }
  return files;
}

struct MuJoCo {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  std::string load_error;
  explicit MuJoCo(int n, bool rk4 = false) {
    const std::vector<std::string> files = mujoco_xml(n, rk4);
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    for (size_t k = 0; k < files.size(); ++k) {
      const std::string name = "chain" + std::to_string(k) + ".xml";
      mj_makeEmptyFileVFS(vfs.get(), name.c_str(), static_cast<int>(files[k].size()));
      std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name.c_str())], files[k].data(),
                  files[k].size());
    }
    char error[1000] = "";
    m = mj_loadXML("chain0.xml", vfs.get(), error, sizeof error);
    mj_deleteVFS(vfs.get());
    if (!m) {
      load_error = error;
      return;
    }
    d = mj_makeData(m);
    for (int i = 0; i < n; ++i) {
      d->qpos[i] = q0(i + 1);
      d->qvel[i] = qd0(i + 1);
    }
  }
  ~MuJoCo() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

// loads the chain and checks its accelerations against ours; false (st skipped) otherwise
bool mujoco_ready(benchmark::State& st, MuJoCo& mj, int n, double& diff) {
  if (!mj.m) {
    st.SkipWithError(("MuJoCo could not load the chain: " + mj.load_error).c_str());
    return false;
  }
  mj_forward(mj.m, mj.d);
  diff = relative_difference(Eigen::Map<Eigen::VectorXd>(mj.d->qacc, n), appell_qdd(n));
  if (!(diff < kAgree)) {
    st.SkipWithError(
        ("MuJoCo accelerations differ from appell's: " + std::to_string(diff)).c_str());
    return false;
  }
  return true;
}

void BM_MuJoCo(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  MuJoCo mj(n);
  double diff = 0;
  if (!mujoco_ready(st, mj, n, diff)) return;
  for (auto _ : st) {
    mj_forward(mj.m, mj.d);
    benchmark::DoNotOptimize(mj.d->qacc);
    benchmark::ClobberMemory();
  }
  set_counters(st, n);
  st.counters["max_rel_diff"] = diff;
}
BENCHMARK(BM_MuJoCo)->Apply(sizes);

// one step of MuJoCo's RK4 (four evaluations of the model), the state moving on
void BM_MuJoCoStep(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  MuJoCo mj(n, true);
  double diff = 0;
  if (!mujoco_ready(st, mj, n, diff)) return;
  if (mj.m->opt.integrator != mjINT_RK4) {
    st.SkipWithError("MuJoCo's integrator is not RK4");
    return;
  }
  for (auto _ : st) {
    mj_step(mj.m, mj.d);
    benchmark::DoNotOptimize(mj.d->qpos);
    benchmark::ClobberMemory();
  }
  set_counters(st, n);
  st.counters["max_rel_diff"] = diff;
}
BENCHMARK(BM_MuJoCoStep)->Apply(sizes);
#endif

BENCHMARK(BM_Appell)->Apply(sizes);
BENCHMARK(BM_AppellForward)->Apply(sizes);

// the simulation of `appell simulate --integrator rk4 --dt 0.001` on the chain, a sample
// every step whose traj.csv row is built and formatted (not written)
SimulationOptions step_options() {
  SimulationOptions o;
  o.integrator.method = "rk4";
  o.integrator.dt = 1e-3;
  o.integrator.duration = 1e6;  // never reached
  o.every = 1;
  return o;
}

struct CsvWriter {
  SampleRows rows;
  std::vector<double> row;
  CsvRowBuffer text;
  size_t bytes = 0;
  explicit CsvWriter(const Model& m) : rows(m) {}
  void operator()(const Sample& s) {
    rows.traj(s, row);
    text.format(row);
    bytes += text.size();
  }
};

void BM_AppellStep(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Model m = standard_chain(n);
  Simulation sim(m, step_options());
  CsvWriter csv(m);
  const Observer observe = [&csv](const Sample& s) { csv(s); };
  if (!sim.start(observe)) {
    st.SkipWithError(sim.result().message.c_str());
    return;
  }
  for (auto _ : st)
    if (!sim.step(observe)) {
      st.SkipWithError(sim.result().message.c_str());
      break;
    }
  set_counters(st, n);
  st.counters["rhs_per_step"] =
      static_cast<double>(sim.result().rhs_evaluations) / sim.result().steps;
  st.counters["csv_bytes_per_row"] = static_cast<double>(csv.bytes) / (sim.result().steps + 1);
}
BENCHMARK(BM_AppellStep)->Apply(sizes);

// the row of BM_AppellStep alone, on the first sample of that run
void BM_AppellCsvRow(benchmark::State& st) {
  const int n = static_cast<int>(st.range(0));
  const Model m = standard_chain(n);
  Simulation sim(m, step_options());
  CsvWriter csv(m);
  double T = 0, V = 0;
  if (!sim.start([&](const Sample& s) { T = s.kinetic_energy, V = s.potential_energy; })) {
    st.SkipWithError(sim.result().message.c_str());
    return;
  }
  const Sample s{0.0, sim.data(), T, V, T + V, 1e-17, 3e-16, 0};
  for (auto _ : st) {
    csv(s);
    benchmark::DoNotOptimize(csv.text.data());
  }
  set_counters(st, n);
}
BENCHMARK(BM_AppellCsvRow)->Apply(sizes);

}  // namespace
}  // namespace appell

int main(int argc, char** argv) {
  using appell::bench::Ratio;
  const std::vector<Ratio> ratios = {
      {"accel/bullet_aba", "BM_Appell", "BM_Bullet", 1.0},
      {"accel/mujoco_forward", "BM_Appell", "BM_MuJoCo", 1.0},
      {"forward/accel", "BM_AppellForward", "BM_Appell", 1.0},
      {"step/(4*accel)", "BM_AppellStep", "BM_Appell", 4.0},
      {"step/mujoco_rk4_step", "BM_AppellStep", "BM_MuJoCoStep", 1.0},
      {"csv_row/step", "BM_AppellCsvRow", "BM_AppellStep", 1.0},
      {"command/mujoco_rk4_step", "BM_SimulateCommand", "BM_MuJoCoStep", 1.0},
      {"command/(4*accel)", "BM_SimulateCommand", "BM_Appell", 4.0},
      {"no_output/(4*accel)", "BM_SimulateCommandNoOutput", "BM_Appell", 4.0},
      {"command/no_output", "BM_SimulateCommand", "BM_SimulateCommandNoOutput", 1.0}};
  return appell::bench::run_with_ratios(argc, argv, ratios, appell::kSizes);
}
