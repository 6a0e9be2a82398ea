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
// The library never prints.  This header and the ones it includes are the public API.
#pragma once

#include "appell/body.hpp"
#include "appell/callable_constraint.hpp"
#include "appell/constraint.hpp"
#include "appell/data.hpp"
#include "appell/expression.hpp"
#include "appell/expression_constraint.hpp"
#include "appell/expression_force.hpp"
#include "appell/forces.hpp"
#include "appell/forward.hpp"
#include "appell/inertia.hpp"
#include "appell/inverse_dynamics.hpp"
#include "appell/joint.hpp"
#include "appell/joint_forces.hpp"
#include "appell/joint_state.hpp"
#include "appell/joint_type.hpp"
#include "appell/mimic.hpp"
#include "appell/model.hpp"
#include "appell/prescribed.hpp"
#include "appell/overrides.hpp"
#include "appell/primitives.hpp"
#include "appell/rolling.hpp"
#include "appell/rotation.hpp"
#include "appell/scene.hpp"
#include "appell/settings.hpp"
#include "appell/simulation.hpp"
#include "appell/spatial.hpp"
#include "appell/standard_chain.hpp"
#include "appell/state_space.hpp"
#include "appell/sweep.hpp"
#include "appell/trajectory.hpp"
#include "appell/tree.hpp"
