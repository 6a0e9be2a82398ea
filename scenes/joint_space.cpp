#include "scenes/joint_space.hpp"

#include <cmath>
#include <unordered_map>

#include "appell/joint.hpp"
#include "appell/tree.hpp"
#include "scenes/scene_parts.hpp"

namespace appell {

Mat3 rpy_rotation(const Vec3& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vec3::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Vec3::UnitX()))
      .toRotationMatrix();
}

std::string placement_key(const Node& joint) {
  return joint.file() + "#" + joint.pointer();
}

std::shared_ptr<const JointType> configured_type(const Node& n, const JointType& type) {
  const char* key = type.syntax().parameter;
  if (!key) return std::shared_ptr<const JointType>(std::shared_ptr<void>(), &type);  // not owned
  const Node v = n[key];
  try {
    return type.with_parameter(v.number());
  } catch (const std::invalid_argument& e) {
    v.fail(e.what());
  }
}

namespace {

void read_free(const Node& n, bool rates, std::vector<double>& v) {
  const char* first = rates ? "velocity" : "position";
  const char* second = rates ? "angular_velocity" : "quaternion";
  n.object({first, second});
  if (n.has(first)) {
    const Vec3 p = n[first].vec3();
    for (int k = 0; k < 3; ++k) v[k] = p(k);
  }
  if (rates) {
    if (n.has(second)) {
      const Vec3 w = n[second].vec3();
      for (int k = 0; k < 3; ++k) v[3 + k] = w(k);
    }
    return;
  }
  v[3] = 1.0;
  if (n.has(second)) {
    const auto e = n[second].array(4);
    for (int k = 0; k < 4; ++k) v[3 + k] = e[k].number();
  }
}

}  // namespace

std::vector<double> joint_values(const Node& n, const JointType& type, bool rates) {
  const int count = rates ? type.nu() : type.nq();
  const std::string kind = std::string("a ") + type.name() + " joint";
  if (count == 0)
    n.fail(kind + " has no " + (rates ? "rates" : "coordinates") + "; remove this key");
  std::vector<double> v(count, 0.0);
  // [x, y, z, qw, qx, qy, qz], a pose: also {position, quaternion}
  const bool free = type.quaternion() == 3 && type.nq() == 7;
  if (n.json().is_number() && count == 1) {
    v[0] = n.number();
  } else if (n.json().is_object() && free) {
    read_free(n, rates, v);
  } else if (n.json().is_array() && static_cast<int>(n.json().size()) == count) {
    for (int k = 0; k < count; ++k) v[k] = n.at(k).number();
  } else {
    n.fail(kind + " takes " +
           (count == 1 ? std::string("one number") : std::to_string(count) + " numbers") +
           (free ? (rates ? " [vx, vy, vz, wx, wy, wz] or {velocity, angular_velocity}"
                          : " [x, y, z, qw, qx, qy, qz] or {position, quaternion}")
                 : "") +
           ", got " + type_name(n.json()) +
           (n.json().is_array() ? " of " + std::to_string(n.json().size()) : ""));
  }
  const int qo = type.quaternion();
  if (!rates && qo >= 0) {
    const double norm = Eigen::Map<const Eigen::Vector4d>(v.data() + qo).stableNorm();
    if (!(norm > 0)) n.fail("the quaternion [w, x, y, z] must be nonzero");
    type.normalize(v.data());
  }
  return v;
}

namespace {

// One joint with an "origin", as found.
struct Pending {
  Node joint;
  std::shared_ptr<const JointType> type;  // configured_type()
  int parent, child;
  Vec3 xyz;
  Mat3 R;
  Vec3 axis = Vec3::UnitZ(), axis2 = Vec3::UnitY();  // in the joint frame
};

// the body named at n; `via` receives the frame of a merged link in its body (else the
// identity), and is null where a merged link cannot stand (a joint's child)
using BodyIndex = std::unordered_map<std::string, int>;  // name → index in bodies

int resolve(const Node& n, const BodyIndex& bodies, const Aliases& aliases, Alias* via) {
  std::string name = n.string();
  const auto a = aliases.find(name);
  if (a != aliases.end()) {
    if (!via)
      n.fail("link '" + name + "' is merged into '" + a->second.body +
             "' (fixed to it, or to the ground); a joint cannot move it");
    *via = a->second;
    name = a->second.body;
  }
  if (name == "world") return kWorld;
  const auto b = bodies.find(name);
  if (b != bodies.end()) return b->second;
  n.fail("unknown body '" + name + "'; expected a body name or 'world'");
}

void read_axes(const Node& n, Pending& p) {
  const int axes = p.type->syntax().axes;
  if (axes == 1) p.axis = n["axis"].unit_vec3();
  if (axes != 2) return;
  const auto e = n["axes"].array(2);
  p.axis = e[0].unit_vec3();
  p.axis2 = e[1].unit_vec3();
  if (std::abs(p.axis.dot(p.axis2)) > 1e-6)
    n["axes"].fail("the two axes of a " + std::string(p.type->name()) +
                   " joint must be perpendicular, got cosine " +
                   std::to_string(p.axis.dot(p.axis2)));
}

// the joint at n, which has an "origin"
Pending pending_joint(const Node& n, const BodyIndex& bodies, const Aliases& aliases) {
  const std::string type = n["type"].string();
  const JointType* jt = find_joint_type(type);
  if (!jt) n["origin"].fail("only joints place a body; '" + type + "' is not a joint type");
  if (n.has("anchor"))
    n["anchor"].fail("a joint with an origin is anchored at its origin; remove anchor");
  const Node origin = n["origin"];
  origin.object({"xyz", "rpy"});
  const auto e = n["bodies"].array(2);
  Alias via;  // a parent that is a merged link: the origin starts from its frame
  const int parent = resolve(e[0], bodies, aliases, &via);
  const Vec3 xyz = origin.has("xyz") ? origin["xyz"].vec3() : Vec3::Zero();
  const Mat3 R = origin.has("rpy") ? rpy_rotation(origin["rpy"].vec3()) : Mat3::Identity();
  Pending p{n,
            configured_type(n, *jt),
            parent,
            resolve(e[1], bodies, aliases, nullptr),
            via.p + via.R * xyz,
            via.R * R};
  if (p.child == kWorld) e[1].fail("a joint with an origin places its child; 'world' cannot move");
  if (p.parent == p.child) n["bodies"].fail("the two bodies must differ");
  read_axes(n, p);
  return p;
}

// the reference pose of the joint's child and its Joint frames (at the reference, q = 0)
JointPlacement reference_placement(const Pending& j, const std::vector<SceneBody>& bodies,
                                   const std::vector<BodyState>& ref) {
  JointPlacement pl;
  pl.parent = j.parent;
  pl.child = j.child;
  pl.parent0 = j.parent == kWorld ? BodyState{} : ref[j.parent];
  const Vec3 com_P = j.parent == kWorld ? Vec3::Zero() : bodies[j.parent].com;
  // the parent's link frame, then the joint frame at the origin in it
  const Vec3 x_L = pl.parent0.x - pl.parent0.Q * com_P;
  const Mat3 Q_J = pl.parent0.Q * j.R;
  pl.anchor = x_L + pl.parent0.Q * j.xyz;
  pl.child0.Q = bodies[j.child].body.rigid() ? Q_J : Mat3::Identity();
  pl.child0.x = pl.anchor + Q_J * bodies[j.child].com;
  pl.axis = Q_J * j.axis;
  pl.axis2 = Q_J * j.axis2;
  return pl;
}

// the joint's "q" and "qd" into pl (neutral and zero when absent)
void initial_coordinates(const Pending& j, JointPlacement& pl) {
  pl.q.assign(j.type->nq(), 0.0);
  pl.u.assign(j.type->nu(), 0.0);
  j.type->neutral(pl.q.data());
  if (j.joint.has("q")) pl.q = joint_values(j.joint["q"], *j.type, false);
  if (j.joint.has("qd")) pl.u = joint_values(j.joint["qd"], *j.type, true);
}

// the child's state at t = 0: its parent's initial state moved through the joint by pl.q,
// pl.u (J1, J2); an output of the joint's coordinates, for the scene's other parts
void initial_state(const Pending& j, const JointPlacement& pl, SceneBody& child,
                   const BodyState& parent) {
  const Joint joint("placement", *j.type, j.parent, j.child, pl.parent0, pl.child0, pl.anchor,
                    pl.axis, pl.axis2);
  TreeJoint t;
  t.type = j.type.get();
  t.nq = j.type->nq();
  t.nu = j.type->nu();
  t.frames = joint.frames();
  BodyState C;
  JointMotion jm;
  Vec6 V_J;
  joint_kinematics(t, parent, pl.q.data(), pl.u.data(), C, jm, V_J);  // (J1, J2)
  Body& b = child.body;
  b.position = C.x;
  b.velocity = C.v;
  if (b.rigid()) {
    b.orientation = Quat(C.Q).normalized();
    b.angular_velocity = C.w;
  }
}

}  // namespace

Placements place_bodies(const std::vector<Node>& constraint_lists, std::vector<SceneBody>& bodies,
                        const Aliases& aliases) {
  std::vector<Pending> pending;
  std::vector<int> placer(bodies.size(), -1);
  BodyIndex index;  // names looked up in O(1): a chain of 10,000 links has 20,000 of them
  for (size_t i = 0; i < bodies.size(); ++i)
    index.emplace(bodies[i].body.name, static_cast<int>(i));
  for (const Node& list : constraint_lists)
    for (size_t i = 0; i < list.size(); ++i) {
      const Node n = list.at(i);
      if (!n.json().is_object() || !n.has("origin")) continue;
      Pending p = pending_joint(n, index, aliases);
      if (placer[p.child] >= 0)
        n["origin"].fail("body '" + bodies[p.child].body.name +
                         "' is already placed by the joint at " +
                         pending[placer[p.child]].joint.pointer() +
                         "; a body has one placing joint (a joint closing a loop has an anchor)");
      const SceneBody& c = bodies[p.child];
      for (const char* k : {"position", "orientation", "velocity", "angular_velocity"})
        if (c.node.has(k))
          c.node[k].fail("body '" + c.body.name + "' is placed by the joint at " + n.pointer() +
                         " (origin); give its initial state as the joint's q and qd instead");
      placer[p.child] = static_cast<int>(pending.size());
      pending.push_back(p);
    }
  for (size_t b = 0; b < bodies.size(); ++b)
    if (placer[b] < 0 && bodies[b].node.has("com"))
      bodies[b].node["com"].fail(
          "com is the centre of mass in a link frame, for a body placed by a joint with an origin; "
          "a body with a world position has its centre of mass at that position");

  // parents before children, a cycle is an error: for each joint, up its chain of
  // unplaced ancestors, then down placing them (a loop, not recursion, so that a chain of
  // 10,000 links needs no deeper stack than a short one)
  std::vector<BodyState> ref(bodies.size());
  for (size_t b = 0; b < bodies.size(); ++b) ref[b] = bodies[b].body.initial_state();
  std::vector<char> mark(bodies.size(), 0);  // 0 not yet, 1 in progress, 2 placed
  std::vector<int> chain;
  Placements out;
  for (const Pending& first : pending) {
    chain.clear();
    for (int c = first.child; mark[c] != 2;) {
      const Pending& j = pending[placer[c]];
      if (mark[c] == 1)
        j.joint["bodies"].fail("the joints with an origin form a cycle through body '" +
                               bodies[c].body.name + "'; a loop needs one joint with an anchor");
      mark[c] = 1;
      chain.push_back(c);
      if (j.parent == kWorld || placer[j.parent] < 0) break;
      c = j.parent;
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const int c = *it;
      const Pending& j = pending[placer[c]];
      JointPlacement pl = reference_placement(j, bodies, ref);
      initial_coordinates(j, pl);
      ref[c] = pl.child0;
      const BodyState parent =
          j.parent == kWorld ? BodyState{} : bodies[j.parent].body.initial_state();
      initial_state(j, pl, bodies[c], parent);
      out[placement_key(j.joint)] = pl;
      mark[c] = 2;
    }
  }
  return out;
}

void parse_joint_limit(const Node& n, Joint& joint) {
  if (n.has("friction")) {  // Coulomb friction at the joint: |τ| ≤ friction (N·m or N)
    JointProperties p = joint.properties();
    p.friction = n["friction"].nonnegative();
    joint.set_properties(p);
  }
  if (!n.has("limit")) return;
  const Node l = n["limit"];
  l.object({"lower", "upper"});
  JointProperties p = joint.properties();
  p.limited = true;
  p.lower = l["lower"].number();
  p.upper = l["upper"].number();
  if (!(p.lower <= p.upper)) l.fail("lower must be <= upper");
  joint.set_properties(p);
}

void parse_joint_armature(const Node& n, Joint& joint) {
  if (!n.has("armature")) return;
  JointProperties p = joint.properties();
  p.armature = n["armature"].nonnegative();
  joint.set_properties(p);
}

std::shared_ptr<const Constraint> placed_joint(const Node& n, const std::string& name,
                                               const SceneContext& ctx, const JointType& type) {
  const JointSyntax syntax = type.syntax();
  std::vector<std::string> keys = {"name", "type", "bodies", "origin", "q", "qd"};
  if (type.nq() == 1 && type.nu() == 1) {
    keys.push_back("limit");
    keys.push_back("friction");
  }
  if (type.nu() > 0) keys.push_back("armature");
  if (syntax.axes == 1) keys.push_back("axis");
  if (syntax.axes == 2) keys.push_back("axes");
  if (syntax.parameter) keys.push_back(syntax.parameter);
  n.object(keys);
  if (!ctx.placements || !ctx.placements->count(placement_key(n)))
    n.fail("internal: the joint was not placed before it was parsed");
  const JointPlacement& pl = ctx.placements->at(placement_key(n));
  const auto e = n["bodies"].array(2);
  if (syntax.rigid)
    for (int k = 0; k < 2; ++k)
      ctx.rigid_body(e[k], "a " + std::string(type.name()) + " joint needs rigid bodies");
  auto joint = std::make_shared<Joint>(name, configured_type(n, type), pl.parent, pl.child,
                                       pl.parent0, pl.child0, pl.anchor, pl.axis, pl.axis2);
  joint->set_initial_coordinates(pl.q, pl.u);  // the State starts from them (compile())
  if (ctx.joint_properties && ctx.joint_properties->count(placement_key(n)))
    joint->set_properties(ctx.joint_properties->at(placement_key(n)));
  parse_joint_limit(n, *joint);
  parse_joint_armature(n, *joint);
  return joint;
}

}  // namespace appell
