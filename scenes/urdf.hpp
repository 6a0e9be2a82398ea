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
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "appell/joint.hpp"
#include "appell/scene.hpp"
#include "scenes/joint_space.hpp"

namespace appell {

class MeshCache;

struct UrdfScene {
  std::string file;    // the URDF, for errors
  std::string name;    // <robot name>
  nlohmann::json doc;  // {"bodies": [...], "constraints": [...]} in the scene format
  Aliases aliases;     // merged links → the body (or "world") they belong to
  std::map<std::string, JointProperties> properties;  // by placement_key() of each joint
  RobotBase base;                                     // how the root is held
  // <collision> meshes that were not found (left out): for Scene::warnings
  std::vector<std::string> missing_meshes;
  // An MJCF's (scenes/mjcf.hpp): what it said that appell leaves out, for Scene::warnings;
  // the scene keys it sets ("gravity", "integrator", "friction": the contact pairs' rule)
  // unless the scene says them; and where
  // each entry of doc came from: "/bodies/3" → {"FILE:LINE", "/mujoco/worldbody/body[2]"}
  std::vector<std::string> warnings;
  nlohmann::json settings = nlohmann::json::object();
  std::map<std::string, std::pair<std::string, std::string>> located;
  // the files read for it (Scene::source_files): the URDF or MJCF when read from its
  // file, an MJCF's <include>d files, the meshes of MJCF mesh assets
  std::vector<std::string> files;
  // what an MJCF's forces and constraints are to MuJoCo's <flag> switches (a scene's
  // "disable"): "/forces/3" → "passive" or "actuation", "/constraints/7" → "equality"
  std::map<std::string, std::string> kinds;
  // the mesh files already read (an MJCF's, for their volume), shared with the shapes
  std::shared_ptr<MeshCache> meshes;
};

// Reads a URDF; a floating base when `floating_base` (a free joint "root_joint" from the
// world to the root link), else fixed unless the URDF has its own floating joint.  Throws
// SceneError naming the file and the link or joint.  Nothing here recurses along the tree:
// a chain as long as the body limit loads.
UrdfScene urdf_scene(const std::string& path, bool floating_base);
UrdfScene urdf_scene_from_string(const std::string& xml, const std::string& file,
                                 bool floating_base);

// A scene's "include": {"urdf": PATH (relative to the scene's folder), "base": "fixed" |
// "floating", "q": {joint: q}, "qd": {joint: qd}}.  Located errors.
UrdfScene include_urdf(const Node& include);

// The include's "q" and "qd" ({joint: value}), given to the joints of u.
void include_joint_values(const Node& include, UrdfScene& u);

// A mimic joint's initial q, qd that the scene did not give follow its leader's (M1), so
// that a URDF's zero state satisfies its mimics.
void follow_mimics(UrdfScene& u);

// True when `path` names a URDF (ends in .urdf, any case).
bool is_urdf_path(const std::string& path);

// Why a file's text is no URDF, for XML whose root element is not <robot> (an MJCF: how
// to include one; other XML: its root element), or "" (JSON, URDF, or not XML at all).
std::string unsupported_format(const std::string& text);

// True when the text of `file` is read as a URDF: XML (a URDF when unsupported_format()
// says nothing), or, in a file named .urdf, anything that does not start like JSON.
bool is_urdf_text(const std::string& text, const std::string& file);

// The URDF element behind a pointer into u.doc, "link 'arm'" or "joint 'elbow'", for
// errors that the scene parsers raise on the URDF's part; "" when there is none.
std::string urdf_element(const UrdfScene& u, const std::string& pointer);

}  // namespace appell
