// The MJCF converter's joints (scenes/mjcf_converter.hpp): a body's joints as the scene's,
// with their limits, springs, armature and friction; keyframes.
#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

// joint j's armature, damping, limits and dry friction (MuJoCo's frictionloss); `scale`
// takes its angles to radians
JointProperties Converter::joint_properties(const XMLElement& j, const std::string& type,
                                            double scale) {
  JointProperties props;
  props.armature = get1(j, "armature", 0);
  if (!(props.armature >= 0)) fail(j, "attribute 'armature': expected a number >= 0");
  props.damping = get1(j, "damping", 0);
  if (!(props.damping >= 0)) fail(j, "attribute 'damping': expected a number >= 0");
  const std::string limited = text(j, "limited", "auto");
  if (limited != "auto" && limited != "true" && limited != "false")
    fail(j, "attribute 'limited': expected auto, true or false, got '" + limited + "'");
  const bool ranged = has(j, "range");
  if (limited == "true" || (limited == "auto" && autolimits_ && ranged)) {
    if (!ranged) fail(j, "limited without a range");
    const auto r = get(j, "range", 2, 2);
    if (!(r[0] < r[1])) fail(j, "attribute 'range': expected lower < upper");
    if (type == "hinge" || type == "slide") {
      props.limited = true;
      props.lower = r[0] * scale;
      props.upper = r[1] * scale;
    } else {
      warn(j, "a range of a " + type + " joint not supported, ignored");
    }
  }
  // MuJoCo's dry friction (a soft constraint row bounded by frictionloss): the joint's
  // Coulomb friction, a bounded row of appell's contact stepper
  const double fl = get1(j, "frictionloss", 0);
  if (!(fl >= 0)) fail(j, "attribute 'frictionloss': expected a number >= 0");
  if (fl > 0) {
    if (type == "hinge" || type == "slide")
      props.friction = fl;
    else
      warn(j, "frictionloss of a " + type + " joint not supported, ignored");
  }
  return props;
}

// joint j's spring (stiffness, springref) as a joint_spring force
void Converter::joint_spring(const XMLElement& j, const std::string& type,
                             const std::string& name) {
  const double k = get1(j, "stiffness", 0);
  if (!(k >= 0)) fail(j, "attribute 'stiffness': expected a number >= 0");
  if (k > 0) {
    if (type == "hinge" || type == "slide") {
      const double scale = type == "hinge" ? angle(1) : 1.0;
      add_force(j,
                {{"type", "joint_spring"},
                 {"joint", name},
                 {"stiffness", k},
                 {"rest", get1(j, "springref", 0) * scale}},
                "passive");
    } else {
      warn(j, "stiffness of a " + type + " joint not supported, ignored");
    }
  }
}

// the joint of body element `body` (j; a weld when null) moving `child` on `at`, at
// `offset` in at's frame
void Converter::add_joint(const XMLElement& body, const XMLElement* j, const std::string& type,
                          const std::string& child, const Frame& at, const Vec3& offset) {
  const XMLElement& e = j ? *j : body;
  const std::string name = j ? joint_name(*j) : child + "_weld";
  if (j) ++joint_count_;
  const std::string defect = name_defect(name);
  if (!defect.empty()) fail(e, "the name " + defect);
  const JointType* t =
      type == "fixed" ? find_joint_type("fixed") : find_joint_type(JointFormat::Mjcf, type);
  if (!t) fail(e, "unknown joint type '" + type + "'; expected hinge, slide, ball or free");
  json joint = {{"name", name}, {"type", t->name()}, {"bodies", {at.body, child}}};
  const Vec3 p = at.f.p + at.f.R * offset;
  if (type == "free") {
    if (at.body != "world") fail(e, "a free joint must be in a top-level body");
    // MuJoCo's free coordinates are the body's pose in the world
    joint["origin"] = json::object();
    joint["q"] = {{"position", to_json(p)}, {"quaternion", quat_json(at.f.R)}};
    if (!out_.base.floating) {
      out_.base.floating = true;
      out_.base.free_joint = name;
      out_.base.root_link = child;
    }
  } else {
    joint["origin"] = {{"xyz", to_json(p)}, {"rpy", to_json(rpy_of(at.f.R))}};
  }
  JointProperties props;
  double ref = 0;
  if (j) {
    Vec3 axis = Vec3::UnitZ();
    if (t->syntax().axes == 1) {
      axis = vec(get(*j, "axis", 3, 3, {0, 0, 1}));
      if (!(axis.norm() > 1e-12)) fail(*j, "attribute 'axis': a zero direction");
      axis.normalize();
      joint["axis"] = to_json(axis);
    }
    const double scale = type == "hinge" ? angle(1) : 1.0;
    // MuJoCo's coordinate of a hinge or slide is qpos, the body as written at qpos0 =
    // ref: appell's q = 0 (the reference pose) is the body turned or slid by −ref, so that
    // q is qpos, and the limits, spring rest and keyframes need no shift
    if (type == "hinge" || type == "slide") ref = get1(*j, "ref", 0) * scale;
    if (ref != 0) {
      if (type == "hinge")
        joint["origin"]["rpy"] =
            to_json(rpy_of(at.f.R * Eigen::AngleAxisd(-ref, axis).toRotationMatrix()));
      else
        joint["origin"]["xyz"] = to_json(p - at.f.R * axis * ref);
      joint["q"] = ref;
    }
    props = joint_properties(*j, type, scale);
  }
  const std::string pointer = "/constraints/" + std::to_string(out_.doc["constraints"].size());
  if (j) {
    joints_[name] = JointInfo{
        type, out_.doc["constraints"].size(), props.limited, props.lower, props.upper, ref};
    joint_order_.push_back(name);
    joint_spring(*j, type, name);
  }
  joint_names_.insert(name);
  out_.located[pointer] = {where(e), path(e)};
  out_.properties[out_.file + "#" + pointer] = props;
  out_.doc["constraints"].push_back(joint);
}

// the <key name=keyframe_> (an error when there is none), its controls read
void Converter::find_keyframe() {
  if (keyframe_.empty()) return;
  for (const XMLElement* k : top_) {
    if (key_ || std::string(k->Name()) != "keyframe") continue;
    for (const XMLElement* e = k->FirstChildElement("key"); e; e = e->NextSiblingElement("key"))
      if (e->Attribute("name") && keyframe_ == e->Attribute("name")) {
        key_ = e;
        break;
      }
  }
  if (!key_) throw SceneError(file_, "", std::string(kNoKey) + keyframe_ + "\">");
  check_attributes(*key_);
  if (const char* c = key_->Attribute("ctrl")) key_ctrl_ = numbers(*key_, "ctrl", c, 0, 1u << 20);
}

// MuJoCo's qpos and qvel of the key as the joints' q and qd: a hinge's and a slide's
// value, a ball's quaternion, a free joint's position and quaternion; a ball's and a
// free joint's angular velocity is in the body frame in MuJoCo, in the parent's (the
// world's) in appell
void Converter::apply_keyframe(const XMLElement& key) {
  size_t nq = 0, nv = 0;
  for (const std::string& j : joint_order_) {
    const std::string& t = joints_.at(j).type;
    nq += t == "free" ? 7 : t == "ball" ? 4 : 1;
    nv += t == "free" ? 6 : t == "ball" ? 3 : 1;
  }
  const auto values = [&](const char* name, size_t n) {
    const char* v = key.Attribute(name);
    return v ? numbers(key, name, v, n, n) : std::vector<double>();
  };
  const std::vector<double> qpos = values("qpos", nq), qvel = values("qvel", nv);
  if (!key_ctrl_.empty() && key_ctrl_.size() != actuator_count_)
    fail(key, "attribute 'ctrl': expected " + std::to_string(actuator_count_) +
                  " numbers (one per actuator), got " + std::to_string(key_ctrl_.size()));
  size_t iq = 0, iv = 0;
  for (const std::string& j : joint_order_) {
    const JointInfo& info = joints_.at(j);
    json& c = out_.doc["constraints"][info.constraint];
    if (info.type == "hinge" || info.type == "slide") {
      if (!qpos.empty()) c["q"] = qpos[iq];
      if (!qvel.empty()) c["qd"] = qvel[iv];
      ++iq;
      ++iv;
      continue;
    }
    const size_t qo = info.type == "free" ? 3 : 0;
    Quat Q = Quat::Identity();
    if (!qpos.empty()) {
      Q = Quat(qpos[iq + qo], qpos[iq + qo + 1], qpos[iq + qo + 2], qpos[iq + qo + 3]);
      if (!(Q.norm() > 1e-12))
        fail(key, "attribute 'qpos': a zero quaternion for joint '" + j + "'");
      Q.normalize();
      const json quat = json::array({Q.w(), Q.x(), Q.y(), Q.z()});
      if (info.type == "free")
        c["q"] = {{"position", json::array({qpos[iq], qpos[iq + 1], qpos[iq + 2]})},
                  {"quaternion", quat}};
      else
        c["q"] = quat;
    }
    if (!qvel.empty()) {
      const Vec3 w = Q * Vec3(qvel[iv + qo], qvel[iv + qo + 1], qvel[iv + qo + 2]);
      if (info.type == "free")
        c["qd"] = {{"velocity", json::array({qvel[iv], qvel[iv + 1], qvel[iv + 2]})},
                   {"angular_velocity", to_json(w)}};
      else
        c["qd"] = to_json(w);
    }
    iq += qo + 4;
    iv += qo + 3;
  }
}

}  // namespace appell::mjcf_detail
