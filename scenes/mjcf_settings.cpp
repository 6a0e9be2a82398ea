// The MJCF converter's settings (scenes/mjcf_converter.hpp): <compiler>, <option> and its
// <flag>s, <default> classes.
#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

void Converter::compiler(const XMLElement& e) {
  check_attributes(e);
  const std::string a = text(e, "angle", "degree");
  if (a != "degree" && a != "radian")
    fail(e, "attribute 'angle': expected degree or radian, got '" + a + "'");
  degrees_ = a == "degree";
  eulerseq_ = text(e, "eulerseq", "xyz");
  if (eulerseq_.size() != 3 || eulerseq_.find_first_not_of("xyzXYZ") != std::string::npos)
    fail(e, "attribute 'eulerseq': expected three of x, y, z, X, Y, Z, got '" + eulerseq_ + "'");
  autolimits_ = boolean(e, "autolimits", true);
  const std::string ifg = text(e, "inertiafromgeom", "auto");
  if (ifg != "auto" && ifg != "true" && ifg != "false")
    fail(e, "attribute 'inertiafromgeom': expected auto, true or false, got '" + ifg + "'");
  inertiafromgeom_ = ifg;
  meshdir_ = text(e, "meshdir", text(e, "assetdir", ""));
  exactmeshinertia_ = boolean(e, "exactmeshinertia", false);
  for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement())
    warn(*c, "not supported, ignored");
}

void Converter::option(const XMLElement& e) {
  check_attributes(e);
  if (has(e, "gravity")) out_.settings["gravity"] = to_json(vec(get(e, "gravity", 3, 3)));
  if (has(e, "timestep")) {
    const double dt = get1(e, "timestep", 0.002);
    if (!(dt > 0)) fail(e, "attribute 'timestep': expected a number > 0");
    out_.settings["integrator"] = {{"dt", dt}};
  }
  for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::string(c->Name()) == "flag")
      flags(*c);
    else
      warn(*c, "not supported, ignored");
  }
}

// <flag NAME="disable">: the switches a scene's "disable" has (contact, limit,
// frictionloss, passive, actuation, equality; constraint is the first four and equality);
// gravity="disable" is zero gravity; the others are warned about
void Converter::flags(const XMLElement& e) {
  static const std::set<std::string> scene = {"contact", "limit",     "frictionloss",
                                              "passive", "actuation", "equality"};
  std::set<std::string> off;
  if (out_.settings.contains("disable"))
    for (const auto& n : out_.settings["disable"]) off.insert(n.get<std::string>());
  for (const tinyxml2::XMLAttribute* a = e.FirstAttribute(); a; a = a->Next()) {
    const std::string name = a->Name(), value = a->Value();
    if (value != "enable" && value != "disable")
      fail(e, "attribute '" + name + "': expected enable or disable, got '" + value + "'");
    const bool disable = value == "disable";
    if (scene.count(name) || name == "constraint" || name == "gravity") {
      if (!disable) continue;  // on by default
      if (name == "gravity")
        out_.settings["gravity"] = to_json(Vec3::Zero());
      else if (name == "constraint")
        off.insert({"contact", "limit", "frictionloss", "equality"});
      else
        off.insert(name);
      continue;
    }
    auto& w = attribute_warnings_["flag@" + name];
    if (w.second++ == 0)
      w.first = where(e) + ": " + path(e) + ": flag '" + name + "' not supported, ignored";
  }
  if (!off.empty())
    out_.settings["disable"] = json(std::vector<std::string>(off.begin(), off.end()));
}

// <default class> holds defaults of its child elements; nested classes inherit
void Converter::defaults(const XMLElement& e, const Class* parent, const std::string& parent_name) {
  std::string name = "main";
  if (const char* c = e.Attribute("class"))
    name = c;
  else if (parent)
    fail(e, "a nested <default> needs a class name");
  if (classes_.count(name)) fail(e, "default class '" + name + "' is defined twice");
  Class cls;
  cls.parent = parent;
  ActuatorSpec act = parent ? actuator_defaults_.at(parent_name) : ActuatorSpec{};
  for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string n = c->Name();
    if (n == "default") continue;
    if (is_actuator_kind(n)) {
      check_attributes(*c);
      actuator_attributes(*c, act);
      continue;
    }
    if (n != "joint" && n != "geom" && n != "site" && n != "mesh") {
      warn(*c, "defaults of <" + n + "> not supported, ignored");
      continue;
    }
    check_attributes(*c);
    for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next())
      cls.own[n][a->Name()] = a->Value();
  }
  const Class& stored = classes_[name] = std::move(cls);  // a map: its address stays
  actuator_defaults_[name] = act;
  for (const XMLElement* c = e.FirstChildElement("default"); c;
       c = c->NextSiblingElement("default"))
    defaults(*c, &stored, name);
}

}  // namespace appell::mjcf_detail
