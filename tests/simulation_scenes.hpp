// Scenes and run settings shared by the simulation tests (simulation_test.cpp,
// simulation_runs_test.cpp): a particle pendulum, a double pendulum, the integrator
// settings of a run, and the angular momentum of a model's bodies.
#pragma once

#include <appell/appell.hpp>
#include <cstdio>
#include <string>

namespace appell::testing {

inline std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
inline std::string vec(const Vec3& v) {
  return "[" + num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + "]";
}

inline SimulationOptions options(const std::string& method, double duration, double dt,
                                 double rtol = 1e-10, double atol = 1e-12) {
  SimulationOptions o;
  o.formulation = Formulation::Pinv;
  o.integrator.method = method;
  o.integrator.duration = duration;
  o.integrator.dt = dt;
  o.integrator.rtol = rtol;
  o.integrator.atol = atol;
  return o;
}

// A particle on a massless rod of length L to the world origin [UK96 ex. 1].
inline Scene pendulum(const Vec3& x0, const Vec3& v0,
                      const std::string& stabilization = R"("none")") {
  const std::string scene = R"({"name": "pendulum", "gravity": [0, 0, -9.81],
    "bodies": [{"name": "bob", "type": "particle", "mass": 0.7, "position": )" +
                            vec(x0) + R"(, "velocity": )" + vec(v0) + R"(}],
    "constraints": [{"name": "rod", "type": "distance", "bodies": ["world", "bob"],
                     "points": [[0, 0, 0], )" +
                            vec(x0) + R"(]}],
    "solver": {"stabilization": )" +
                            stabilization + R"(}})";
  return load_scene_from_string(scene, "pendulum.json");
}

// Two rigid links on revolute joints, released from a large angle: chaotic.
inline Scene double_pendulum(const std::string& stabilization) {
  const std::string scene = R"({"name": "double pendulum", "gravity": [0, 0, -9.81],
    "bodies": [
      {"name": "a", "mass": 1.0, "inertia": {"box": [0.05, 0.05, 0.4]},
       "position": [0, 0.2, 0], "orientation": {"axis_angle": [1, 0, 0, -1.5707963267948966]}},
      {"name": "b", "mass": 1.0, "inertia": {"box": [0.05, 0.05, 0.4]},
       "position": [0, 0.4, 0.2], "orientation": {"axis_angle": [1, 0, 0, 3.141592653589793]},
       "angular_velocity": [2, 0, 0], "velocity": [0, 0, 0]}],
    "constraints": [
      {"name": "hinge1", "type": "revolute", "bodies": ["world", "a"], "anchor": [0, 0, 0], "axis": [1, 0, 0]},
      {"name": "hinge2", "type": "revolute", "bodies": ["a", "b"], "anchor": [0, 0.4, 0], "axis": [1, 0, 0]}],
    "solver": {"stabilization": )" +
                            stabilization + R"(}})";
  return load_scene_from_string(scene, "double_pendulum.json");
}

// Angular momentum about the world origin.
inline Vec3 angular_momentum(const Model& m, const Data& d) {
  Vec3 L = Vec3::Zero();
  for (int i = 0; i < m.nbody(); ++i) {
    const BodyState& s = d.body[i];
    L += s.x.cross(m.bodies()[i].mass * s.v);
    if (m.bodies()[i].rigid()) L += d.J[i] * s.w;
  }
  return L;
}

}  // namespace appell::testing
