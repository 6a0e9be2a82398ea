// The MJCF converter's reading of elements (scenes/mjcf_converter.hpp): where an element
// is, warnings, attributes with their default classes, numbers, frames.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

// The attributes each element reads (beyond "class"); any other is warned about once per
// element kind and attribute, at its first occurrence.
const std::map<std::string, std::set<std::string>>& known_attributes() {
  static const std::map<std::string, std::set<std::string>> known = {
      {"mujoco", {"model"}},
      {"compiler",
       {"angle", "eulerseq", "autolimits", "inertiafromgeom", "meshdir", "assetdir",
        "exactmeshinertia"}},
      {"option", {"gravity", "timestep"}},
      {"body", {"name", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "childclass"}},
      {"inertial",
       {"pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "mass", "diaginertia",
        "fullinertia"}},
      {"joint",
       {"name", "type", "pos", "axis", "range", "limited", "damping", "stiffness", "springref",
        "ref", "armature", "frictionloss"}},
      {"freejoint", {"name"}},
      {"geom",
       {"name", "type", "size", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "fromto",
        "friction", "contype", "conaffinity", "mass", "density", "mesh"}},
      {"mesh", {"name", "file", "scale", "vertex", "face"}},
      {"site", {"name", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis"}},
      {"default", {}},
      // actuators: the transmission, the control and force ranges, then each kind's own
      {"general",
       {"name", "joint", "tendon", "gear", "ctrlrange", "forcerange", "ctrllimited", "forcelimited",
        "gaintype", "biastype", "dyntype", "gainprm", "biasprm", "dynprm"}},
      {"motor",
       {"name", "joint", "tendon", "gear", "ctrlrange", "forcerange", "ctrllimited",
        "forcelimited"}},
      {"position",
       {"name", "joint", "tendon", "gear", "ctrlrange", "forcerange", "ctrllimited", "forcelimited",
        "kp", "kv"}},
      {"velocity",
       {"name", "joint", "tendon", "gear", "ctrlrange", "forcerange", "ctrllimited", "forcelimited",
        "kv"}},
      {"damper",
       {"name", "joint", "tendon", "gear", "ctrlrange", "forcerange", "ctrllimited", "forcelimited",
        "kv"}},
      {"fixed", {"name", "stiffness", "damping", "springlength"}},
      {"key", {"name", "qpos", "qvel", "ctrl"}},
  };
  return known;
}

// "/mujoco/worldbody/body[2]": an index among siblings of the same name when there are
// several.  O(depth) a call: a parent's children are indexed once, at the first path
// through it, and the paths of parents are kept (so that a warning or a location for
// each of 100,000 siblings costs 100,000 steps, not 100,000²)
std::string Converter::path(const XMLElement& e) const {
  const auto known = paths_.find(&e);
  if (known != paths_.end()) return known->second;
  const XMLElement* parent = e.Parent() ? e.Parent()->ToElement() : nullptr;
  std::string part = e.Name();
  if (parent) {
    auto kids = children_.find(parent);
    if (kids == children_.end()) {
      // each child's index among its parent's children of its name, and their count
      Siblings table;
      std::map<std::string, int> count;
      for (const XMLElement* c = parent->FirstChildElement(); c; c = c->NextSiblingElement())
        table.index[c] = ++count[c->Name()];
      table.count = std::move(count);
      kids = children_.emplace(parent, std::move(table)).first;
    }
    if (kids->second.count.at(e.Name()) > 1)
      part += "[" + std::to_string(kids->second.index.at(&e)) + "]";
  }
  std::string p = (parent ? path(*parent) : std::string()) + "/" + part;
  // the paths of elements with children (bodies, defaults): each is a prefix again
  if (e.FirstChildElement()) paths_.emplace(&e, p);
  return p;
}

// a warning, kept when fewer than kMaxWarnings are (the others are counted)
void Converter::warn(const XMLElement& e, const std::string& what) {
  if (out_.warnings.size() >= kMaxWarnings) {
    ++dropped_warnings_;
    return;
  }
  out_.warnings.push_back(where(e) + ": " + path(e) + ": " + what);
}

void Converter::check_attributes(const XMLElement& e) {
  const auto& known = known_attributes();
  const auto k = known.find(e.Name());
  for (const tinyxml2::XMLAttribute* a = e.FirstAttribute(); a; a = a->Next()) {
    const std::string name = a->Name();
    if (name == "class" || (k != known.end() && k->second.count(name))) continue;
    const std::string key = std::string(e.Name()) + "@" + name;
    auto& w = attribute_warnings_[key];
    if (w.second++ == 0)
      w.first = where(e) + ": " + path(e) + ": attribute '" + name + "' not supported, ignored" +
                (key == "option@integrator" ? " (appell's integrator is used)" : "");
  }
}

// the value of `name` on e, else from e's class (its own "class", else the enclosing
// body's childclass, else "main") or the classes it is nested in; null when none says it
std::optional<std::string> Converter::attr(const XMLElement& e, const char* name) {
  if (const char* v = e.Attribute(name)) return std::string(v);
  for (const Class* c = class_of(e); c; c = c->parent) {
    const auto el = c->own.find(e.Name());
    if (el == c->own.end()) continue;
    const auto a = el->second.find(name);
    if (a != el->second.end()) return a->second;
  }
  return std::nullopt;
}

const Converter::Class* Converter::class_of(const XMLElement& e) {
  std::string cls = "main";
  if (const char* c = e.Attribute("class")) {
    cls = c;
    if (!classes_.count(cls)) fail(e, "no default class '" + cls + "'");
  } else if (!childclass_.empty()) {
    cls = childclass_.back();
  }
  const auto it = classes_.find(cls);
  return it == classes_.end() ? nullptr : &it->second;
}

std::vector<double> Converter::numbers(const XMLElement& e, const char* name,
                                       const std::string& text, size_t min, size_t max) const {
  std::istringstream in(text);
  std::vector<double> v;
  std::string token;
  while (in >> token) {
    char* end = nullptr;
    const double x = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0' || !std::isfinite(x))
      fail(e, std::string("attribute '") + name + "': '" + token + "' is not a finite number");
    v.push_back(x);
  }
  if (v.size() < min || v.size() > max)
    fail(e, std::string("attribute '") + name + "': expected " +
                (min == max ? std::to_string(min)
                            : std::to_string(min) + " to " + std::to_string(max)) +
                " numbers, got " + std::to_string(v.size()));
  return v;
}

// the numbers of attribute `name` (n of them, or between min and max), or `fallback`
std::vector<double> Converter::get(const XMLElement& e, const char* name, size_t min, size_t max,
                                   std::vector<double> fallback) {
  const auto s = attr(e, name);
  return s ? numbers(e, name, *s, min, max) : fallback;
}

bool Converter::boolean(const XMLElement& e, const char* name, bool fallback) {
  const auto s = attr(e, name);
  if (!s) return fallback;
  if (*s == "true") return true;
  if (*s == "false") return false;
  fail(e, std::string("attribute '") + name + "': expected true or false, got '" + *s + "'");
}

// the frame an element's pos and orientation attributes give (at most one orientation)
Pose Converter::pose(const XMLElement& e) {
  Pose f;
  f.p = vec(get(e, "pos", 3, 3, {0, 0, 0}));
  f.R = orientation(e);
  return f;
}

Mat3 Converter::orientation(const XMLElement& e) {
  int count = 0;
  for (const char* k : {"quat", "euler", "axisangle", "xyaxes", "zaxis"})
    count += e.Attribute(k) ? 1 : 0;
  if (count > 1) fail(e, "more than one orientation (quat, euler, axisangle, xyaxes, zaxis)");
  if (e.Attribute("quat")) {
    const auto q = get(e, "quat", 4, 4);
    const Quat Q(q[0], q[1], q[2], q[3]);
    if (!(Q.norm() > 1e-12)) fail(e, "attribute 'quat': a zero quaternion");
    return Q.normalized().toRotationMatrix();
  }
  if (e.Attribute("axisangle")) {
    const auto a = get(e, "axisangle", 4, 4);
    const Vec3 axis(a[0], a[1], a[2]);
    if (!(axis.norm() > 1e-12)) fail(e, "attribute 'axisangle': a zero axis");
    return Eigen::AngleAxisd(angle(a[3]), axis.normalized()).toRotationMatrix();
  }
  if (e.Attribute("euler")) {
    const auto a = get(e, "euler", 3, 3);
    // lower case: rotations about the moving axes (post-multiplied); upper case: about the
    // fixed ones (pre-multiplied), as MuJoCo's eulerseq
    Mat3 R = Mat3::Identity();
    for (int i = 0; i < 3; ++i) {
      const char c = eulerseq_[i];
      const int k = std::tolower(c) - 'x';
      const Mat3 Ri = Eigen::AngleAxisd(angle(a[i]), Vec3::Unit(k)).toRotationMatrix();
      R = std::islower(c) ? Mat3(R * Ri) : Mat3(Ri * R);
    }
    return R;
  }
  if (e.Attribute("xyaxes")) {
    const auto a = get(e, "xyaxes", 6, 6);
    Vec3 x(a[0], a[1], a[2]), y(a[3], a[4], a[5]);
    if (!(x.norm() > 1e-12)) fail(e, "attribute 'xyaxes': a zero x axis");
    x.normalize();
    y -= x * x.dot(y);
    if (!(y.norm() > 1e-12)) fail(e, "attribute 'xyaxes': the y axis is parallel to x");
    y.normalize();
    Mat3 R;
    R << x, y, x.cross(y);
    return R;
  }
  if (e.Attribute("zaxis")) {
    const auto a = get(e, "zaxis", 3, 3);
    const Vec3 z(a[0], a[1], a[2]);
    if (!(z.norm() > 1e-12)) fail(e, "attribute 'zaxis': a zero direction");
    // the smallest rotation taking z to the direction, as MuJoCo's
    return Quat::FromTwoVectors(Vec3::UnitZ(), z.normalized()).toRotationMatrix();
  }
  return Mat3::Identity();
}

}  // namespace appell::mjcf_detail
