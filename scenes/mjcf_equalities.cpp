// The MJCF converter's <equality> (mimics, loops closed by a joint) and <contact>
// exclusions (scenes/mjcf_converter.hpp).
#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

// <equality>: <joint joint1 joint2 polycoef> with a linear polynomial is a mimic
// (q1 = c0 + c1 q2); <connect> a spherical joint closing a loop at the anchor (body1's
// frame, put in the world at qpos0); <weld> a fixed joint closing a loop at the bodies'
// relative pose at qpos0.  MuJoCo's are soft (solref, solimp); appell's rows are hard.
void Converter::equalities(const XMLElement& q) {
  int count = 0;
  for (const XMLElement* e = q.FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string n = e->Name();
    ++count;
    if (n == "connect" || n == "weld") {
      loop_equality(*e, n, count);
      continue;
    }
    if (n != "joint") {
      warn(*e, "equality <" + n + "> not supported, ignored");
      continue;
    }
    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
      const std::string k = a->Name();
      if (k == "solref" || k == "solimp")
        warn(*e, "attribute '" + k +
                     "' (MuJoCo's constraint softness) ignored: appell's mimic row is hard");
      else if (k == "active" && std::string(a->Value()) == "false")
        fail(*e, "an inactive equality (active=\"false\") is not supported");
      else if (k != "name" && k != "joint1" && k != "joint2" && k != "polycoef" && k != "class" &&
               k != "active")
        warn(*e, "attribute '" + k + "' not supported, ignored");
    }
    const char* j1 = e->Attribute("joint1");
    const char* j2 = e->Attribute("joint2");
    if (!j1) fail(*e, "missing attribute 'joint1'");
    if (!j2) {
      warn(*e, "an equality without joint2 (a joint held at a value) not supported, ignored");
      continue;
    }
    for (const char* j : {j1, j2})
      if (!joint_names_.count(j)) fail(*e, "no joint '" + std::string(j) + "' in the model");
    const auto c = get(*e, "polycoef", 1, 5, {0, 1, 0, 0, 0});
    for (size_t k = 2; k < c.size(); ++k)
      if (c[k] != 0) fail(*e, "attribute 'polycoef': only a linear coupling (c0 c1) is supported");
    // MuJoCo's polynomial is of the coordinates from qpos0 (the joints' ref):
    // q1 − r1 = c0 + c1 (q2 − r2)
    const double c1 = c.size() > 1 ? c[1] : 0.0;
    const double r1 = joints_.count(j1) ? joints_.at(j1).ref : 0.0;
    const double r2 = joints_.count(j2) ? joints_.at(j2).ref : 0.0;
    // the follower starts where the leader puts it (follow_mimics; its ref is where
    // the mimic puts it at the leader's ref, unless c0 moves it)
    if (joints_.count(j1)) out_.doc["constraints"][joints_.at(j1).constraint].erase("q");
    const std::string name =
        e->Attribute("name") ? e->Attribute("name") : std::string(j1) + "_mimic";
    const std::string defect = name_defect(name);
    if (!defect.empty()) fail(*e, "the name " + defect);
    const std::string pointer = "/constraints/" + std::to_string(out_.doc["constraints"].size());
    out_.located[pointer] = {where(*e), path(*e)};
    out_.kinds[pointer] = "equality";
    out_.doc["constraints"].push_back({{"name", name},
                                       {"type", "mimic"},
                                       {"joint", j1},
                                       {"leader", j2},
                                       {"multiplier", c1},
                                       {"offset", c[0] + r1 - c1 * r2}});
  }
}

// <contact>: <exclude body1 body2> of a body and its parent is what appell does already
// (bodies a joint joins do not collide); other pairs cannot be said by appell's per-shape
// filters (group, mask): warned
void Converter::contact(const XMLElement& c) {
  for (const XMLElement* e = c.FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string n = e->Name();
    if (n != "exclude") {
      warn(*e, "contact <" + n + "> not supported, ignored");
      continue;
    }
    const char* b1 = e->Attribute("body1");
    const char* b2 = e->Attribute("body2");
    if (!b1 || !b2) fail(*e, "missing attribute 'body1' or 'body2'");
    if (std::string(b1) == "world" || std::string(b2) == "world") {
      warn(*e,
           "an exclusion of the world not supported (a body jointed to the world meets the "
           "world's geoms, as MuJoCo's parent filter has it), ignored");
      continue;
    }
    const auto parent_of = [&](const std::string& b) -> std::string {
      const auto at = body_element_.find(b);
      if (at == body_element_.end()) fail(*e, "no body '" + b + "' in the model");
      const XMLElement* el = at->second;
      const XMLElement* p = el->Parent() ? el->Parent()->ToElement() : nullptr;
      const auto it = p ? element_name_.find(p) : element_name_.end();
      return it == element_name_.end() ? "world" : it->second;
    };
    if (parent_of(b1) == b2 || parent_of(b2) == b1) continue;
    warn(*e,
         "an exclusion of two bodies not joined to each other not supported (appell's "
         "collision filters are per shape: group and mask), ignored");
  }
}

void Converter::loop_equality(const XMLElement& e, const std::string& kind, int index) {
  for (const tinyxml2::XMLAttribute* a = e.FirstAttribute(); a; a = a->Next()) {
    const std::string k = a->Name();
    if (k == "name" || k == "body1" || k == "body2" || (kind == "connect" && k == "anchor") ||
        k == "class")
      continue;
    if (k == "solref" || k == "solimp")
      warn(e,
           "attribute '" + k + "' (MuJoCo's constraint softness) ignored: appell's rows are hard");
    else if (k == "active" && std::string(a->Value()) == "false")
      fail(e, "an inactive equality (active=\"false\") is not supported");
    else if (k != "active")
      fail(e, "attribute '" + k + "' of <" + kind + "> not supported");
  }
  const char* b1 = e.Attribute("body1");
  if (!b1) fail(e, "missing attribute 'body1'");
  const std::string b2 = e.Attribute("body2") ? e.Attribute("body2") : "world";
  for (const std::string& b : {std::string(b1), b2})
    if (b != "world" && !body_world_.count(b)) fail(e, "no body '" + b + "' in the model");
  if (b2 == b1) fail(e, "body1 and body2 are the same body");
  const std::string name = e.Attribute("name") ? e.Attribute("name") : kind + std::to_string(index);
  const std::string defect = name_defect(name);
  if (!defect.empty()) fail(e, "the name " + defect);
  if (joint_names_.count(name)) fail(e, "the name '" + name + "' is taken by a joint");
  joint_names_.insert(name);
  const auto world_of = [&](const std::string& b) {
    return b == "world" ? Pose{} : body_world_.at(b);
  };
  json c = {{"name", name}, {"bodies", {b1, b2}}};
  if (kind == "connect") {
    if (!e.Attribute("anchor")) fail(e, "missing attribute 'anchor'");
    const Pose W = world_of(b1);
    c["type"] = "spherical";
    c["anchor"] = to_json(W.p + W.R * vec(get(e, "anchor", 3, 3)));
  } else {
    c["type"] = "fixed";
  }
  const std::string pointer = "/constraints/" + std::to_string(out_.doc["constraints"].size());
  out_.located[pointer] = {where(e), path(e)};
  out_.kinds[pointer] = "equality";
  out_.doc["constraints"].push_back(c);
}

}  // namespace appell::mjcf_detail
