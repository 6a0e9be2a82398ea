// The URDF converter's walk (scenes/urdf_converter.hpp): the tree and its names checked,
// then each link a body (or merged into its parent), each joint the scene's, mimics.
#include "scenes/urdf_converter.hpp"

#include <cmath>
#include <sstream>

#include "appell/inertia.hpp"

namespace appell::urdf_detail {

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

void Converter::run(bool floating_base) {
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

// every name the scene keeps follows the scene format's rule for names (they become
// CSV columns and JSON keys): checked first, so that later messages can quote them
void Converter::check_names() const {
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
void Converter::check_tree() {
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
void Converter::check_reached(const urdf::Link& root) const {
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
void Converter::add_body(const urdf::Link& l, const std::string& role) {
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

// <dynamics> and <limit> of joint j
JointProperties Converter::properties(const urdf::Joint& j) const {
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
void Converter::add_joint(const urdf::Joint& j, const Frame& at) {
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
void Converter::add_mimic(const urdf::Joint& j) {
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
void Converter::walk(const urdf::Link& l, const Frame& f) {
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
    add_body(*child, std::string("moved by the ") + (type_of(j) ? type_of(j)->name() : "unknown") +
                         " joint '" + j.name + "'");
    add_joint(j, at);
    push_children(*child, Frame{child->name});
  }
}

}  // namespace appell::urdf_detail
