// The initial conditions a scene must meet (docs/scene-format.md, "Initial conditions"):
// holonomic rows hold at t = 0 to 1e-6, and some velocity satisfies the velocity rows.
#pragma once

#include <vector>

#include "appell/model.hpp"
#include "appell/settings.hpp"
#include "scenes/reader.hpp"

namespace appell {

// Compiles b and checks its t = 0 state; a located SceneError at the offending
// constraint's node (`constraints`: every constraint's node, in model order) or at `list`
// for the whole list (too many rows).
void check_initial_state(const ModelBuilder& b, const std::vector<Node>& constraints,
                         const Node& list);

// The joints' limits and friction a moreau run would enforce (contact.joint_limits,
// contact.joint_friction on): a limit or friction on a joint that closes a loop is refused
// at its "limit" ("friction"), a start outside a limit at the joint's "q" (else its
// "limit"), naming the joint, the side and by how much (appell/contact.hpp); the latter only
// for joints of the scene file itself (a robot file's zero configuration is not a choice).
void check_joint_limits(const ModelBuilder& b, const std::vector<Node>& constraints,
                        const ContactSettings& contact, const std::string& scene_file);

}  // namespace appell
