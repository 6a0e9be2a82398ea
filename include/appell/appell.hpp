// appell — equations of motion of constrained multibody systems from Gauss's principle.
//
//   #include <appell/appell.hpp>
//   appell::Scene scene = appell::load_scene("scenes/examples/double_pendulum.json");
//   appell::Model model = appell::compile(scene);          // constant, shared by threads
//   appell::Data  data(model);                             // every buffer is sized here
//   appell::forward(model, data, appell::Formulation::Pinv);   // data.udot, data.lambda
//
// Everything a scene file can say can be built in code: ModelBuilder::add_body,
// add_constraint (Joint, DistanceConstraint, ..., CallableConstraint, or your own
// Constraint subclass), add_force (SpringForce, ..., CallableForce), then compile().
// The library never prints.  This header brings what a program needs; the headers named
// at its end are public too.  Nothing outside include/appell/ is.
#pragma once

// the model and its workspace
#include "appell/data.hpp"   // Data (the workspace)
#include "appell/model.hpp"  // ModelBuilder, Model, State, compile(); bodies, forces
// what a model is built from
#include "appell/constraints.hpp"       // primitives, rolling, mimic, prescribed, your own
#include "appell/expression_force.hpp"  // forces written as expressions
#include "appell/inertia.hpp"           // inertia of shapes
#include "appell/joint.hpp"             // joints and their types
#include "appell/joint_forces.hpp"      // actuators, springs, dampers, friction at joints
// what is computed from it
#include "appell/forward.hpp"           // accelerations and constraint forces at a state
#include "appell/inverse_dynamics.hpp"  // joint forces for given accelerations
#include "appell/scene.hpp"             // scene files (JSON, URDF)
#include "appell/simulation.hpp"        // runs
#include "appell/sweep.hpp"             // many runs on many threads

// Also public, for what the headers above do not need: appell/state_space.hpp (a
// formulation as a first-order system), appell/tree.hpp (which joint owns which
// coordinates of a State), appell/trajectory.hpp, appell/output_schema.hpp and
// appell/joint_columns.hpp (a run's samples as the program's columns), appell/number_format.hpp
// (the outputs' number format), appell/overrides.hpp (scene values replaced by JSON Pointer),
// appell/standard_chain.hpp (the benchmark chain), appell/joint_state.hpp (a joint's
// coordinates read from body states).
