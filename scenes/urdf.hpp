// Internal to the scene loader: URDF robots (docs/scene-format.md "URDF").
//
// A URDF (parsed by Debian's liburdfdom) becomes one more part of a scene, in the scene
// format's own joint-space form: each link with mass a body (centre of mass and inertia
// from its <inertial>, converted to the link frame), each moving joint a joint with an
// "origin" and an "axis"; links without mass that hang on fixed joints are merged into
// their parent (their names become aliases of it), and so is everything fixed to the root
// of a fixed-base robot, which is the world.  A floating base is a `floating` joint from
// the root (a massless link, conventionally "world") or the scene option "base": "floating".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "appell/joint.hpp"
#include "scenes/joint_space.hpp"

namespace appell {

struct UrdfScene {
  std::string file;    // the URDF, for errors
  std::string name;    // <robot name>
  nlohmann::json doc;  // {"bodies": [...], "constraints": [...]} in the scene format
  Aliases aliases;     // merged links → the body (or "world") they belong to
  std::map<std::string, JointProperties> properties;  // by placement_key() of each joint
};

// Reads a URDF; a floating base when `floating_base` (a free joint "root_joint" from the
// world to the root link), else fixed unless the URDF has its own floating joint.  Throws
// SceneError naming the file and the link or joint.
UrdfScene urdf_scene(const std::string& path, bool floating_base);
UrdfScene urdf_scene_from_string(const std::string& xml, const std::string& file,
                                 bool floating_base);

// A scene's "include": {"urdf": PATH (relative to the scene's folder), "base": "fixed" |
// "floating", "q": {joint: q}, "qd": {joint: qd}}.  Located errors.
UrdfScene include_urdf(const Node& include);

// A mimic joint's initial q, qd that the scene did not give follow its leader's (M1), so
// that a URDF's zero state satisfies its mimics.
void follow_mimics(UrdfScene& u);

// True when `path` names a URDF (ends in .urdf, any case).
bool is_urdf_path(const std::string& path);

}  // namespace appell
