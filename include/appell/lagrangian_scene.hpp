// A scene that declares a Lagrangian system (docs/lagrangian.md, docs/scene-format.md
// "Lagrangian systems"): its top-level "lagrangian" object, the integrator and output
// settings.  Loading checks everything at t = 0 — the expressions, the constraints'
// satisfaction by the initial state (and a row nonlinear in the rates its ∂φ/∂q̇ ≠ 0), the
// regularity of L and the independence of the quasi-velocities — and throws SceneError
// (file, JSON Pointer, message) otherwise.
#pragma once

#include <string>

#include "appell/lagrangian.hpp"
#include "appell/scene.hpp"

namespace appell {

struct LagrangianRun {
  std::string method = "rk4";  // rk4 (fixed dt) or dopri5 (adaptive; dt the output spacing)
  double dt = 1e-3, duration = 1.0;
  double rtol = 1e-9, atol = 1e-12;  // dopri5
  int every = 1;                     // one output row every `every` steps
};

struct LagrangianScene {
  LagrangianSystem system;
  LagrangianState initial;  // on the constraint set
  LagrangianRun run;
};

// True when the document's top level has the key "lagrangian".
bool is_lagrangian_text(const std::string& text);

LagrangianScene load_lagrangian_scene(const std::string& path);
LagrangianScene load_lagrangian_scene_from_string(const std::string& text, const std::string& file);

}  // namespace appell
