// Internal to the scene loader: MuJoCo models (docs/scene-format.md "MJCF").
//
// An MJCF file (root element <mujoco>, parsed by Debian's tinyxml2) becomes one more part
// of a scene in the scene format's joint-space form, as a URDF does (scenes/urdf.hpp): each
// <body> with mass a body, its joint a joint with an "origin"; a body without a joint is
// welded to its parent (merged into it when it has no mass).  What appell does not read is
// named in a warning or an error located by the file's line and the element's path
// ("/mujoco/worldbody/body[2]/joint").
#pragma once

#include <string>

#include "scenes/reader.hpp"
#include "scenes/urdf.hpp"

namespace appell {

// True when the text is XML whose root element is <mujoco>.
bool is_mjcf_text(const std::string& text);

// Reads an MJCF; throws SceneError "FILE:LINE" with the element's path.  `keyframe`, when
// not empty, names the <key> whose qpos, qvel and ctrl the model starts from (else qpos0
// and zero controls, as MuJoCo's mj_makeData).
UrdfScene mjcf_scene_from_string(const std::string& xml, const std::string& file,
                                 const std::string& keyframe = "");

// A scene's "include": {"mjcf": PATH (relative to the scene's folder), "keyframe": NAME,
// "q": {joint: q}, "qd": {joint: qd}} (q and qd override the keyframe's).  Located errors.
UrdfScene include_mjcf(const Node& include);

}  // namespace appell
