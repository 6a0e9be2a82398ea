// appell — equations of motion of constrained multibody systems from Gauss's principle.
//
//   #include <appell/appell.hpp>
//   appell::Model model = appell::load_model("scenes/examples/double_pendulum.json");
//   appell::Data  data(model);                      // every buffer is sized here
//   appell::forward(model, data, appell::Formulation::Pinv);   // data.udot, data.lambda
//
// Everything a scene file can say can be built in code: Model::add_body,
// Model::add_constraint (Joint, DistanceConstraint, ..., or your own Constraint subclass),
// Model::add_force (SpringForce, ..., CallableForce).  The library never prints.
#pragma once

#include "bodies/body.hpp"
#include "bodies/inertia.hpp"
#include "bodies/rotation.hpp"
#include "constraints/constraint.hpp"
#include "constraints/expression.hpp"
#include "constraints/expression_constraint.hpp"
#include "constraints/joint.hpp"
#include "constraints/kernels.hpp"
#include "constraints/primitives.hpp"
#include "constraints/rolling.hpp"
#include "engine/data.hpp"
#include "engine/expression_force.hpp"
#include "engine/forces.hpp"
#include "engine/forward.hpp"
#include "engine/gibbs_appell.hpp"
#include "engine/model.hpp"
#include "engine/pinv.hpp"
#include "engine/projection.hpp"
#include "engine/recursive.hpp"
#include "engine/simulation.hpp"
#include "engine/sparse.hpp"
#include "engine/state_space.hpp"
#include "engine/tree.hpp"
#include "engine/tree_state_space.hpp"
#include "scenes/scene.hpp"
#include "scenes/standard_chain.hpp"
