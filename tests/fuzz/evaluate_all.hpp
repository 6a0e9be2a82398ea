// What the scene and URDF fuzz targets do with a scene that loaded: compile it and, when it
// is small enough to stay fast (the dense formulations are O(n³)), evaluate it once at
// t = 0 in every formulation.  A crash or a sanitizer report here is a defect.
#pragma once

#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "appell/scene.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"

namespace appell::fuzz {

inline void evaluate_all(const Scene& scene) {
  const Model m = compile(scene);
  if (m.nbody() > 24 || m.nrows() > 96) return;
  for (Formulation f : {Formulation::Auto, Formulation::Recursive, Formulation::GibbsAppell,
                        Formulation::Pinv, Formulation::Sparse}) {
    SolverOptions solver = scene.settings.solver;
    solver.formulation = f;
    Data d(m);
    kinematics(m, d);
    if (project_velocities(m, d) == SolveStatus::Ok) forward(m, d, solver);
  }
}

}  // namespace appell::fuzz
