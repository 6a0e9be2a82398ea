// The URDF converter (private to scenes/urdf*.cpp): urdfdom's model → the scene format's
// JSON (a UrdfScene, scenes/urdf.hpp).  Its steps, one file each:
//   urdf_converter.cpp  the checks of the tree and its names, the walk from the root link,
//                       bodies, joints, mimics
//   urdf_geometry.cpp   a link's <collision> and <visual> elements as shapes, mesh files
// (scenes/urdf.cpp: the entry points, urdfdom's parse, a scene's "include").
#pragma once

#include <urdf_parser/urdf_parser.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "appell/scene_document.hpp"
#include "scenes/robot_json.hpp"
#include "scenes/urdf.hpp"

namespace appell::urdf_detail {

using nlohmann::json;

constexpr std::uint32_t kRobotGroup = 2;  // the filter group of a URDF's shapes

inline Vec3 vec3(const urdf::Vector3& v) {
  return Vec3(v.x, v.y, v.z);
}
inline Mat3 rotation(const urdf::Rotation& r) {
  return Quat(r.w, r.x, r.y, r.z).normalized().toRotationMatrix();
}
// every number of the pose is finite
bool finite(const urdf::Pose& o);
// URDF's name of j's type, as in the file
const char* urdf_type_name(const urdf::Joint& j);
// whether j's type is one a mimic can couple
bool moves_one_coordinate(const urdf::Joint& j);

// Where a link's frame is: (p, R) in the link frame of the body it belongs to.
struct Frame {
  std::string body;  // a body, or "world"
  Vec3 p = Vec3::Zero();
  Mat3 R = Mat3::Identity();
};

class Converter {
 public:
  Converter(const urdf::ModelInterface& model, UrdfScene& out) : model_(model), out_(out) {
    out_.doc = {{"bodies", json::array()}, {"constraints", json::array()}};
  }
  // the model into out, its root link fixed to the world or on a free joint
  void run(bool floating_base);

 private:
  [[noreturn]] void fail(const std::string& what) const { throw SceneError(out_.file, "", what); }
  static bool has_mass(const urdf::Link& l) { return l.inertial && l.inertial->mass > 0; }

  // urdf_converter.cpp
  void check_names() const;
  void check_tree();
  void check_reached(const urdf::Link& root) const;
  void add_body(const urdf::Link& l, const std::string& role);
  // the joint type that answers to it, or nullptr
  static const JointType* type_of(const urdf::Joint& j) {
    return find_joint_type(JointFormat::Urdf, urdf_type_name(j));
  }
  JointProperties properties(const urdf::Joint& j) const;
  void add_joint(const urdf::Joint& j, const Frame& at);
  void add_mimic(const urdf::Joint& j);
  void walk(const urdf::Link& l, const Frame& f);

  // urdf_geometry.cpp
  void add_collisions(const urdf::Link& l, const Frame& f);
  template <class Element>
  void add_geometry(const urdf::Link& l, const Frame& f,
                    const std::vector<std::shared_ptr<Element>>& elements, bool visual);
  bool geometry_shape(const urdf::Geometry& g, const std::string& what, bool visual, json& shape);
  json* shapes_of(const Frame& f);
  std::string find_mesh(const std::string& name) const;

  const urdf::ModelInterface& model_;
  UrdfScene& out_;
  std::vector<json> mimics_;
  std::map<std::string, const urdf::Joint*> parent_;  // link → its parent joint
  std::set<std::string> reached_;                     // links the walk reached
  std::map<std::string, size_t> body_index_;          // body name → its entry in doc
};

}  // namespace appell::urdf_detail
