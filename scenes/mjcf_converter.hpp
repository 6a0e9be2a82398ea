// The MJCF converter (private to scenes/mjcf*.cpp): MuJoCo's XML → the scene format's JSON
// (a UrdfScene, scenes/urdf.hpp).  One Converter per file; its steps, by the part of the
// MJCF they read, one file each:
//   mjcf.cpp             the entry points, the run (the order of the top-level elements),
//                        <include>, the element counts
//   mjcf_attributes.cpp  locations and warnings, attributes with default classes, frames
//   mjcf_settings.cpp    <compiler>, <option> and its <flag>s, <default>
//   mjcf_geoms.cpp       mass properties: <inertial>, geoms' solids; a geom's shape
//   mjcf_meshes.cpp      <asset><mesh> and the solid a mesh bounds
//   mjcf_bodies.cpp      <worldbody>: bodies (their joints' frames, mass), sites, geoms
//   mjcf_joints.cpp      joints, keyframes
//   mjcf_actuators.cpp   forces: <actuator>, fixed <tendon>s, joint springs
//   mjcf_equalities.cpp  <equality> (mimics, loops), <contact> exclusions
#pragma once

#include <tinyxml2.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "appell/scene_document.hpp"
#include "scenes/mjcf.hpp"
#include "scenes/robot_json.hpp"
#include "scenes/shapes.hpp"
#include "scenes/xml_outline.hpp"

namespace appell::mjcf_detail {

using nlohmann::json;
using tinyxml2::XMLElement;

// MJCF bodies nest as deep as the kinematic tree (a humanoid's about 10 levels); tinyxml2
// refuses more than 100 levels (TINYXML2_MAX_ELEMENT_DEPTH), so the outline's bound,
// checked first, names the element and its line instead
constexpr int kMaxMjcfDepth = 96;
constexpr double kPi = 3.14159265358979323846;
constexpr const char kNoKey[] = "no <keyframe><key name=\"";
// warnings kept (the others counted in one more line): a file of 100,000 unread elements
// prints 101 lines, not 100,000
constexpr size_t kMaxWarnings = 100;

// The bounds of the XML outline's scan for an MJCF (scenes/xml_outline.hpp)
XmlLimits mjcf_limits();
// the scan's first element past a limit, as an error at FILE:LINE
void located_outline_defect(const XmlOutline& o, const XmlLimits& limits, const std::string& file);
// The attributes each element reads (beyond "class"); any other is warned about once per
// element kind and attribute, at its first occurrence.
const std::map<std::string, std::set<std::string>>& known_attributes();

// An <asset><mesh>: its file (resolved), scale, and once read the mass properties of the
// solid it bounds at unit density (volume; centre and inertia per unit mass, mesh frame)
struct MeshAsset {
  const XMLElement* element = nullptr;
  std::string path;           // "" for inline vertices
  MeshFile inline_mesh;       // <mesh vertex face>: unscaled
  Vec3 scale = Vec3::Ones();  // nonzero; negative mirrors
  std::shared_ptr<const Mesh> mesh;
  bool loaded = false;
  std::string defect;  // why it gives no inertia, "" when it does
  double volume = 0;
  Vec3 com = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};

// A 3×3 rotation from MuJoCo's frame attributes
struct Pose {
  Vec3 p = Vec3::Zero();
  Mat3 R = Mat3::Identity();
};

// An actuator as MuJoCo's compiler holds it (mjsActuator): a default class holds one, which
// every actuator kind's element in the class edits with that kind's meaning (a <position kp>
// in a default sets the gain and bias a <general> of the class then starts from), and an
// actuator element starts from its class's
struct ActuatorSpec {
  double gear = 1;
  std::vector<double> ctrlrange, forcerange;  // empty: not given
  std::string ctrllimited = "auto", forcelimited = "auto";
  std::string gaintype = "fixed", biastype = "none", dyntype = "none";
  std::vector<double> gainprm = {1, 0, 0}, biasprm = {0, 0, 0};
};

// An MJCF joint: what the actuators, tendons and keyframes that name it need
struct JointInfo {
  std::string type;       // hinge, slide, ball, free
  size_t constraint = 0;  // its index in the scene's "constraints"
  bool limited = false;
  double lower = 0, upper = 0;  // radians or metres
  double ref = 0;               // qpos0 (a hinge's or slide's `ref`), radians or metres
};

class Converter {
 public:
  Converter(const std::string& file, UrdfScene& out, const std::string& keyframe, size_t elements);
  // the MJCF whose root element is `root` into out
  void run(const XMLElement& root);

 private:
  using Attrs = std::map<std::string, std::string>;  // attribute → value
  // A default class: the attributes its own <default> gives each element kind, and the
  // class it is nested in.  A class holds only its own (a look-up walks up the chain, at
  // most as deep as the XML nests): nothing is copied per class or per use, so the memory
  // is the size of the <default> elements, however many classes and uses there are.
  struct Class {
    const Class* parent = nullptr;
    std::map<std::string, Attrs> own;  // element name → the attributes this class sets
  };
  // A body's mass properties, summed from its parts
  struct Mass {
    double m = 0;
    Vec3 c = Vec3::Zero();  // centre of mass in the body frame
    Mat3 I = Mat3::Zero();  // about c, body axes
    // a part of mass mi at ci with inertia Ii about ci (parallel axes)
    void add(double mi, const Vec3& ci, const Mat3& Ii);
  };
  struct Geom {
    std::string type;
    Pose f;                    // in the body frame
    double r = 0, h = 0;       // radius and half-length (capsule, cylinder)
    Vec3 half = Vec3::Zero();  // box half sizes, ellipsoid radii
    const MeshAsset* mesh = nullptr;
  };
  // Where a body frame is: (p, R) in the link frame of the scene body it belongs to.
  struct Frame {
    std::string body;  // a scene body, or "world"
    Pose f;
    Pose w;               // the same frame in the world at the reference pose (qpos0)
    bool moving = false;  // a joint moves it (MuJoCo's body that is not static)
  };

  // mjcf.cpp
  void count_tree() const;
  void expand(const XMLElement& root, std::vector<std::string>& chain);

  // mjcf_attributes.cpp
  std::string path(const XMLElement& e) const;
  std::string where(const XMLElement& e) const {
    const auto f = doc_file_.find(e.GetDocument());
    return (f == doc_file_.end() ? file_ : f->second) + ":" + std::to_string(e.GetLineNum());
  }
  [[noreturn]] void fail(const XMLElement& e, const std::string& what) const {
    throw SceneError(where(e), path(e), what);
  }
  void warn(const XMLElement& e, const std::string& what);
  void check_attributes(const XMLElement& e);
  std::optional<std::string> attr(const XMLElement& e, const char* name);
  const Class* class_of(const XMLElement& e);
  std::vector<double> numbers(const XMLElement& e, const char* name, const std::string& text,
                              size_t min, size_t max) const;
  std::vector<double> get(const XMLElement& e, const char* name, size_t min, size_t max,
                          std::vector<double> fallback = {});
  double get1(const XMLElement& e, const char* name, double fallback) {
    return get(e, name, 1, 1, {fallback})[0];
  }
  bool has(const XMLElement& e, const char* name) { return attr(e, name).has_value(); }
  std::string text(const XMLElement& e, const char* name, const std::string& fallback) {
    const auto s = attr(e, name);
    return s ? *s : fallback;
  }
  bool boolean(const XMLElement& e, const char* name, bool fallback);
  double angle(double a) const { return degrees_ ? a * kPi / 180 : a; }
  static Vec3 vec(const std::vector<double>& v) { return Vec3(v[0], v[1], v[2]); }
  Pose pose(const XMLElement& e);
  Mat3 orientation(const XMLElement& e);

  // mjcf_settings.cpp
  void compiler(const XMLElement& e);
  void option(const XMLElement& e);
  void flags(const XMLElement& e);
  void defaults(const XMLElement& e, const Class* parent, const std::string& parent_name = "");

  // mjcf_geoms.cpp
  Mass inertial(const XMLElement& e);
  bool geom(const XMLElement& e, Geom& g, bool report);
  static double volume(const Geom& g);
  static Mat3 unit_inertia(const Geom& g);
  json shape(const XMLElement& e, const Geom& g, const Pose& at);

  // mjcf_meshes.cpp
  void assets(const XMLElement& a);
  const MeshAsset& load_mesh(MeshAsset& m);

  // mjcf_bodies.cpp
  void worldbody(const XMLElement& w);
  void contents(const XMLElement& b, const Frame& at, bool world);
  void site(const XMLElement& e, const Frame& at);
  void name_sites();
  void add_shape(const Frame& at, const json& s);
  Frame body(const XMLElement& e, const Frame& parent);
  std::string body_name(const XMLElement& e);
  std::vector<const XMLElement*> body_joints(const XMLElement& e);
  Mass body_mass(const XMLElement& e);
  void add_geom_mass(const XMLElement& c, Mass& mass);
  Frame joint_frame(const XMLElement& e, const XMLElement& jk, const std::string& name,
                    const Frame& at, Vec3& at_offset);

  // mjcf_joints.cpp
  // an MJCF joint's name: its own, else "joint<N>" with N MuJoCo's id of the joint + 1
  // (joints counted in MuJoCo's order, the welds of bodies without joints not)
  std::string joint_name(const XMLElement& j) const {
    const char* n = j.Attribute("name");
    return n && *n ? std::string(n) : "joint" + std::to_string(joint_count_ + 1);
  }
  void add_joint(const XMLElement& body, const XMLElement* j, const std::string& type,
                 const std::string& child, const Frame& at, const Vec3& offset);
  JointProperties joint_properties(const XMLElement& j, const std::string& type, double scale);
  void joint_spring(const XMLElement& j, const std::string& type, const std::string& name);
  void find_keyframe();
  void apply_keyframe(const XMLElement& key);

  // mjcf_actuators.cpp
  void add_force(const XMLElement& e, const json& f, const char* kind);
  static bool is_identifier(const std::string& s);
  void joint_law(const XMLElement& e, const std::string& joint, double tau0, double dq, double du,
                 bool clamped, double lo, double hi, const char* kind);
  void tendon_law(const XMLElement& e, const std::string& tendon, double f0, double fl, double fv,
                  bool clamped, double lo, double hi, const char* kind);
  void tendons(const XMLElement& t);
  static bool is_actuator_kind(const std::string& n) {
    return n == "general" || n == "motor" || n == "position" || n == "velocity" || n == "damper";
  }
  void actuator_attributes(const XMLElement& e, ActuatorSpec& a);
  void actuators(const XMLElement& a);

  // mjcf_equalities.cpp
  void equalities(const XMLElement& q);
  void contact(const XMLElement& c);
  void loop_equality(const XMLElement& e, const std::string& kind, int index);

  const std::string& file_;
  std::vector<std::unique_ptr<tinyxml2::XMLDocument>> included_;  // <include>d files
  std::map<const tinyxml2::XMLDocument*, std::string> doc_file_;  // each document's file
  std::vector<const XMLElement*> top_;       // the top-level elements, includes expanded
  std::string keyframe_;                     // the <key> to start from, "" for qpos0
  const XMLElement* key_ = nullptr;          // that key
  std::vector<double> key_ctrl_;             // its controls
  std::map<std::string, JointInfo> joints_;  // MJCF joints by name
  std::vector<std::string> joint_order_;     // in MuJoCo's order (qpos)
  std::map<std::string, std::vector<std::pair<std::string, double>>> tendons_;  // fixed
  std::map<std::string, ActuatorSpec> actuator_defaults_;                       // by default class
  size_t actuator_count_ = 0;
  std::map<std::string, MeshAsset> meshes_;
  std::string meshdir_;
  bool exactmeshinertia_ = false, warned_mesh_inertia_ = false;
  std::set<std::string> joint_names_;
  UrdfScene& out_;
  bool degrees_ = true, autolimits_ = true;
  std::string eulerseq_ = "xyz", inertiafromgeom_ = "auto";
  std::map<std::string, Class> classes_;
  std::vector<std::string> childclass_;
  std::map<std::string, size_t> body_index_;
  std::map<std::string, Pose> body_world_;                 // MJCF body frames in the world at qpos0
  std::map<const XMLElement*, std::string> element_name_;  // <body> → its name
  std::map<std::string, const XMLElement*> body_element_;  // and back
  std::set<std::string> names_;
  std::map<std::string, const XMLElement*> sites_;
  struct SiteAlias {
    std::string name;
    Alias alias;
    const XMLElement* element;
  };
  std::vector<SiteAlias> site_aliases_;  // in file order, named by name_sites()
  int body_count_ = 0, joint_count_ = 0;
  size_t elements_ = 0;  // XML elements read so far (the main file's and its includes')
  std::map<std::string, std::pair<std::string, int>> attribute_warnings_;
  size_t dropped_warnings_ = 0;  // warnings past kMaxWarnings
  struct Siblings {
    std::map<const XMLElement*, int> index;  // a child's index among those of its name
    std::map<std::string, int> count;        // how many children have each name
  };
  mutable std::map<const XMLElement*, Siblings> children_;  // path(): parents indexed
  mutable std::map<const XMLElement*, std::string> paths_;  // path(): of parents
};

}  // namespace appell::mjcf_detail
