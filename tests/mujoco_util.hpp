// MuJoCo's and appell's compilations of one MJCF file, side by side, for the tests that
// compare them (built only where MuJoCo is installed: APPELL_HAVE_MUJOCO).
#pragma once

#include <mujoco/mujoco.h>

#include <appell/appell.hpp>
#include <memory>
#include <stdexcept>
#include <string>

namespace appell::testing {

struct MjDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
  void operator()(mjData* d) const { mj_deleteData(d); }
};

struct Both {
  std::unique_ptr<mjModel, MjDeleter> mj;
  std::unique_ptr<mjData, MjDeleter> md;
  Model m;
};

// MuJoCo's model of the file at `path` with the `disable` flags set (contacts, at least:
// the tests compare smooth dynamics) and its data; appell's model of `scene` (default: the
// same file)
inline Both load_both_files(const std::string& path, int disable, const std::string& scene = "") {
  char error[1000] = "";
  Both b;
  b.mj.reset(mj_loadXML(path.c_str(), nullptr, error, sizeof error));
  if (!b.mj) throw std::runtime_error(std::string("MuJoCo: ") + error);
  b.mj->opt.disableflags |= disable;
  b.md.reset(mj_makeData(b.mj.get()));
  b.m = compile(load_scene(scene.empty() ? path : scene));
  return b;
}

inline Vec3 v3(const mjtNum* p) {
  return Vec3(p[0], p[1], p[2]);
}

}  // namespace appell::testing
