// The initial conditions a scene must meet (docs/scene-format.md, "Initial conditions"):
// holonomic rows hold at t = 0 to 1e-6, and some velocity satisfies the velocity rows.
#pragma once

#include <vector>

#include "appell/model.hpp"
#include "scenes/reader.hpp"

namespace appell {

// Compiles b and checks its t = 0 state; a located SceneError at the offending
// constraint's node (`constraints`: every constraint's node, in model order) or at `list`
// for the whole list (too many rows).
void check_initial_state(const ModelBuilder& b, const std::vector<Node>& constraints,
                         const Node& list);

}  // namespace appell
