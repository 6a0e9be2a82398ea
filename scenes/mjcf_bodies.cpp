// The MJCF converter's tree (scenes/mjcf_converter.hpp): <worldbody>, its bodies with their
// mass and joints' frames, sites and geoms.
#include <cmath>

#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

void Converter::worldbody(const XMLElement& w) {
  if (w.FirstAttribute()) warn(w, "attributes of <worldbody> ignored");
  // the world's own geoms, then its bodies, breadth of the stack, no recursion
  const Frame world{"world", Pose{}, Pose{}};
  contents(w, world, true);
  struct Pending {
    const XMLElement* body;
    Frame parent;
    std::vector<std::string> childclass;
  };
  std::vector<Pending> stack;
  const auto push = [&](const XMLElement& parent, const Frame& f) {
    std::vector<const XMLElement*> kids;
    for (const XMLElement* c = parent.FirstChildElement("body"); c;
         c = c->NextSiblingElement("body"))
      kids.push_back(c);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, f, childclass_});
  };
  push(w, world);
  while (!stack.empty()) {
    const Pending p = stack.back();
    stack.pop_back();
    childclass_ = p.childclass;
    if (const char* c = p.body->Attribute("childclass")) {
      if (!classes_.count(c)) fail(*p.body, "no default class '" + std::string(c) + "'");
      childclass_.push_back(c);
    }
    const Frame f = body(*p.body, p.parent);
    push(*p.body, f);
  }
  childclass_.clear();
}

// the geoms (and, for the world, nothing else) of an element; warns on what it skips
void Converter::contents(const XMLElement& b, const Frame& at, bool world) {
  for (const XMLElement* c = b.FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "body" || (!world && (n == "joint" || n == "freejoint" || n == "inertial"))) continue;
    if (n == "geom") {
      Geom g;
      if (geom(*c, g, true)) {
        // a plane bounds a half-space of the world: MuJoCo refuses one that would move
        if (g.type == "plane" && at.moving)
          fail(*c,
               "a plane is allowed only on the world or a body welded to it (MuJoCo's "
               "static bodies); this body moves");
        if (g.type == "ellipsoid") {
          auto& w = attribute_warnings_["geom/ellipsoid"];
          if (w.second++ == 0)
            w.first = where(*c) + ": " + path(*c) +
                      ": an ellipsoid has no collision shape in appell (its mass counts), "
                      "left out of contact";
          continue;
        }
        add_shape(at, shape(*c, g, at.f));
      }
      continue;
    }
    if (n == "site") {
      site(*c, at);
      continue;
    }
    // elements that hold bodies or geoms: leaving them out would change the model
    if (n == "include" || n == "frame" || n == "replicate" || n == "attach" || n == "composite" ||
        n == "flexcomp")
      fail(*c, "<" + n + "> is not supported (the bodies and geoms it holds would be lost)");
    if (n == "camera" || n == "light")
      warn(*c, "<" + n + "> not supported (the scene format has no named frames), ignored");
    else
      warn(*c, "not supported, ignored");
  }
}

// a named <site> becomes a name of its body, as a URDF's merged link: a scene joint
// placed from it starts at the site's frame, elsewhere the name means the body
void Converter::site(const XMLElement& e, const Frame& at) {
  const char* name = e.Attribute("name");
  if (!name || !*name) {
    warn(e, "an unnamed <site> names no frame, ignored");
    return;
  }
  for (const tinyxml2::XMLAttribute* a = e.FirstAttribute(); a; a = a->Next()) {
    const std::string k = a->Name();
    if (k == "name" || k == "class" || k == "pos" || k == "quat" || k == "euler" ||
        k == "axisangle" || k == "xyaxes" || k == "zaxis")
      continue;
    const std::string key = "site@" + k;
    auto& w = attribute_warnings_[key];
    if (w.second++ == 0)
      w.first = where(e) + ": " + path(e) + ": attribute '" + k + "' not supported, ignored";
  }
  const std::string defect = name_defect(name);
  if (!defect.empty()) fail(e, "the name " + defect);
  // MuJoCo's names are per kind of element: two sites may not share one, a site and a
  // body may (the site then names no frame, below)
  if (!sites_.emplace(name, &e).second) fail(e, "a second site named '" + std::string(name) + "'");
  const Pose f = pose(e);
  site_aliases_.push_back({name, Alias{at.body, at.f.p + at.f.R * f.p, at.f.R * f.R}, &e});
}

// the sites' names as names of their bodies, once every body is named: a site named like
// a body (or "world") keeps the name for the body, with a warning
void Converter::name_sites() {
  for (const SiteAlias& a : site_aliases_) {
    if (names_.count(a.name) || a.name == "world") {
      warn(*a.element, "the site '" + a.name + "' has the name of a body; the name means the " +
                           "body, the site names no frame");
      continue;
    }
    out_.aliases[a.name] = a.alias;
  }
}

void Converter::add_shape(const Frame& at, const json& s) {
  json* shapes = nullptr;
  if (at.body == "world") {
    if (!out_.doc.contains("shapes")) out_.doc["shapes"] = json::array();
    shapes = &out_.doc["shapes"];
  } else {
    json& body = out_.doc["bodies"][body_index_.at(at.body)];
    if (!body.contains("shapes")) body["shapes"] = json::array();
    shapes = &body["shapes"];
  }
  shapes->push_back(s);
}

// the name of body element e (its own, else "body<N>"), checked and taken
std::string Converter::body_name(const XMLElement& e) {
  ++body_count_;
  std::string name = e.Attribute("name") ? e.Attribute("name") : "";
  if (name.empty()) name = "body" + std::to_string(body_count_);
  const std::string defect = name_defect(name);
  if (!defect.empty()) fail(e, "the name " + defect);
  if (name == "world") fail(e, "the name 'world' is the ground's");
  if (!names_.insert(name).second) fail(e, "duplicate body name '" + name + "'");
  return name;
}

// the <joint> and <freejoint> elements of body e, in order (a free joint alone)
std::vector<const XMLElement*> Converter::body_joints(const XMLElement& e) {
  std::vector<const XMLElement*> joints;
  for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "joint" || n == "freejoint") joints.push_back(c);
  }
  for (const XMLElement* j : joints)
    if (joints.size() > 1 && std::string(j->Name()) == "freejoint")
      fail(*j, "a free joint must be the body's only joint");
  return joints;
}

// the mass of body e: its <inertial>, or its geoms' (inertiafromgeom)
Converter::Mass Converter::body_mass(const XMLElement& e) {
  Mass mass;
  const XMLElement* in = e.FirstChildElement("inertial");
  if (in && in->NextSiblingElement("inertial"))
    fail(*in->NextSiblingElement("inertial"), "a second <inertial>");
  if (in && inertiafromgeom_ != "true") mass = inertial(*in);
  if ((!in && inertiafromgeom_ == "auto") || inertiafromgeom_ == "true")
    for (const XMLElement* c = e.FirstChildElement("geom"); c; c = c->NextSiblingElement("geom"))
      add_geom_mass(*c, mass);
  return mass;
}

// geom c's solid (its mass, or its density times its volume) into `mass`; planes and
// geoms of unsupported types weigh nothing
void Converter::add_geom_mass(const XMLElement& c, Mass& mass) {
  Geom g;
  if (!geom(c, g, false) || g.type == "plane") return;
  if (g.mesh) {
    if (!exactmeshinertia_ && !warned_mesh_inertia_) {
      warned_mesh_inertia_ = true;
      warn(c,
           "mesh inertia: appell takes the exact volume of the mesh (MuJoCo's "
           "exactmeshinertia=\"true\"; MuJoCo 3's default for a convex mesh); MuJoCo "
           "2's default legacy formula differs");
    }
  }
  const double V = volume(g);
  double m = 0;
  if (has(c, "mass")) {
    m = get1(c, "mass", 0);
    if (!(m >= 0)) fail(c, "attribute 'mass': expected a number >= 0");
  } else {
    const double rho = get1(c, "density", 1000);
    if (!(rho >= 0)) fail(c, "attribute 'density': expected a number >= 0");
    m = rho * V;
  }
  if (!std::isfinite(m)) fail(c, "the geom's mass is not finite");
  if (g.mesh && !g.mesh->defect.empty()) {
    // a geom said to weigh nothing needs no volume
    if (m == 0 && (has(c, "mass") || has(c, "density"))) return;
    fail(c, g.mesh->defect);
  }
  const Vec3 centre = g.mesh ? g.f.p + g.f.R * g.mesh->com : g.f.p;
  mass.add(m, centre, m * g.f.R * unit_inertia(g) * g.f.R.transpose());
}

// Joint jk of body e (named `name`), one of several but not the last: a massless frame
// (mass 0, a body of the scene named "BODY/JOINT", at the joint's position with the body's
// axes) that jk moves on `at`, whose origin is at `at_offset` in the body frame; returns
// the frame and moves at_offset to its origin
Converter::Frame Converter::joint_frame(const XMLElement& e, const XMLElement& jk,
                                        const std::string& name, const Frame& at, Vec3& at_offset) {
  check_attributes(jk);
  const std::string tk = text(jk, "type", "hinge");
  if (tk == "free") fail(jk, "a free joint must be the body's only joint");
  const Vec3 ok = vec(get(jk, "pos", 3, 3, {0, 0, 0}));
  std::string frame = name + "/" + joint_name(jk);
  while (names_.count(frame)) frame += "'";
  const std::string frame_defect = name_defect(frame);
  if (!frame_defect.empty()) fail(jk, "the name " + frame_defect);
  names_.insert(frame);
  json fb = {{"name", frame},
             {"mass", 0.0},
             {"com", to_json(Vec3::Zero())},
             {"inertia",
              {{"matrix", json::array({to_json(Vec3::Zero()), to_json(Vec3::Zero()),
                                       to_json(Vec3::Zero())})}}}};
  out_.located["/bodies/" + std::to_string(out_.doc["bodies"].size())] = {where(jk), path(jk)};
  out_.doc["bodies"].push_back(fb);
  body_index_[frame] = out_.doc["bodies"].size() - 1;
  add_joint(e, &jk, tk, frame, at, ok - at_offset);
  at_offset = ok;
  return Frame{frame, Pose{Vec3::Zero(), Mat3::Identity()}, at.w, true};
}

// the body element e on its parent's frame; returns the frame its children hang on
Converter::Frame Converter::body(const XMLElement& e, const Frame& parent) {
  check_attributes(e);
  const std::string name = body_name(e);
  const Pose local = pose(e);
  const Pose W{parent.w.p + parent.w.R * local.p, parent.w.R * local.R};
  body_world_[name] = W;
  element_name_[&e] = name;
  body_element_[name] = &e;
  const Frame here{parent.body, Pose{parent.f.p + parent.f.R * local.p, parent.f.R * local.R}, W,
                   parent.moving};
  const std::vector<const XMLElement*> joints = body_joints(e);
  const Mass mass = body_mass(e);
  if (joints.empty() && !(mass.m > 0)) {
    // a massless frame welded to its parent: merged into it
    out_.aliases[name] = Alias{here.body, here.f.p, here.f.R};
    contents(e, here, false);
    return here;
  }
  if (!(mass.m > 0)) fail(e, "a body moved by a joint needs mass (an <inertial> or geoms)");

  // several joints act in order, each in the body frame the ones before it moved
  // (MuJoCo's composition): all but the last carry a massless frame on which the next is
  // placed; the recursion moves them with the body's mass
  Frame at = here;
  Vec3 at_offset = Vec3::Zero();  // the body-frame position of the frame `at`'s origin
  for (size_t k = 0; k + 1 < joints.size(); ++k)
    at = joint_frame(e, *joints[k], name, at, at_offset);

  // the link frame: the body frame moved to the (last) joint's position
  const XMLElement* j = joints.empty() ? nullptr : joints.back();
  std::string type = "fixed";
  Vec3 offset = Vec3::Zero();
  if (j) {
    check_attributes(*j);
    type = std::string(j->Name()) == "freejoint" ? "free" : text(*j, "type", "hinge");
    if (type != "free") offset = vec(get(*j, "pos", 3, 3, {0, 0, 0}));
  }
  json b = {{"name", name},
            {"mass", mass.m},
            {"com", to_json(mass.c - offset)},
            {"inertia", json::object()}};
  json rows = json::array();
  for (int r = 0; r < 3; ++r) rows.push_back(to_json(mass.I.row(r).transpose()));
  b["inertia"]["matrix"] = rows;
  const std::string body_pointer = "/bodies/" + std::to_string(out_.doc["bodies"].size());
  out_.located[body_pointer] = {where(e), path(e)};
  out_.doc["bodies"].push_back(b);
  body_index_[name] = out_.doc["bodies"].size() - 1;
  const Frame link{name, Pose{-offset, Mat3::Identity()}, W, here.moving || j != nullptr};
  add_joint(e, j, type, name, at, offset - at_offset);
  contents(e, link, false);
  return link;
}

}  // namespace appell::mjcf_detail
