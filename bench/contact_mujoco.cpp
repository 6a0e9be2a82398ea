// The MuJoCo side of the contact benchmarks (bench/contact_bench.cpp): a scene loaded into
// MuJoCo 2.2 with buffers that hold its contacts, the damping that gives the bouncing ball
// its restitution, and the benchmark of mj_step.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "contact_scenes.hpp"

namespace appell::contact_bench {

namespace {

// MuJoCo's errors (a stack too small, ...) call mju_user_error, which by default exits
void mujoco_error(const char* msg) {
  throw std::runtime_error(std::string("MuJoCo: ") + msg);
}

struct MuJoCo {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  MuJoCo() = default;
  MuJoCo(const MuJoCo&) = delete;
  MuJoCo& operator=(const MuJoCo&) = delete;
  ~MuJoCo() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
};

// MJCF text (with @NCON@, @NJ@ for <size>) or, when xml is empty, the file kQuadrupedMjcf
void mujoco_load(MuJoCo& mj, const std::string& xml, int nconmax, int njmax) {
  char err[1000] = "";
  if (xml.empty()) {
    mj.m = mj_loadXML(kQuadrupedMjcf.c_str(), nullptr, err, sizeof err);
  } else {
    std::string text = xml;
    text.replace(text.find("@NCON@"), 6, std::to_string(nconmax));
    text.replace(text.find("@NJ@"), 4, std::to_string(njmax));
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    mj_makeEmptyFileVFS(vfs.get(), "scene.xml", static_cast<int>(text.size()));
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "scene.xml")], text.data(), text.size());
    mj.m = mj_loadXML("scene.xml", vfs.get(), err, sizeof err);
    mj_deleteVFS(vfs.get());
  }
  if (!mj.m) throw std::runtime_error(std::string("MuJoCo cannot load the scene: ") + err);
  mj.d = mj_makeData(mj.m);
  if (!mj.d) throw std::runtime_error("MuJoCo cannot allocate its data");
}

void mujoco_reset(MuJoCo& mj) {
  mj_deleteData(mj.d);
  mj_deleteModel(mj.m);
  mj.d = nullptr;
  mj.m = nullptr;
}

// whether MuJoCo dropped contacts or constraint rows since the data was made
bool mujoco_full(const mjData* d) {
  return d->warning[mjWARN_CONTACTFULL].number > 0 || d->warning[mjWARN_CNSTRFULL].number > 0;
}

// The bytes MuJoCo 2.2's data takes for its constraint rows: the rows' Jacobian and its
// transpose (values and column indices, njmax × nv each) and A R (njmax², values and indices).
// Its data is one buffer whose size is an int (mjData::nbuffer): 2 GB at most.
double mujoco_row_bytes(double njmax, double nv) {
  return 2 * njmax * nv * (sizeof(mjtNum) + sizeof(int)) +
         njmax * njmax * (sizeof(mjtNum) + sizeof(int));
}

// A scene loaded with buffers that hold its contacts: the contact list 16 per body; the rows
// 3 per contact (elliptic cone, condim 3) for twice the contacts at the start (16 more) or 4
// per body, whichever is more, plus two per limited joint.  `attempt` doubles the rows.
void mujoco_sized(MuJoCo& mj, const BenchScene& s, int attempt) {
  if (s.mujoco.empty()) {  // the shipped file, with its own <size>
    mujoco_load(mj, "", 0, 0);
    if (s.mj_start) s.mj_start(mj.d);
    return;
  }
  mujoco_load(mj, s.mujoco, 16, 16);
  const int nbody = mj.m->nbody;
  int nlimited = 0;
  for (int j = 0; j < mj.m->njnt; ++j) nlimited += mj.m->jnt_limited[j];
  const int nconmax = 16 * nbody + 16;
  mujoco_reset(mj);
  mujoco_load(mj, s.mujoco, nconmax, 16);
  if (s.mj_start) s.mj_start(mj.d);
  mj_kinematics(mj.m, mj.d);
  mj_collision(mj.m, mj.d);
  const int ncon = mj.d->ncon, nv = mj.m->nv;
  mujoco_reset(mj);
  const int njmax = (3 * std::max(2 * ncon + 16, 4 * (nbody - 1)) + 2 * nlimited) << attempt;
  try {
    mujoco_load(mj, s.mujoco, nconmax, njmax);
  } catch (const std::exception& e) {
    char msg[600];
    std::snprintf(msg, sizeof msg,
                  "%s, with njmax = %d rows for %d contacts at the start (nv = %d): MuJoCo "
                  "2.2's data is one buffer of at most 2 GB (int nbuffer), and the rows' fixed "
                  "arrays (njmax x nv Jacobians, njmax^2 A R) take %.1f GB, %.1f GB for the "
                  "%d rows of these contacts alone",
                  e.what(), njmax, ncon, nv, mujoco_row_bytes(njmax, nv) / 1e9,
                  mujoco_row_bytes(3 * ncon, nv) / 1e9, 3 * ncon);
    throw std::runtime_error(msg);
  }
  if (s.mj_start) s.mj_start(mj.d);
}

// MuJoCo's restitution with damping B: the height of the ball's first bounce over its drop,
// both above contact, square-rooted
double mujoco_bounce(double damping) {
  MuJoCo mj;
  const std::string solref = " solref=\"" + num(-kMjBounceStiffness) + " " + num(-damping) + "\"";
  mujoco_load(mj, mj_header(0.8) + mj_ball(kDropHeight, solref) + kMjFooter, 16, 64);
  bool touched = false;
  double apex = 0;
  for (int k = 0; k < 5000; ++k) {
    mj_step(mj.m, mj.d);
    touched = touched || mj.d->ncon > 0;
    if (touched && mj.d->ncon == 0 && mj.d->qvel[2] <= 0) {
      apex = mj.d->qpos[2];
      break;
    }
  }
  return std::sqrt(std::max(apex - kBallRadius, 0.0) / (kDropHeight - kBallRadius));
}

}  // namespace

// the damping whose first bounce gives kRestitution (bisection; e falls as it grows)
double mujoco_damping(double& e) {
  double lo = 0, hi = 2 * std::sqrt(kMjBounceStiffness);  // critical damping
  if (mujoco_bounce(lo) < kRestitution) {
    e = mujoco_bounce(lo);
    return lo;
  }
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mujoco_bounce(mid) > kRestitution ? lo : hi) = mid;
  }
  e = mujoco_bounce(lo);
  return lo;
}

namespace {

Probe mujoco_probe(const mjData* d) {
  Probe p;
  for (int i = 0; i < 3; ++i) p.x[i] = d->qpos[i], p.v[i] = d->qvel[i], p.w[i] = d->qvel[3 + i];
  return p;
}

}  // namespace

void mujoco_bench(benchmark::State& st, const BenchScene& s) {
  if (!s.skip.empty()) {
    st.SkipWithError(s.skip.c_str());
    return;
  }
  mju_user_error = mujoco_error;
  MuJoCo mj;
  std::string why;
  try {
    // settle; when MuJoCo says its buffers were full, again with twice the rows
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (mj.m) mujoco_reset(mj);
      mujoco_sized(mj, s, attempt);
      if (s.mujoco.empty()) mj_resetDataKeyframe(mj.m, mj.d, mj_name2id(mj.m, mjOBJ_KEY, "stand"));
      mj.d->qpos[2] += s.lift;  // the free joint's z
      for (int k = 0; k < s.settle; ++k) mj_step(mj.m, mj.d);
      if (!mujoco_full(mj.d)) break;
    }
    if (mujoco_full(mj.d))
      why = "MuJoCo's contact list or constraint rows were full (nconmax " +
            std::to_string(mj.m->nconmax) + ", njmax " + std::to_string(mj.m->njmax) + ")";
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (why.empty() && s.check && s.settle > 0) why = s.check(mujoco_probe(mj.d));
  if (!why.empty()) {
    why = "MuJoCo, " + s.name + ", settling: " + why;
    std::fprintf(stderr, "%s\n", why.c_str());
    st.SkipWithError(why.c_str());
    return;
  }
  int contacts = 0, max_contacts = 0, touchdowns = 0;
  double depth = 0;
  for (auto _ : st) {
    mj_step(mj.m, mj.d);
    const int now = mj.d->ncon;
    for (int c = 0; c < now; ++c) depth = std::max(depth, -mj.d->contact[c].dist);
    touchdowns += now > 0 && contacts == 0;
    max_contacts = std::max(max_contacts, now);
    contacts = now;
  }
  if (mujoco_full(mj.d))
    why = "MuJoCo's contact list or constraint rows were full (nconmax " +
          std::to_string(mj.m->nconmax) + ", njmax " + std::to_string(mj.m->njmax) + ")";
  if (why.empty() && s.check) why = s.check(mujoco_probe(mj.d));
  if (why.empty() && s.name == "bounce" && touchdowns < 2)
    why = "the ball no longer bounces (" + std::to_string(touchdowns) + " touchdowns)";
  if (why.empty() && contacts < s.contacts)
    why = "kept " + std::to_string(contacts) + " contacts (d->ncon) at the last step, " +
          std::to_string(s.contacts) + " expected";
  if (!why.empty()) {
    why = "MuJoCo, " + s.name + ": " + why;
    std::fprintf(stderr, "%s\n", why.c_str());
    st.SkipWithError(why.c_str());
    return;
  }
  const Probe p = mujoco_probe(mj.d);
  st.counters["contacts"] = contacts;
  st.counters["max_contacts"] = max_contacts;
  st.counters["penetration"] = depth;
  st.counters["touchdowns"] = touchdowns;
  st.counters["speed"] = std::sqrt(p.v[0] * p.v[0] + p.v[1] * p.v[1] + p.v[2] * p.v[2]);
  st.counters["nefc"] = mj.d->nefc;
  st.counters["njmax"] = mj.m->njmax;
}

}  // namespace appell::contact_bench
