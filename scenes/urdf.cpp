#include "scenes/urdf.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "appell/inertia.hpp"

namespace appell {

using nlohmann::json;

bool is_urdf_path(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 5);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".urdf";
}

namespace {

// urdfdom reports why a parse failed through console_bridge; keep its first error
class Capture final : public console_bridge::OutputHandler {
 public:
  std::string first_error;
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR && first_error.empty())
      first_error = text;
  }
};

Vec3 vec3(const urdf::Vector3& v) {
  return Vec3(v.x, v.y, v.z);
}
Mat3 rotation(const urdf::Rotation& r) {
  return Quat(r.w, r.x, r.y, r.z).normalized().toRotationMatrix();
}
json to_json(const Vec3& v) {
  return json::array({v.x(), v.y(), v.z()});
}
// URDF's roll-pitch-yaw of R = Rz(yaw) Ry(pitch) Rx(roll) (any one, at gimbal lock)
Vec3 rpy_of(const Mat3& R) {
  const Vec3 ypr = R.eulerAngles(2, 1, 0);
  return Vec3(ypr(2), ypr(1), ypr(0));
}

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

  void run(bool floating_base) {
    const urdf::Link& root = *model_.getRoot();
    if (floating_base) {
      if (!has_mass(root))
        fail("link '" + root.name +
             "' is the root of a floating base but has no <inertial> with mass > 0 (a URDF "
             "whose massless root holds a floating joint floats already: use base fixed)");
      add_body(root, "the floating base");
      json joint = {{"name", "root_joint"},
                    {"type", "free"},
                    {"bodies", {"world", root.name}},
                    {"origin", json::object()}};
      out_.doc["constraints"].push_back(joint);
      walk(root, Frame{root.name});
    } else {
      out_.aliases[root.name] = Alias{"world"};  // a fixed base: the root is the ground
      walk(root, Frame{"world"});
    }
    for (const json& m : mimics_) out_.doc["constraints"].push_back(m);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw SceneError(out_.file, "", what); }
  static bool has_mass(const urdf::Link& l) { return l.inertial && l.inertial->mass > 0; }

  // the link's body: mass, centre of mass and inertia in the link frame
  void add_body(const urdf::Link& l, const std::string& role) {
    if (l.name == "world") fail("link 'world' is reserved for the fixed ground; rename it");
    if (!has_mass(l))
      fail("link '" + l.name + "' is " + role + " but has no <inertial> with mass > 0");
    const urdf::Inertial& in = *l.inertial;
    if (!std::isfinite(in.mass)) fail("link '" + l.name + "': <mass> is not finite");
    Mat3 J;
    J << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    // the tensor is given in the <inertial> frame: rotate it into the link frame
    const Mat3 R = rotation(in.origin.rotation);
    const Mat3 J_link = R * J * R.transpose();
    const std::string defect = inertia_defect(J_link);
    if (!defect.empty()) fail("link '" + l.name + "': <inertia>: " + defect);
    json rows = json::array();
    for (int r = 0; r < 3; ++r) rows.push_back(to_json(J_link.row(r).transpose()));
    out_.doc["bodies"].push_back({{"name", l.name},
                                  {"mass", in.mass},
                                  {"inertia", {{"matrix", rows}}},
                                  {"com", to_json(vec3(in.origin.position))}});
  }

  static const char* type_of(const urdf::Joint& j) {
    switch (j.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        return "revolute";
      case urdf::Joint::PRISMATIC:
        return "prismatic";
      case urdf::Joint::FLOATING:
        return "free";
      case urdf::Joint::PLANAR:
        return "planar";
      case urdf::Joint::FIXED:
        return "fixed";
      default:
        return nullptr;
    }
  }

  // the joint j, from body `parent` at (p, R) in its link frame
  void add_joint(const urdf::Joint& j, const Frame& at) {
    const char* type = type_of(j);
    if (!type)
      fail("joint '" + j.name +
           "': unknown type; expected revolute, continuous, prismatic, fixed, floating or planar");
    json joint = {{"name", j.name},
                  {"type", type},
                  {"bodies", {at.body, j.child_link_name}},
                  {"origin", {{"xyz", to_json(at.p)}, {"rpy", to_json(rpy_of(at.R))}}}};
    const std::string t = type;
    if (t == "revolute" || t == "prismatic" || t == "planar") {
      const Vec3 axis = vec3(j.axis);
      if (!(axis.norm() > 1e-12) || !axis.allFinite())
        fail("joint '" + j.name + "': <axis> must be a nonzero direction");
      joint["axis"] = to_json(axis);
    }
    JointProperties props;
    if (j.dynamics) {
      props.damping = j.dynamics->damping;
      props.friction = j.dynamics->friction;
      if (!(props.damping >= 0) || !(props.friction >= 0))
        fail("joint '" + j.name + "': <dynamics> damping and friction must be >= 0");
    }
    if (j.limits && (j.type == urdf::Joint::REVOLUTE || j.type == urdf::Joint::PRISMATIC)) {
      props.limited = true;
      props.lower = j.limits->lower;
      props.upper = j.limits->upper;
      props.effort = j.limits->effort;
      props.velocity = j.limits->velocity;
    }
    const std::string pointer = "/constraints/" + std::to_string(out_.doc["constraints"].size());
    out_.properties[out_.file + "#" + pointer] = props;
    out_.doc["constraints"].push_back(joint);
    if (j.mimic)
      mimics_.push_back({{"name", j.name + "_mimic"},
                         {"type", "mimic"},
                         {"joint", j.name},
                         {"leader", j.mimic->joint_name},
                         {"multiplier", j.mimic->multiplier},
                         {"offset", j.mimic->offset}});
  }

  // the joints below link l, whose frame is `f`
  void walk(const urdf::Link& l, const Frame& f) {
    for (const urdf::JointSharedPtr& jp : l.child_joints) {
      const urdf::Joint& j = *jp;
      const urdf::LinkConstSharedPtr child = model_.getLink(j.child_link_name);
      if (!child) fail("joint '" + j.name + "': no child link '" + j.child_link_name + "'");
      const urdf::Pose& o = j.parent_to_joint_origin_transform;
      const Frame at{f.body, f.p + f.R * vec3(o.position), f.R * rotation(o.rotation)};
      if (j.type == urdf::Joint::FIXED && (f.body == "world" || !has_mass(*child))) {
        // welded to the ground, or a massless frame: merged into its parent
        if (child->name == "world") fail("link 'world' is reserved for the fixed ground");
        out_.aliases[child->name] = Alias{f.body, at.p, at.R};
        walk(*child, at);
        continue;
      }
      add_body(*child, std::string("moved by the ") + (type_of(j) ? type_of(j) : "unknown") +
                           " joint '" + j.name + "'");
      add_joint(j, at);
      walk(*child, Frame{child->name});
    }
  }

  const urdf::ModelInterface& model_;
  UrdfScene& out_;
  std::vector<json> mimics_;
};

}  // namespace

UrdfScene urdf_scene_from_string(const std::string& xml, const std::string& file,
                                 bool floating_base) {
  UrdfScene out;
  out.file = file;
  Capture capture;
  urdf::ModelInterfaceSharedPtr model;
  // console_bridge's handler is process-wide: it is swapped only for the parse
  console_bridge::useOutputHandler(&capture);
  try {
    model = urdf::parseURDF(xml);
  } catch (const std::exception& e) {
    if (capture.first_error.empty()) capture.first_error = e.what();
  }
  console_bridge::restorePreviousOutputHandler();
  if (!model || !model->getRoot())
    throw SceneError(file, "",
                     "not a valid URDF: " + (capture.first_error.empty()
                                                 ? std::string("urdfdom could not parse it")
                                                 : capture.first_error));
  out.name = model->getName();
  Converter(*model, out).run(floating_base);
  return out;
}

UrdfScene urdf_scene(const std::string& path, bool floating_base) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SceneError(path, "", "cannot open the file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return urdf_scene_from_string(ss.str(), path, floating_base);
}

namespace {

// the joint called `name` in the URDF's part, or nullptr
json* find_joint(UrdfScene& u, const std::string& name) {
  for (json& c : u.doc["constraints"])
    if (c.contains("origin") && c["name"] == name) return &c;
  return nullptr;
}

// "q" or "qd" of the include: {joint: value}, checked here, then given to the joints
void include_values(const Node& list, UrdfScene& u, bool rates) {
  if (!list.json().is_object())
    list.fail("expected an object {joint name: value}, got " + type_name(list.json()));
  for (auto it = list.json().begin(); it != list.json().end(); ++it) {
    const Node v = list[it.key().c_str()];
    json* joint = find_joint(u, it.key());
    if (!joint)
      v.fail("no moving joint '" + it.key() + "' in " + u.file +
             " (fixed joints to massless links are merged away)");
    joint_values(v, joint_type((*joint)["type"].get<std::string>()), rates);
    (*joint)[rates ? "qd" : "q"] = v.json();
  }
}

}  // namespace

void follow_mimics(UrdfScene& u) {
  auto value = [](const json* j, const char* key) {
    if (!j || !j->contains(key)) return 0.0;
    const json& v = (*j)[key];
    return v.is_array() ? v[0].get<double>() : v.get<double>();
  };
  for (const json& c : u.doc["constraints"]) {
    if (c["type"] != "mimic") continue;
    json* follower = find_joint(u, c["joint"].get<std::string>());
    const json* leader = find_joint(u, c["leader"].get<std::string>());
    if (!follower || ((*follower)["type"] != "revolute" && (*follower)["type"] != "prismatic"))
      continue;  // the mimic's parser reports it
    const double m = c["multiplier"].get<double>();
    if (!follower->contains("q"))
      (*follower)["q"] = m * value(leader, "q") + c["offset"].get<double>();
    if (!follower->contains("qd")) (*follower)["qd"] = m * value(leader, "qd");
  }
}

UrdfScene include_urdf(const Node& include) {
  include.object({"urdf", "base", "q", "qd"});
  const Node file = include["urdf"];
  std::string path = file.string();
  const std::string& scene = include.file();
  const size_t slash = scene.rfind('/');
  if (!path.empty() && path[0] != '/' && slash != std::string::npos)
    path = scene.substr(0, slash + 1) + path;
  if (!is_urdf_path(path)) file.fail("expected a URDF file (.urdf), got '" + file.string() + "'");
  if (!std::ifstream(path)) file.fail("cannot open the URDF file '" + path + "'");
  bool floating = false;
  if (include.has("base")) {
    const std::string base = include["base"].string();
    if (base != "fixed" && base != "floating")
      include["base"].fail("unknown base '" + base + "'; expected fixed or floating");
    floating = base == "floating";
  }
  UrdfScene u = urdf_scene(path, floating);
  if (include.has("q")) include_values(include["q"], u, false);
  if (include.has("qd")) include_values(include["qd"], u, true);
  follow_mimics(u);
  return u;
}

}  // namespace appell
