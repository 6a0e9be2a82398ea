#include "scenes/urdf.hpp"

#include <console_bridge/console.h>
#include <sys/stat.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <sstream>

#include "appell/inertia.hpp"
#include "appell/scene_document.hpp"
#include "scenes/shapes.hpp"
#include "scenes/xml_outline.hpp"

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

constexpr std::uint32_t kRobotGroup = 2;  // the filter group of a URDF's shapes

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

bool finite(const urdf::Pose& o) {
  return std::isfinite(o.position.x) && std::isfinite(o.position.y) &&
         std::isfinite(o.position.z) && std::isfinite(o.rotation.x) &&
         std::isfinite(o.rotation.y) && std::isfinite(o.rotation.z) && std::isfinite(o.rotation.w);
}

// URDF's name of j's type, as in the file
const char* urdf_type_name(const urdf::Joint& j) {
  switch (j.type) {
    case urdf::Joint::REVOLUTE:
      return "revolute";
    case urdf::Joint::CONTINUOUS:
      return "continuous";
    case urdf::Joint::PRISMATIC:
      return "prismatic";
    case urdf::Joint::FLOATING:
      return "floating";
    case urdf::Joint::PLANAR:
      return "planar";
    case urdf::Joint::FIXED:
      return "fixed";
    default:
      return "unknown";
  }
}

// whether j's type is one a mimic can couple
bool moves_one_coordinate(const urdf::Joint& j) {
  const JointType* t = find_joint_type(JointFormat::Urdf, urdf_type_name(j));
  return t && t->mimicable();
}

class Converter {
 public:
  Converter(const urdf::ModelInterface& model, UrdfScene& out) : model_(model), out_(out) {
    out_.doc = {{"bodies", json::array()}, {"constraints", json::array()}};
  }

  void run(bool floating_base) {
    check_names();
    check_tree();
    const urdf::Link& root = *model_.getRoot();
    out_.base.urdf = out_.file;
    out_.base.root_link = root.name;
    reached_.insert(root.name);
    if (floating_base) {
      if (!has_mass(root))
        fail("link '" + root.name +
             "' is the root of a floating base but has no <inertial> with mass > 0 (a URDF "
             "whose massless root holds a floating joint floats already: use base fixed)");
      add_body(root, "the floating base");
      json joint = {{"name", "root_joint"},
                    {"type", free_joint().name()},
                    {"bodies", {"world", root.name}},
                    {"origin", json::object()}};
      out_.doc["constraints"].push_back(joint);
      out_.base.floating = true;
      out_.base.free_joint = "root_joint";
      walk(root, Frame{root.name});
    } else {
      out_.aliases[root.name] = Alias{"world"};  // a fixed base: the root is the ground
      add_collisions(root, Frame{"world"});
      walk(root, Frame{"world"});
    }
    check_reached(root);
    for (const json& m : mimics_) out_.doc["constraints"].push_back(m);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw SceneError(out_.file, "", what); }
  static bool has_mass(const urdf::Link& l) { return l.inertial && l.inertial->mass > 0; }

  // every name the scene keeps follows the scene format's rule for names (they become
  // CSV columns and JSON keys): checked first, so that later messages can quote them
  void check_names() const {
    const std::string& robot = model_.getName();
    if (!valid_utf8(robot)) fail("<robot name='" + robot + "'>: the name is not valid UTF-8");
    for (unsigned char c : robot)
      if (c < 0x20 || c == 0x7f)
        fail("<robot name='" + robot + "'>: the name contains a control character");
    for (const auto& l : model_.links_) {
      const std::string defect = name_defect(l.first);
      if (!defect.empty()) fail("link '" + l.first + "': the name " + defect);
    }
    for (const auto& j : model_.joints_) {
      const std::string defect = name_defect(j.first);
      if (!defect.empty()) fail("joint '" + j.first + "': the name " + defect);
    }
  }

  // a tree: every joint joins two links that exist, and no link has two parent joints
  // (urdfdom keeps the last of two, and a walk from the root would go round a loop)
  void check_tree() {
    for (const auto& entry : model_.joints_) {
      const urdf::Joint& j = *entry.second;
      for (const std::string* link : {&j.parent_link_name, &j.child_link_name})
        if (!model_.getLink(*link))
          fail("joint '" + j.name + "': no link '" + *link + "' in the URDF");
      if (j.parent_link_name == j.child_link_name)
        fail("joint '" + j.name + "' joins link '" + j.child_link_name + "' to itself");
      const auto [it, fresh] = parent_.emplace(j.child_link_name, &j);
      if (!fresh)
        fail("link '" + j.child_link_name + "' has two parent joints '" + it->second->name +
             "' and '" + j.name +
             "'; a URDF is a tree (a scene can close a loop with a joint that has an anchor)");
    }
  }

  // links the walk from the root did not reach hang on a loop of joints
  void check_reached(const urdf::Link& root) const {
    for (const auto& entry : model_.links_) {
      if (reached_.count(entry.first)) continue;
      // up the parents until a link repeats (then it is on a loop) or there is no parent
      std::set<std::string> seen;
      std::string link = entry.first;
      while (seen.insert(link).second) {
        const auto p = parent_.find(link);
        if (p == parent_.end())
          fail("link '" + entry.first + "' is not connected to the root link '" + root.name + "'");
        link = p->second->parent_link_name;
      }
      std::string joints, links = "'" + link + "'";
      for (std::string l = link;;) {
        const urdf::Joint& j = *parent_.at(l);
        joints += (joints.empty() ? "'" : ", '") + j.name + "'";
        l = j.parent_link_name;
        links += " -> '" + l + "'";
        if (l == link) break;
      }
      fail("joints " + joints + " form a loop (links " + links + ") that the root link '" +
           root.name + "' does not reach; a URDF is a tree");
    }
  }

  // the link's body: mass, centre of mass and inertia in the link frame
  void add_body(const urdf::Link& l, const std::string& role) {
    if (l.name == "world") fail("link 'world' is reserved for the fixed ground; rename it");
    if (!has_mass(l))
      fail("link '" + l.name + "' is " + role + " but has no <inertial> with mass > 0");
    const urdf::Inertial& in = *l.inertial;
    if (!std::isfinite(in.mass)) fail("link '" + l.name + "': <mass> is not finite");
    if (!finite(in.origin)) fail("link '" + l.name + "': <inertial> <origin> is not finite");
    Mat3 J;
    J << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    // the tensor is given in the <inertial> frame: rotate it into the link frame
    const Mat3 R = rotation(in.origin.rotation);
    const Mat3 J_link = R * J * R.transpose();
    // zero or degenerate is fine on a link welded to links with mass (compile() merges
    // them; a sensor's or a dummy base's link); the scene reports the others
    const std::string defect = inertia_semidefinite_defect(J_link);
    if (!defect.empty()) fail("link '" + l.name + "': <inertia>: " + defect);
    json rows = json::array();
    for (int r = 0; r < 3; ++r) rows.push_back(to_json(J_link.row(r).transpose()));
    out_.doc["bodies"].push_back({{"name", l.name},
                                  {"mass", in.mass},
                                  {"inertia", {{"matrix", rows}}},
                                  {"com", to_json(vec3(in.origin.position))}});
    body_index_[l.name] = out_.doc["bodies"].size() - 1;
    add_collisions(l, Frame{l.name});
  }

  // the <collision> elements of link l, whose frame is f, as shapes of f's body (the world
  // for "world"), in that body's link frame; then its <visual> elements as shapes only
  // drawn ("visual": true, named LINK/visual[/i]): they never collide
  void add_collisions(const urdf::Link& l, const Frame& f) {
    add_geometry(l, f, l.collision_array, false);
    add_geometry(l, f, l.visual_array, true);
  }

  template <class Element>
  void add_geometry(const urdf::Link& l, const Frame& f,
                    const std::vector<std::shared_ptr<Element>>& elements, bool visual) {
    json* shapes = nullptr;
    if (f.body == "world") {
      if (!out_.doc.contains("shapes")) out_.doc["shapes"] = json::array();
      shapes = &out_.doc["shapes"];
    } else {
      json& body = out_.doc["bodies"][body_index_.at(f.body)];
      if (!body.contains("shapes")) body["shapes"] = json::array();
      shapes = &body["shapes"];
    }
    for (size_t i = 0; i < elements.size(); ++i) {
      const Element* c = elements[i].get();
      if (!c || !c->geometry) continue;
      const std::string what = "link '" + l.name + "': " + (visual ? "<visual>" : "<collision>");
      // a <visual> is only drawn: one the model cannot draw is left out, never an error
      bool bad = false;
      if (!finite(c->origin)) {
        if (visual) continue;
        fail(what + " <origin> is not finite");
      }
      json shape = {{"name", l.name + (visual ? "/visual" : "") +
                                 (elements.size() > 1 ? "/" + std::to_string(i) : "")}};
      const urdf::Geometry& g = *c->geometry;
      const auto positive = [&](double v, const char* attr) {
        if (!(std::isfinite(v) && v > 0)) {
          if (visual)
            bad = true;
          else
            fail(what + ": " + attr + " must be finite and > 0, got " + std::to_string(v));
        }
        return v;
      };
      switch (g.type) {
        case urdf::Geometry::SPHERE:
          shape["type"] = "sphere";
          shape["radius"] = positive(static_cast<const urdf::Sphere&>(g).radius, "<sphere radius>");
          break;
        case urdf::Geometry::BOX: {
          const urdf::Vector3& d = static_cast<const urdf::Box&>(g).dim;
          shape["type"] = "box";
          shape["size"] = {positive(d.x, "<box size>"), positive(d.y, "<box size>"),
                           positive(d.z, "<box size>")};
          break;
        }
        case urdf::Geometry::CYLINDER: {
          const auto& cyl = static_cast<const urdf::Cylinder&>(g);
          shape["type"] = "cylinder";
          shape["radius"] = positive(cyl.radius, "<cylinder radius>");
          shape["length"] = positive(cyl.length, "<cylinder length>");
          break;
        }
        case urdf::Geometry::MESH: {
          const auto& mesh = static_cast<const urdf::Mesh&>(g);
          const std::string path = find_mesh(mesh.filename);
          if (path.empty()) {
            // a missing <visual> mesh changes no motion: the report draws the collision
            // shapes instead, without a warning (published URDFs often come without them)
            if (!visual) out_.missing_meshes.push_back(what + " mesh '" + mesh.filename + "'");
            continue;
          }
          shape["type"] = "mesh";
          shape["file"] = path;
          shape["scale"] = {positive(mesh.scale.x, "<mesh scale>"),
                            positive(mesh.scale.y, "<mesh scale>"),
                            positive(mesh.scale.z, "<mesh scale>")};
          break;
        }
        default:
          if (visual) continue;
          fail(what + ": unknown geometry");
      }
      if (bad) continue;
      const Vec3 p = f.p + f.R * vec3(c->origin.position);
      const Quat q(f.R * rotation(c->origin.rotation));
      shape["position"] = to_json(p);
      shape["orientation"] = {{"quaternion", {q.w(), q.x(), q.y(), q.z()}}};
      if (visual) {
        shape["visual"] = true;
        shapes->push_back(shape);
        continue;
      }
      // a robot does not collide with itself (its links overlap at rest where a published
      // model's collision geometry is coarse; Gazebo's self_collide is false by default):
      // group 2, and a mask without it
      shape["group"] = kRobotGroup;
      shape["mask"] = 0xffffffffu & ~kRobotGroup;
      shapes->push_back(shape);
    }
  }

  // A <mesh filename>: relative to the URDF's folder, absolute, file://, or
  // package://PKG/REST found as PKG/REST in the URDF's folder or one above it (or REST in
  // a folder above named PKG).  "" when there is no such file.
  std::string find_mesh(const std::string& name) const {
    const auto exists = [](std::string& p) {
      struct stat st;
      if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
      char buffer[PATH_MAX];
      if (::realpath(p.c_str(), buffer)) p = buffer;  // the scene reads it as it is
      return true;
    };
    const size_t slash = out_.file.rfind('/');
    std::string dir = slash == std::string::npos ? "." : out_.file.substr(0, slash);
    if (dir.empty()) dir = "/";
    const std::string package = "package://", file = "file://";
    if (name.compare(0, file.size(), file) == 0) {
      std::string p = name.substr(file.size());
      return exists(p) ? p : "";
    }
    if (name.compare(0, package.size(), package) != 0) {
      std::string p = !name.empty() && name[0] == '/' ? name : dir + "/" + name;
      return exists(p) ? p : "";
    }
    const std::string rest = name.substr(package.size());
    const size_t cut = rest.find('/');
    if (cut == std::string::npos) return "";
    const std::string pkg = rest.substr(0, cut), inside = rest.substr(cut + 1);
    // up the folders of the URDF (made absolute), to the root
    char buffer[PATH_MAX];
    std::string at = ::realpath(dir.c_str(), buffer) ? std::string(buffer) : dir;
    for (int up = 0; up < 64; ++up) {
      std::string p = at + "/" + rest;
      if (exists(p)) return p;
      const size_t s = at.rfind('/');
      const std::string base = s == std::string::npos ? at : at.substr(s + 1);
      p = at + "/" + inside;
      if (base == pkg && exists(p)) return p;
      if (s == std::string::npos || at == "/") break;
      at = s == 0 ? "/" : at.substr(0, s);
    }
    return "";
  }

  // the joint type that answers to it, or nullptr
  static const JointType* type_of(const urdf::Joint& j) {
    return find_joint_type(JointFormat::Urdf, urdf_type_name(j));
  }

  // <dynamics> and <limit> of joint j
  JointProperties properties(const urdf::Joint& j) const {
    JointProperties props;
    if (j.dynamics) {
      props.damping = j.dynamics->damping;
      props.friction = j.dynamics->friction;
      if (!(std::isfinite(props.damping) && props.damping >= 0) ||
          !(std::isfinite(props.friction) && props.friction >= 0))
        fail("joint '" + j.name + "': <dynamics> damping and friction must be finite and >= 0");
    }
    if (j.limits && (j.type == urdf::Joint::REVOLUTE || j.type == urdf::Joint::PRISMATIC)) {
      props.limited = true;
      props.lower = j.limits->lower;
      props.upper = j.limits->upper;
      props.effort = j.limits->effort;
      props.velocity = j.limits->velocity;
      // an empty range would hold the joint nowhere (the scene's "limit" and MJCF's range
      // refuse it too)
      if (!(props.lower <= props.upper)) {
        std::ostringstream os;
        os << "joint '" << j.name << "': <limit> lower " << props.lower << " is above upper "
           << props.upper << "; expected lower <= upper";
        fail(os.str());
      }
    }
    return props;
  }

  // the joint j, from body `parent` at (p, R) in its link frame
  void add_joint(const urdf::Joint& j, const Frame& at) {
    const JointType* type = type_of(j);
    if (!type)
      fail("joint '" + j.name +
           "': unknown type; expected revolute, continuous, prismatic, fixed, floating or planar");
    json joint = {{"name", j.name},
                  {"type", type->name()},
                  {"bodies", {at.body, j.child_link_name}},
                  {"origin", {{"xyz", to_json(at.p)}, {"rpy", to_json(rpy_of(at.R))}}}};
    if (type->syntax().axes == 1) {
      const Vec3 axis = vec3(j.axis);
      if (!(axis.norm() > 1e-12) || !axis.allFinite())
        fail("joint '" + j.name + "': <axis> must be a nonzero direction");
      joint["axis"] = to_json(axis);
    }
    if (!type->holds() && at.body == "world" && !out_.base.floating) {
      out_.base.floating = true;
      out_.base.free_joint = j.name;
    }
    const std::string pointer = "/constraints/" + std::to_string(out_.doc["constraints"].size());
    out_.properties[out_.file + "#" + pointer] = properties(j);
    out_.doc["constraints"].push_back(joint);
    if (j.mimic) add_mimic(j);
  }

  // <mimic joint multiplier offset> of joint j: both joints move one coordinate
  void add_mimic(const urdf::Joint& j) {
    const urdf::JointMimic& mimic = *j.mimic;
    const std::string& leader = mimic.joint_name;
    const std::string what = "joint '" + j.name + "': <mimic joint='" + leader + "'>: ";
    // a fixed joint has no coordinate to follow with: its <mimic> says nothing (robots as
    // published keep the tag on grippers they weld shut, as Talos's reduced models do;
    // Pinocchio and MuJoCo load them), so it is left out.  The leader stays free.
    if (j.type == urdf::Joint::FIXED) return;
    if (!moves_one_coordinate(j))
      fail(what + "a " + urdf_type_name(j) +
           " joint cannot mimic; a mimic joins revolute, continuous or prismatic joints");
    const urdf::JointConstSharedPtr lead = model_.getJoint(leader);
    if (!lead) fail(what + "no joint '" + leader + "' in the URDF");
    if (leader == j.name) fail(what + "a joint cannot mimic itself");
    if (!moves_one_coordinate(*lead))
      fail(what + "mimic of " + urdf_type_name(*lead) + " joint '" + leader +
           "'; a mimic joins revolute, continuous or prismatic joints");
    if (!std::isfinite(mimic.multiplier) || !std::isfinite(mimic.offset))
      fail(what + "multiplier and offset must be finite");
    const std::string name = j.name + "_mimic";
    if (model_.getJoint(name))
      fail(what + "its constraint is named '" + name + "', which is another joint's name");
    mimics_.push_back({{"name", name},
                       {"type", "mimic"},
                       {"joint", j.name},
                       {"leader", leader},
                       {"multiplier", mimic.multiplier},
                       {"offset", mimic.offset}});
  }

  // the joints below link l, whose frame is `f`, base to tip: a stack, not recursion, so
  // that a chain of 10,000 links needs no deeper stack than one of 2 (the order is the
  // recursion's: depth first, children in the URDF's order)
  void walk(const urdf::Link& l, const Frame& f) {
    struct Pending {
      const urdf::Joint* joint;
      Frame parent;  // the frame of the joint's parent link
    };
    std::vector<Pending> stack;
    const auto push_children = [&](const urdf::Link& link, const Frame& frame) {
      for (auto it = link.child_joints.rbegin(); it != link.child_joints.rend(); ++it)
        stack.push_back({it->get(), frame});
    };
    push_children(l, f);
    while (!stack.empty()) {
      const Pending p = stack.back();
      stack.pop_back();
      const urdf::Joint& j = *p.joint;
      const urdf::LinkConstSharedPtr child = model_.getLink(j.child_link_name);
      reached_.insert(child->name);
      const urdf::Pose& o = j.parent_to_joint_origin_transform;
      if (!finite(o)) fail("joint '" + j.name + "': <origin> is not finite");
      const Frame& pf = p.parent;
      const Frame at{pf.body, pf.p + pf.R * vec3(o.position), pf.R * rotation(o.rotation)};
      if (j.type == urdf::Joint::FIXED && (pf.body == "world" || !has_mass(*child))) {
        // welded to the ground, or a massless frame: merged into its parent
        if (child->name == "world") fail("link 'world' is reserved for the fixed ground");
        out_.aliases[child->name] = Alias{pf.body, at.p, at.R};
        add_collisions(*child, at);
        push_children(*child, at);
        continue;
      }
      add_body(*child, std::string("moved by the ") +
                           (type_of(j) ? type_of(j)->name() : "unknown") + " joint '" + j.name +
                           "'");
      add_joint(j, at);
      push_children(*child, Frame{child->name});
    }
  }

  const urdf::ModelInterface& model_;
  UrdfScene& out_;
  std::vector<json> mimics_;
  std::map<std::string, const urdf::Joint*> parent_;  // link → its parent joint
  std::set<std::string> reached_;                     // links the walk reached
  std::map<std::string, size_t> body_index_;          // body name → its entry in doc
};

// urdfdom's links hold their children by shared_ptr: the last reference to the root
// would free the chain link by link, one nested destructor a link.  Dropping the links
// between links first lets the model's map free each on its own.
struct Unlink {
  urdf::ModelInterface* model;
  ~Unlink() {
    if (!model) return;
    for (auto& l : model->links_) {
      l.second->child_links.clear();
      l.second->child_joints.clear();
    }
  }
};

const char kMjcf[] =
    "an MJCF (MuJoCo XML, root element <mujoco>) is included with \"include\": {\"mjcf\": ...}";

}  // namespace

std::string unsupported_format(const std::string& text) {
  if (first_significant_char(text) != '<') return "";
  const XmlOutline o = xml_outline(text);
  if (o.root == "mujoco") return kMjcf;
  if (o.root.empty() || o.root == "robot") return "";
  const std::string root = o.root.size() > 40 ? o.root.substr(0, 40) + "..." : o.root;
  return "an XML file whose root element is <" + root +
         "> is not a format appell reads; appell reads JSON scenes and URDF (root element "
         "<robot>)";
}

bool is_urdf_text(const std::string& text, const std::string& file) {
  const char c = first_significant_char(text);
  if (c == '<') {
    const std::string unsupported = unsupported_format(text);
    if (!unsupported.empty()) throw SceneError(file, "", unsupported);
    return true;
  }
  return c != '{' && c != '[' && is_urdf_path(file);
}

UrdfScene urdf_scene_from_string(const std::string& xml, const std::string& file,
                                 bool floating_base) {
  // what tinyxml2 would recurse on, bounded first
  const std::string unsupported = unsupported_format(xml);
  if (!unsupported.empty()) throw SceneError(file, "", unsupported);
  const XmlLimits limits;
  const std::string defect = outline_defect(xml_outline(xml, limits), limits);
  if (!defect.empty()) throw SceneError(file, "", defect);
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
  const Unlink unlink{model.get()};
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
  UrdfScene u = urdf_scene_from_string(read_scene_text(path), path, floating_base);
  u.files.insert(u.files.begin(), path);
  return u;
}

std::string urdf_element(const UrdfScene& u, const std::string& pointer) {
  // "/bodies/<i>/..." or "/constraints/<i>/...": the entry the converter wrote
  for (const char* list : {"bodies", "constraints"}) {
    const std::string prefix = "/" + std::string(list) + "/";
    if (pointer.compare(0, prefix.size(), prefix) != 0) continue;
    const size_t end = pointer.find('/', prefix.size());
    const std::string index = pointer.substr(prefix.size(), end - prefix.size());
    if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos) return "";
    const size_t i = std::stoul(index);
    const json& entries = u.doc[list];
    if (i >= entries.size()) return "";
    const json& e = entries[i];
    if (std::string(list) == "bodies") return "link '" + e["name"].get<std::string>() + "'";
    if (e["type"] == "mimic")
      return "joint '" + e["joint"].get<std::string>() + "': <mimic joint='" +
             e["leader"].get<std::string>() + "'>";
    return "joint '" + e["name"].get<std::string>() + "'";
  }
  return "";
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

void include_joint_values(const Node& include, UrdfScene& u) {
  if (include.has("q")) include_values(include["q"], u, false);
  if (include.has("qd")) include_values(include["qd"], u, true);
}

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
    const JointType* type =
        follower ? find_joint_type((*follower)["type"].get<std::string>()) : nullptr;
    if (!type || !type->mimicable()) continue;  // the mimic's parser reports it
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
  // a bounded read of a regular file, then the format by content, whatever the name
  std::string text;
  try {
    text = read_scene_text(path);
  } catch (const SceneError& e) {
    if (e.message() == "cannot open the file")
      file.fail("cannot open the URDF file '" + path + "'");
    file.fail("cannot read the URDF file '" + path + "': " + e.message());
  }
  const std::string unsupported = unsupported_format(text);
  if (!unsupported.empty()) file.fail("'" + path + "': " + unsupported);
  const char first = first_significant_char(text);
  if (first == '{' || first == '[')
    file.fail("'" + path + "' is JSON; a scene includes a URDF (XML, root element <robot>)");
  if (first != '<' && !is_urdf_path(path))
    file.fail("'" + path + "' is not XML; a scene includes a URDF (XML, root element <robot>)");
  bool floating = false;
  if (include.has("base")) {
    const std::string base = include["base"].string();
    if (base != "fixed" && base != "floating")
      include["base"].fail("unknown base '" + base + "'; expected fixed or floating");
    floating = base == "floating";
  }
  UrdfScene u = urdf_scene_from_string(text, path, floating);
  u.files.insert(u.files.begin(), path);
  u.base.chosen = include.has("base");
  include_joint_values(include, u);
  follow_mimics(u);
  return u;
}

}  // namespace appell
