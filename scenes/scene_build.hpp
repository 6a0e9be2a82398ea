// The steps of a scene's loading that scene.cpp calls (private to scenes/scene*.cpp):
//   scene_bodies.cpp    a body's entry ("bodies"), the lists' sizes
//   scene_settings.cpp  "solver", "integrator", "contact", "output", "disable"
#pragma once

#include <vector>

#include "appell/geometry.hpp"
#include "appell/scene.hpp"
#include "appell/scene_document.hpp"
#include "scenes/scene_parts.hpp"
#include "scenes/urdf.hpp"

namespace appell::scene_detail {

// a list of at most `limit` entries, else a located error
void check_count(const Node& list, size_t limit, const char* what);
// one body of the scene
Body parse_body(const Node& n);
// the bodies of one scene part, appended to `out` (names unique across parts and aliases)
void parse_bodies(const Node& list, const Aliases& aliases, std::vector<SceneBody>& out);
// The contact pairs' friction rule (appell/geometry.hpp): the scene's "contact": {"friction":
// ...}, else an MJCF's (MuJoCo's max), else the geometric mean.
FrictionRule friction_rule(const Node& top, const UrdfScene* robot);
// MuJoCo's <option><flag> switches, as a scene's "disable": ["passive", ...] says them (or
// an included MJCF's <flag>, unless the scene has the key): what the loader leaves out
struct Disabled {
  bool contact = false, limit = false, frictionloss = false, passive = false, actuation = false,
       equality = false;
};
Disabled disabled_parts(const Node& top, const UrdfScene* robot);
// what a force is to the switches: "passive", "actuation" or ""
std::string force_kind(const Node& n, const UrdfScene* robot);
// a mimic, or what an included MJCF's <equality> became
bool is_equality(const Node& n, const UrdfScene* robot);

// the run's settings of a scene's top level
void parse_settings(const Node& top, Settings& settings);

}  // namespace appell::scene_detail
