// MJCF files for the import tests: OBJ meshes, an MJCF text written to the temporary
// folder beside them and loaded, or loaded as it is, and a body or joint by its name.
#pragma once

#include <appell/appell.hpp>
#include <memory>
#include <stdexcept>
#include <string>

#include "tests/cli_util.hpp"

namespace appell::testing {

// A closed OBJ box [lo, hi] (x, then y, then z over its two ends), each face two triangles
// facing out
inline std::string obj_box(const Vec3& lo, const Vec3& hi) {
  std::string s;
  for (double x : {lo.x(), hi.x()})
    for (double y : {lo.y(), hi.y()})
      for (double z : {lo.z(), hi.z()})
        s += "v " + std::to_string(x) + " " + std::to_string(y) + " " + std::to_string(z) + "\n";
  // vertex (i, j, k) is 4i + 2j + k + 1; each face two triangles, outward
  const int q[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1},
                       {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  for (const auto& f : q) {
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[1] + 1) + " " +
         std::to_string(f[2] + 1) + "\n";
    s += "f " + std::to_string(f[0] + 1) + " " + std::to_string(f[2] + 1) + " " +
         std::to_string(f[3] + 1) + "\n";
  }
  return s;
}

// An OBJ box [0.1, 0.4] × [−0.1, 0.1] × [0, 0.1] (convex) and an L-shaped prism (not
// convex): the L of [0, 0.4] × [0, 0.1] and [0, 0.1] × [0, 0.3], extruded over z ∈ [0, 0.2]
inline std::string obj_box() {
  return obj_box(Vec3(0.1, -0.1, 0), Vec3(0.4, 0.1, 0.1));
}
inline std::string obj_l() {
  const double P[6][2] = {{0, 0}, {0.4, 0}, {0.4, 0.1}, {0.1, 0.1}, {0.1, 0.3}, {0, 0.3}};
  std::string s;
  for (double z : {0.0, 0.2})
    for (const auto& p : P)
      s +=
          "v " + std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(z) + "\n";
  const auto f = [&](int a, int b, int c) {
    s += "f " + std::to_string(a + 1) + " " + std::to_string(b + 1) + " " + std::to_string(c + 1) +
         "\n";
  };
  const int fan[4][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}};
  for (const auto& t : fan) f(t[0], t[2], t[1]);              // bottom, facing −z
  for (const auto& t : fan) f(t[0] + 6, t[1] + 6, t[2] + 6);  // top, +z
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    f(i, j, j + 6);
    f(i, j + 6, i + 6);
  }
  return s;
}

// the model of an MJCF file written to a temporary folder with the meshes it names
inline Model load_mjcf(const std::string& xml, const std::string& name) {
  write_temp("box.obj", obj_box());
  write_temp("L.obj", obj_l());
  const std::string path = write_temp(name + ".xml", xml);
  Model m = compile(load_scene(path));
  return m;
}
inline Scene load_mjcf_scene(const std::string& xml, const std::string& name) {
  write_temp("box.obj", obj_box());
  write_temp("L.obj", obj_l());
  return load_scene(write_temp(name + ".xml", xml));
}

// the scene of an MJCF text that names no other file
inline Scene load_mjcf_text(const std::string& xml) {
  return load_scene_from_string(xml, "model.xml");
}

// a scene's body by its name
inline const Body& body_of(const Scene& s, const std::string& name) {
  for (const Body& b : s.model.bodies())
    if (b.name == name) return b;
  throw std::runtime_error("no body " + name);
}

// the joint of a model by its name, null when none has it
inline std::shared_ptr<const Joint> joint_of(const Model& m, const std::string& name) {
  for (const ConstraintPtr& c : m.constraints())
    if (c->name() == name) return std::dynamic_pointer_cast<const Joint>(c);
  return nullptr;
}

}  // namespace appell::testing
