#include "scenes/mjcf.hpp"

#include <tinyxml2.h>

#include <climits>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "appell/inertia.hpp"
#include "appell/scene_document.hpp"
#include "scenes/shapes.hpp"
#include "scenes/xml_outline.hpp"

namespace appell {

using nlohmann::json;
using tinyxml2::XMLElement;

namespace {

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
XmlLimits mjcf_limits() {
  XmlLimits l;
  l.max_depth = kMaxMjcfDepth;
  return l;
}
// the scan's first element past a limit, as an error at FILE:LINE
void located_outline_defect(const XmlOutline& o, const XmlLimits& limits, const std::string& file) {
  const std::string defect = outline_defect(o, limits);
  if (defect.empty()) return;
  const int line = o.too_deep_line > 0 ? o.too_deep_line : o.too_many_line;
  const std::string prefix = "line " + std::to_string(line) + ": ";
  throw SceneError(file + ":" + std::to_string(line), "", defect.substr(prefix.size()));
}

json to_json(const Vec3& v) {
  return json::array({v.x(), v.y(), v.z()});
}
Vec3 rpy_of(const Mat3& R) {
  const Vec3 ypr = R.eulerAngles(2, 1, 0);
  return Vec3(ypr(2), ypr(1), ypr(0));
}
json quat_json(const Mat3& R) {
  const Quat q(R);
  return json::array({q.w(), q.x(), q.y(), q.z()});
}

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
  Converter(const std::string& file, UrdfScene& out, const std::string& keyframe, size_t elements)
      : file_(file), keyframe_(keyframe), out_(out), elements_(elements) {
    out_.doc = {{"bodies", json::array()}, {"constraints", json::array()}};
    out_.meshes = std::make_shared<MeshCache>();
  }

  void run(const XMLElement& root) {
    check_attributes(root);
    out_.name = root.Attribute("model") ? root.Attribute("model") : file_;
    if (!valid_utf8(out_.name)) fail(root, "attribute 'model': the name is not valid UTF-8");
    for (unsigned char c : out_.name)
      if (c < 0x20 || c == 0x7f)
        fail(root, "attribute 'model': the name contains a control character");
    out_.base.root_link = "world";
    out_.settings["friction"] = "max";  // MuJoCo's pair friction: the rougher geom's
    doc_file_[root.GetDocument()] = file_;
    // the top-level elements, each <include> replaced by its file's (MuJoCo's rule)
    std::vector<std::string> chain = {file_};
    expand(root, chain);
    count_tree();
    const auto each = [&](const char* name, const auto& f) {
      for (const XMLElement* e : top_)
        if (std::string(e->Name()) == name) f(*e);
    };
    // settings first: they change how the rest reads
    each("compiler", [&](const XMLElement& e) { compiler(e); });
    each("option", [&](const XMLElement& e) { option(e); });
    each("default", [&](const XMLElement& e) { defaults(e, nullptr); });
    // the bodies and joints before what names them (actuators, equalities), in any order
    each("asset", [&](const XMLElement& e) { assets(e); });
    each("worldbody", [&](const XMLElement& e) { worldbody(e); });
    name_sites();
    // the tendons before the actuators that name them; the selected keyframe's controls
    each("tendon", [&](const XMLElement& e) { tendons(e); });
    find_keyframe();
    for (const XMLElement* e : top_) {
      const std::string n = e->Name();
      if (n == "compiler" || n == "option" || n == "default" || n == "worldbody" || n == "tendon" ||
          n == "asset")
        continue;
      if (n == "keyframe") {
        if (keyframe_.empty())
          warn(*e,
               "keyframes not applied: the model starts at qpos0, as MuJoCo's does (a scene "
               "starts from one with \"include\": {\"mjcf\": FILE, \"keyframe\": NAME})");
        continue;
      }
      if (n == "actuator") {
        actuators(*e);
      } else if (n == "equality") {
        equalities(*e);
      } else if (n == "contact") {
        contact(*e);
      } else {
        warn(*e, "not supported, ignored");
      }
    }
    if (key_) apply_keyframe(*key_);
    for (const auto& w : attribute_warnings_) {
      if (out_.warnings.size() >= kMaxWarnings) {
        ++dropped_warnings_;
        continue;
      }
      std::string text = w.second.first;
      if (w.second.second > 1)
        text += " (and " + std::to_string(w.second.second - 1) + " more like it)";
      out_.warnings.push_back(text);
    }
    if (dropped_warnings_ > 0)
      out_.warnings.push_back(file_ + ": " + std::to_string(dropped_warnings_) +
                              " more warnings not shown (the first " +
                              std::to_string(kMaxWarnings) + " are)");
  }

 private:
  // ---- locations --------------------------------------------------------------------
  // "/mujoco/worldbody/body[2]": an index among siblings of the same name when there are
  // several.  O(depth) a call: a parent's children are indexed once, at the first path
  // through it, and the paths of parents are kept (so that a warning or a location for
  // each of 100,000 siblings costs 100,000 steps, not 100,000²)
  std::string path(const XMLElement& e) const {
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
  std::string where(const XMLElement& e) const {
    const auto f = doc_file_.find(e.GetDocument());
    return (f == doc_file_.end() ? file_ : f->second) + ":" + std::to_string(e.GetLineNum());
  }
  [[noreturn]] void fail(const XMLElement& e, const std::string& what) const {
    throw SceneError(where(e), path(e), what);
  }
  // a warning, kept when fewer than kMaxWarnings are (the others are counted)
  void warn(const XMLElement& e, const std::string& what) {
    if (out_.warnings.size() >= kMaxWarnings) {
      ++dropped_warnings_;
      return;
    }
    out_.warnings.push_back(where(e) + ": " + path(e) + ": " + what);
  }
  void check_attributes(const XMLElement& e) {
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

  // ---- attributes, with default classes ---------------------------------------------
  using Attrs = std::map<std::string, std::string>;  // attribute → value
  // A default class: the attributes its own <default> gives each element kind, and the
  // class it is nested in.  A class holds only its own (a look-up walks up the chain, at
  // most as deep as the XML nests): nothing is copied per class or per use, so the memory
  // is the size of the <default> elements, however many classes and uses there are.
  struct Class {
    const Class* parent = nullptr;
    std::map<std::string, Attrs> own;  // element name → the attributes this class sets
  };
  // the value of `name` on e, else from e's class (its own "class", else the enclosing
  // body's childclass, else "main") or the classes it is nested in; null when none says it
  std::optional<std::string> attr(const XMLElement& e, const char* name) {
    if (const char* v = e.Attribute(name)) return std::string(v);
    for (const Class* c = class_of(e); c; c = c->parent) {
      const auto el = c->own.find(e.Name());
      if (el == c->own.end()) continue;
      const auto a = el->second.find(name);
      if (a != el->second.end()) return a->second;
    }
    return std::nullopt;
  }
  const Class* class_of(const XMLElement& e) {
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
  std::vector<double> numbers(const XMLElement& e, const char* name, const std::string& text,
                              size_t min, size_t max) const {
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
  std::vector<double> get(const XMLElement& e, const char* name, size_t min, size_t max,
                          std::vector<double> fallback = {}) {
    const auto s = attr(e, name);
    return s ? numbers(e, name, *s, min, max) : fallback;
  }
  double get1(const XMLElement& e, const char* name, double fallback) {
    return get(e, name, 1, 1, {fallback})[0];
  }
  bool has(const XMLElement& e, const char* name) { return attr(e, name).has_value(); }
  std::string text(const XMLElement& e, const char* name, const std::string& fallback) {
    const auto s = attr(e, name);
    return s ? *s : fallback;
  }
  bool boolean(const XMLElement& e, const char* name, bool fallback) {
    const auto s = attr(e, name);
    if (!s) return fallback;
    if (*s == "true") return true;
    if (*s == "false") return false;
    fail(e, std::string("attribute '") + name + "': expected true or false, got '" + *s + "'");
  }
  double angle(double a) const { return degrees_ ? a * kPi / 180 : a; }

  // ---- settings -----------------------------------------------------------------------
  void compiler(const XMLElement& e) {
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
  void option(const XMLElement& e) {
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
  void flags(const XMLElement& e) {
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
  static Vec3 vec(const std::vector<double>& v) { return Vec3(v[0], v[1], v[2]); }

  // <default class> holds defaults of its child elements; nested classes inherit
  void defaults(const XMLElement& e, const Class* parent, const std::string& parent_name = "") {
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

  // ---- frames -------------------------------------------------------------------------
  // the frame an element's pos and orientation attributes give (at most one orientation)
  Pose pose(const XMLElement& e) {
    Pose f;
    f.p = vec(get(e, "pos", 3, 3, {0, 0, 0}));
    f.R = orientation(e);
    return f;
  }
  Mat3 orientation(const XMLElement& e) {
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

  // ---- mass properties ----------------------------------------------------------------
  struct Mass {
    double m = 0;
    Vec3 c = Vec3::Zero();  // centre of mass in the body frame
    Mat3 I = Mat3::Zero();  // about c, body axes
    void add(double mi, const Vec3& ci, const Mat3& Ii) {
      if (!(mi > 0)) return;
      const double M = m + mi;
      const Vec3 C = (m * c + mi * ci) / M;
      const auto shifted = [&](double mass, const Vec3& d) {
        return Mat3(mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
      };
      I = I + shifted(m, c - C) + Ii + shifted(mi, ci - C);
      m = M;
      c = C;
    }
  };

  Mass inertial(const XMLElement& e) {
    check_attributes(e);
    Mass out;
    const Pose f = pose(e);
    out.m = get1(e, "mass", 0);
    if (!(out.m >= 0)) fail(e, "attribute 'mass': expected a number >= 0");
    if (!has(e, "mass")) fail(e, "missing attribute 'mass'");
    Mat3 I = Mat3::Zero();
    if (has(e, "fullinertia")) {
      if (has(e, "diaginertia")) fail(e, "both diaginertia and fullinertia");
      const auto v = get(e, "fullinertia", 6, 6);  // ixx iyy izz ixy ixz iyz
      I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
    } else if (has(e, "diaginertia")) {
      const auto v = get(e, "diaginertia", 3, 3);
      I = Vec3(v[0], v[1], v[2]).asDiagonal();
    } else {
      fail(e, "missing attribute 'diaginertia' or 'fullinertia'");
    }
    out.c = f.p;
    out.I = f.R * I * f.R.transpose();
    const std::string defect = inertia_semidefinite_defect(out.I);
    if (!defect.empty()) fail(e, defect);
    return out;
  }

  // ---- geoms --------------------------------------------------------------------------
  struct Geom {
    std::string type;
    Pose f;                    // in the body frame
    double r = 0, h = 0;       // radius and half-length (capsule, cylinder)
    Vec3 half = Vec3::Zero();  // box half sizes, ellipsoid radii
    const MeshAsset* mesh = nullptr;
  };

  // reads e; false when its type is not supported (warned)
  bool geom(const XMLElement& e, Geom& g, bool report) {
    if (report) check_attributes(e);
    g.type = text(e, "type", "sphere");
    static const std::set<std::string> supported = {"plane",    "sphere",    "capsule", "box",
                                                    "cylinder", "ellipsoid", "mesh"};
    static const std::set<std::string> mujoco = {"hfield", "sdf"};
    if (!supported.count(g.type)) {
      if (!mujoco.count(g.type))
        fail(e, "unknown geom type '" + g.type +
                    "'; expected plane, sphere, capsule, ellipsoid, cylinder, box, mesh, hfield "
                    "or sdf");
      if (report) warn(e, "geom type '" + g.type + "' not supported, ignored (no shape, no mass)");
      return false;
    }
    const auto size = get(e, "size", 0, 3, {});
    const auto need = [&](size_t n) {
      if (size.size() < n)
        fail(e, "attribute 'size': a " + g.type + " needs " + std::to_string(n) + " number(s)");
      for (size_t i = 0; i < n; ++i)
        if (!(size[i] > 0)) fail(e, "attribute 'size': sizes must be > 0");
    };
    g.f = pose(e);
    if (g.type == "mesh") {
      // the mesh's own frame at the geom's pose (MuJoCo moves its vertices to their centre
      // of mass and the geom by as much: the same place)
      if (has(e, "fromto"))
        fail(e, "attribute 'fromto' applies to a capsule, cylinder, box or ellipsoid");
      const std::string name = text(e, "mesh", "");
      if (name.empty()) fail(e, "a mesh geom needs attribute 'mesh'");
      const auto it = meshes_.find(name);
      if (it == meshes_.end()) fail(e, "no mesh '" + name + "' in <asset>");
      g.mesh = &load_mesh(it->second);
      return true;
    }
    if (has(e, "fromto")) {
      if (g.type != "capsule" && g.type != "cylinder" && g.type != "box" && g.type != "ellipsoid")
        fail(e, "attribute 'fromto' applies to a capsule, cylinder, box or ellipsoid");
      if (e.Attribute("pos") || e.Attribute("quat") || e.Attribute("euler") ||
          e.Attribute("axisangle") || e.Attribute("xyaxes") || e.Attribute("zaxis"))
        fail(e, "attribute 'fromto' and a pos or orientation together");
      const auto v = get(e, "fromto", 6, 6);
      const Vec3 a(v[0], v[1], v[2]), b(v[3], v[4], v[5]);
      if (!((b - a).norm() > 1e-12)) fail(e, "attribute 'fromto': the two points coincide");
      g.f.p = (a + b) / 2;
      g.f.R = Quat::FromTwoVectors(Vec3::UnitZ(), (b - a).normalized()).toRotationMatrix();
      const double half = (b - a).norm() / 2;
      if (g.type == "box" || g.type == "ellipsoid") {
        // MuJoCo's: size[0] is the half-width across the segment, both ways (a second
        // size is not read)
        need(1);
        g.half = Vec3(size[0], size[0], half);
      } else {
        need(1);
        g.r = size[0];
        g.h = half;
      }
      return true;
    }
    if (g.type == "sphere") {
      need(1);
      g.r = size[0];
    } else if (g.type == "capsule" || g.type == "cylinder") {
      need(2);
      g.r = size[0];
      g.h = size[1];
    } else if (g.type == "box" || g.type == "ellipsoid") {
      need(3);
      g.half = Vec3(size[0], size[1], size[2]);
    }
    return true;
  }

  // ---- meshes -------------------------------------------------------------------------
  // <asset><mesh name file scale>: read when a geom first uses it
  void assets(const XMLElement& a) {
    for (const XMLElement* e = a.FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string n = e->Name();
      if (n != "mesh") {
        // appearance (texture, material) and what appell has no counterpart for: once a kind
        auto& w = attribute_warnings_["asset/" + n];
        if (w.second++ == 0) w.first = where(*e) + ": " + path(*e) + ": not supported, ignored";
        continue;
      }
      check_attributes(*e);
      const char* file = e->Attribute("file");
      std::string name = e->Attribute("name") ? e->Attribute("name") : "";
      MeshAsset m;
      if (!file || !*file) {
        // inline: vertex="x y z ..." and face="i j k ..." (from 0; without faces, MuJoCo's
        // convex hull bounds the volume)
        if (!has(*e, "vertex")) fail(*e, "a mesh needs attribute 'file' or 'vertex'");
        if (name.empty()) fail(*e, "a mesh with inline vertices needs attribute 'name'");
        const auto v = get(*e, "vertex", 12, 3 * SceneLimits::kMaxArray);
        if (v.size() % 3) fail(*e, "attribute 'vertex': expected x y z triples");
        for (size_t i = 0; i < v.size(); i += 3)
          m.inline_mesh.vertices.emplace_back(v[i], v[i + 1], v[i + 2]);
        const auto f = get(*e, "face", 3, 3 * SceneLimits::kMaxArray, {});
        if (f.size() % 3) fail(*e, "attribute 'face': expected i j k triples");
        for (size_t i = 0; i < f.size(); i += 3) {
          std::array<int, 3> t{};
          for (int k = 0; k < 3; ++k) {
            if (!(f[i + k] >= 0 && f[i + k] < static_cast<double>(v.size() / 3)) ||
                f[i + k] != std::floor(f[i + k]))
              fail(*e, "attribute 'face': expected vertex indices from 0 to " +
                           std::to_string(v.size() / 3 - 1));
            t[k] = static_cast<int>(f[i + k]);
          }
          m.inline_mesh.triangles.push_back(t);
        }
        if (f.empty()) hull_triangles(m.inline_mesh);
      } else if (has(*e, "vertex") || has(*e, "face")) {
        fail(*e, "a mesh has either attribute 'file' or 'vertex'");
      }
      if (name.empty()) {  // MuJoCo's: the file name without folder and extension
        name = file;
        name = name.substr(
            name.find_last_of("/\\") == std::string::npos ? 0 : name.find_last_of("/\\") + 1);
        name = name.substr(0, name.rfind('.'));
      }
      m.element = e;
      const auto sc = get(*e, "scale", 3, 3, {1, 1, 1});
      m.scale = vec(sc);
      if (!(m.scale.cwiseAbs().minCoeff() > 0) || !m.scale.allFinite())
        fail(*e, "attribute 'scale': expected 3 finite nonzero numbers (negative mirrors)");
      if (!file || !*file) {
        if (!meshes_.emplace(name, m).second) fail(*e, "a second mesh named '" + name + "'");
        continue;
      }
      std::string p = file;
      if (p[0] != '/') {
        std::string dir = meshdir_;
        if (!dir.empty() && dir.back() != '/') dir += '/';
        if (dir.empty() || dir[0] != '/') {
          const size_t slash = file_.rfind('/');
          if (slash != std::string::npos) dir = file_.substr(0, slash + 1) + dir;
        }
        p = dir + p;
      }
      m.path = p;
      if (!meshes_.emplace(name, m).second) fail(*e, "a second mesh named '" + name + "'");
    }
  }
  // the solid the mesh's triangles bound, of unit density: volume, centre, inertia about
  // the centre (signed tetrahedra from the vertices' mean; exact for a closed mesh,
  // convex or not, as MuJoCo's exactmeshinertia="true")
  const MeshAsset& load_mesh(MeshAsset& m) {
    if (m.loaded) return m;
    const XMLElement& e = *m.element;
    // a file is read once, for every geom and for the scene's shapes (out_.meshes)
    std::string error;
    if (m.path.empty()) {
      try {
        m.mesh = scaled_mesh(m.inline_mesh, m.scale);
      } catch (const std::invalid_argument& x) {
        fail(e, std::string("attribute 'vertex': ") + x.what());
      }
    } else {
      out_.files.push_back(m.path);
      m.mesh = out_.meshes->load(m.path, m.scale, error);
      if (!m.mesh) fail(e, "cannot read the mesh '" + m.path + "': " + error);
      char resolved[PATH_MAX];
      if (::realpath(m.path.c_str(), resolved)) m.path = resolved;
    }
    const std::vector<Vec3>& v = m.mesh->vertices;
    const std::vector<std::array<int, 3>>& t = m.mesh->faces;
    Vec3 o = Vec3::Zero();
    for (const Vec3& x : v) o += x;
    o /= static_cast<double>(v.size());
    double V = 0;
    Vec3 s = Vec3::Zero();
    Mat3 C = Mat3::Zero();
    for (const auto& f : t) {
      const Vec3 a = v[f[0]] - o, b = v[f[1]] - o, c = v[f[2]] - o;
      const double d = a.dot(b.cross(c));  // 6 × the signed volume of (o, a, b, c)
      const Vec3 sum = a + b + c;
      V += d / 6;
      s += d / 24 * sum;
      C += d / 120 *
           (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
    }
    m.loaded = true;
    if (!(V > 1e-12 * std::pow((v[0] - o).norm() + 1e-300, 3)) || !std::isfinite(V)) {
      m.defect = "the mesh '" + (m.path.empty() ? text(e, "name", "") : m.path) +
                 "' bounds no volume (an open surface, or its triangles face inwards): no "
                 "inertia from it; give the body an <inertial> or the geom mass=\"0\"";
      return m;
    }
    const Vec3 c = s / V;
    const Mat3 Cc = C - V * c * c.transpose();
    m.volume = V;
    m.com = o + c;
    m.inertia = (Cc.trace() * Mat3::Identity() - Cc) / V;  // per unit mass
    return m;
  }

  // MuJoCo's solid primitives: volume and the inertia per unit mass in the geom frame
  static double volume(const Geom& g) {
    if (g.type == "sphere") return 4.0 / 3 * kPi * g.r * g.r * g.r;
    if (g.type == "ellipsoid") return 4.0 / 3 * kPi * g.half.prod();
    if (g.type == "mesh") return g.mesh->volume;
    if (g.type == "box") return 8 * g.half.prod();
    if (g.type == "cylinder") return kPi * g.r * g.r * 2 * g.h;
    if (g.type == "capsule") return kPi * g.r * g.r * (4.0 / 3 * g.r + 2 * g.h);
    return 0;
  }
  static Mat3 unit_inertia(const Geom& g) {
    Vec3 d = Vec3::Zero();
    if (g.type == "mesh") return g.mesh->inertia;
    if (g.type == "ellipsoid") {
      const Vec3 s = g.half.cwiseProduct(g.half);
      d = Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y()) / 5;
    } else if (g.type == "sphere") {
      d.setConstant(0.4 * g.r * g.r);
    } else if (g.type == "box") {
      const Vec3 s = g.half.cwiseProduct(g.half);
      d = Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y()) / 3;
    } else if (g.type == "cylinder") {
      const double H = 2 * g.h;
      d.x() = d.y() = (3 * g.r * g.r + H * H) / 12;
      d.z() = g.r * g.r / 2;
    } else if (g.type == "capsule") {
      // a cylinder and two hemispheres (the fraction of the volume each holds), the
      // hemispheres' inertia moved to the capsule's centre
      const double H = 2 * g.h, r = g.r;
      const double ms = 4 * r / (4 * r + 3 * H), mc = 1 - ms;
      d.x() = d.y() =
          mc * (3 * r * r + H * H) / 12 + 0.4 * ms * r * r + ms * H * (3 * r + 2 * H) / 8;
      d.z() = mc * r * r / 2 + 0.4 * ms * r * r;
    }
    return d.asDiagonal();
  }

  // a geom's shape for the scene, in the link frame (body frame shifted by `offset`) of
  // the body or the world it ends up on
  json shape(const XMLElement& e, const Geom& g, const Pose& at) {
    json s = {{"type", g.type}};
    if (const char* n = e.Attribute("name")) s["name"] = n;
    if (g.type == "sphere") s["radius"] = g.r;
    if (g.type == "capsule" || g.type == "cylinder") {
      s["radius"] = g.r;
      s["length"] = 2 * g.h;
    }
    if (g.type == "box") s["size"] = to_json(2 * g.half);
    if (g.type == "mesh") {
      if (g.mesh->path.empty()) {
        s["vertices"] = json::array();
        for (const Vec3& v : g.mesh->inline_mesh.vertices) s["vertices"].push_back(to_json(v));
        s["faces"] = g.mesh->inline_mesh.triangles;
      } else {
        s["file"] = g.mesh->path;
      }
      s["scale"] = to_json(g.mesh->scale);
    }
    s["position"] = to_json(at.p + at.R * g.f.p);
    s["orientation"] = {{"quaternion", quat_json(at.R * g.f.R)}};
    if (has(e, "friction")) {
      const double mu = get(e, "friction", 1, 3)[0];
      if (!(mu >= 0)) fail(e, "attribute 'friction': expected a number >= 0");
      s["friction"] = mu;
    }
    const auto bits = [&](const char* name) {
      const double v = get1(e, name, 1);
      if (!(v >= 0 && v <= 4294967295.0 && v == std::floor(v)))
        fail(e, std::string("attribute '") + name + "': expected an integer from 0 to 2^32 - 1");
      return static_cast<std::uint32_t>(v);
    };
    s["group"] = bits("contype");
    s["mask"] = bits("conaffinity");
    // contype = conaffinity = 0: a geom only drawn (the model's Shape::visual)
    if (s["group"] == 0 && s["mask"] == 0) s["visual"] = true;
    return s;
  }

  // ---- the tree -----------------------------------------------------------------------
  // Where a body frame is: (p, R) in the link frame of the scene body it belongs to.
  struct Frame {
    std::string body;  // a scene body, or "world"
    Pose f;
    Pose w;               // the same frame in the world at the reference pose (qpos0)
    bool moving = false;  // a joint moves it (MuJoCo's body that is not static)
  };

  void worldbody(const XMLElement& w) {
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
  void contents(const XMLElement& b, const Frame& at, bool world) {
    for (const XMLElement* c = b.FirstChildElement(); c; c = c->NextSiblingElement()) {
      const std::string n = c->Name();
      if (n == "body" || (!world && (n == "joint" || n == "freejoint" || n == "inertial")))
        continue;
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
  void site(const XMLElement& e, const Frame& at) {
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
    if (!sites_.emplace(name, &e).second)
      fail(e, "a second site named '" + std::string(name) + "'");
    const Pose f = pose(e);
    site_aliases_.push_back({name, Alias{at.body, at.f.p + at.f.R * f.p, at.f.R * f.R}, &e});
  }
  // the sites' names as names of their bodies, once every body is named: a site named like
  // a body (or "world") keeps the name for the body, with a warning
  void name_sites() {
    for (const SiteAlias& a : site_aliases_) {
      if (names_.count(a.name) || a.name == "world") {
        warn(*a.element, "the site '" + a.name + "' has the name of a body; the name means the " +
                             "body, the site names no frame");
        continue;
      }
      out_.aliases[a.name] = a.alias;
    }
  }

  void add_shape(const Frame& at, const json& s) {
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

  // the body element e on its parent's frame; returns the frame its children hang on
  Frame body(const XMLElement& e, const Frame& parent) {
    check_attributes(e);
    ++body_count_;
    std::string name = e.Attribute("name") ? e.Attribute("name") : "";
    if (name.empty()) name = "body" + std::to_string(body_count_);
    const std::string defect = name_defect(name);
    if (!defect.empty()) fail(e, "the name " + defect);
    if (name == "world") fail(e, "the name 'world' is the ground's");
    if (!names_.insert(name).second) fail(e, "duplicate body name '" + name + "'");
    const Pose local = pose(e);
    const Pose W{parent.w.p + parent.w.R * local.p, parent.w.R * local.R};
    body_world_[name] = W;
    element_name_[&e] = name;
    body_element_[name] = &e;
    const Frame here{parent.body, Pose{parent.f.p + parent.f.R * local.p, parent.f.R * local.R}, W,
                     parent.moving};

    // joints
    std::vector<const XMLElement*> joints;
    for (const XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
      const std::string n = c->Name();
      if (n == "joint" || n == "freejoint") joints.push_back(c);
    }
    for (const XMLElement* j : joints)
      if (joints.size() > 1 && std::string(j->Name()) == "freejoint")
        fail(*j, "a free joint must be the body's only joint");

    // mass: <inertial>, or the geoms' (inertiafromgeom)
    Mass mass;
    const XMLElement* in = e.FirstChildElement("inertial");
    if (in && in->NextSiblingElement("inertial"))
      fail(*in->NextSiblingElement("inertial"), "a second <inertial>");
    if (in && inertiafromgeom_ != "true") mass = inertial(*in);
    if ((!in && inertiafromgeom_ == "auto") || inertiafromgeom_ == "true") {
      for (const XMLElement* c = e.FirstChildElement("geom"); c;
           c = c->NextSiblingElement("geom")) {
        Geom g;
        if (!geom(*c, g, false) || g.type == "plane") continue;
        if (g.mesh) {
          if (!exactmeshinertia_ && !warned_mesh_inertia_) {
            warned_mesh_inertia_ = true;
            warn(*c,
                 "mesh inertia: appell takes the exact volume of the mesh (MuJoCo's "
                 "exactmeshinertia=\"true\"; MuJoCo 3's default for a convex mesh); MuJoCo "
                 "2's default legacy formula differs");
          }
        }
        const double V = volume(g);
        double m = 0;
        if (has(*c, "mass")) {
          m = get1(*c, "mass", 0);
          if (!(m >= 0)) fail(*c, "attribute 'mass': expected a number >= 0");
        } else {
          const double rho = get1(*c, "density", 1000);
          if (!(rho >= 0)) fail(*c, "attribute 'density': expected a number >= 0");
          m = rho * V;
        }
        if (!std::isfinite(m)) fail(*c, "the geom's mass is not finite");
        if (g.mesh && !g.mesh->defect.empty()) {
          // a geom said to weigh nothing needs no volume
          if (m == 0 && (has(*c, "mass") || has(*c, "density"))) continue;
          fail(*c, g.mesh->defect);
        }
        const Vec3 centre = g.mesh ? g.f.p + g.f.R * g.mesh->com : g.f.p;
        mass.add(m, centre, m * g.f.R * unit_inertia(g) * g.f.R.transpose());
      }
    }

    if (joints.empty() && !(mass.m > 0)) {
      // a massless frame welded to its parent: merged into it
      out_.aliases[name] = Alias{here.body, here.f.p, here.f.R};
      contents(e, here, false);
      return here;
    }
    if (!(mass.m > 0)) fail(e, "a body moved by a joint needs mass (an <inertial> or geoms)");

    // several joints act in order, each in the body frame the ones before it moved
    // (MuJoCo's composition): all but the last carry a massless frame (mass 0, a body of
    // the scene named "BODY/JOINT", at that joint's position with the body's axes) on which
    // the next is placed; the recursion moves them with the body's mass
    Frame at = here;
    Vec3 at_offset = Vec3::Zero();  // the body-frame position of the frame `at`'s origin
    for (size_t k = 0; k + 1 < joints.size(); ++k) {
      const XMLElement& jk = *joints[k];
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
      at = Frame{frame, Pose{Vec3::Zero(), Mat3::Identity()}, W, true};
      at_offset = ok;
    }

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

  // an MJCF joint's name: its own, else "joint<N>" with N MuJoCo's id of the joint + 1
  // (joints counted in MuJoCo's order, the welds of bodies without joints not)
  std::string joint_name(const XMLElement& j) const {
    const char* n = j.Attribute("name");
    return n && *n ? std::string(n) : "joint" + std::to_string(joint_count_ + 1);
  }

  void add_joint(const XMLElement& body, const XMLElement* j, const std::string& type,
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
      props.armature = get1(*j, "armature", 0);
      if (!(props.armature >= 0)) fail(*j, "attribute 'armature': expected a number >= 0");
      props.damping = get1(*j, "damping", 0);
      if (!(props.damping >= 0)) fail(*j, "attribute 'damping': expected a number >= 0");
      const std::string limited = text(*j, "limited", "auto");
      if (limited != "auto" && limited != "true" && limited != "false")
        fail(*j, "attribute 'limited': expected auto, true or false, got '" + limited + "'");
      const bool ranged = has(*j, "range");
      if (limited == "true" || (limited == "auto" && autolimits_ && ranged)) {
        if (!ranged) fail(*j, "limited without a range");
        const auto r = get(*j, "range", 2, 2);
        if (!(r[0] < r[1])) fail(*j, "attribute 'range': expected lower < upper");
        if (type == "hinge" || type == "slide") {
          props.limited = true;
          props.lower = r[0] * scale;
          props.upper = r[1] * scale;
        } else {
          warn(*j, "a range of a " + type + " joint not supported, ignored");
        }
      }
      // MuJoCo's dry friction (a soft constraint row bounded by frictionloss): the joint's
      // Coulomb friction, a bounded row of appell's contact stepper
      const double fl = get1(*j, "frictionloss", 0);
      if (!(fl >= 0)) fail(*j, "attribute 'frictionloss': expected a number >= 0");
      if (fl > 0) {
        if (type == "hinge" || type == "slide")
          props.friction = fl;
        else
          warn(*j, "frictionloss of a " + type + " joint not supported, ignored");
      }
    }
    const std::string pointer = "/constraints/" + std::to_string(out_.doc["constraints"].size());
    if (j) {
      joints_[name] = JointInfo{
          type, out_.doc["constraints"].size(), props.limited, props.lower, props.upper, ref};
      joint_order_.push_back(name);
      const double k = get1(*j, "stiffness", 0);
      if (!(k >= 0)) fail(*j, "attribute 'stiffness': expected a number >= 0");
      if (k > 0) {
        if (type == "hinge" || type == "slide") {
          const double scale = type == "hinge" ? angle(1) : 1.0;
          add_force(*j,
                    {{"type", "joint_spring"},
                     {"joint", name},
                     {"stiffness", k},
                     {"rest", get1(*j, "springref", 0) * scale}},
                    "passive");
        } else {
          warn(*j, "stiffness of a " + type + " joint not supported, ignored");
        }
      }
    }
    joint_names_.insert(name);
    out_.located[pointer] = {where(e), path(e)};
    out_.properties[out_.file + "#" + pointer] = props;
    out_.doc["constraints"].push_back(joint);
  }

  // ---- sizes --------------------------------------------------------------------------
  // The bodies, joints and each body's geoms of <worldbody> counted before any is built (a
  // walk of the elements, O(n)): past the scene's limits (SceneLimits), the first one past
  // is the error, before the work of converting 50,000 bodies that would be refused after it
  void count_tree() const {
    size_t bodies = 0, joints = 0;
    std::vector<const XMLElement*> stack;
    for (const XMLElement* e : top_)
      if (std::string(e->Name()) == "worldbody") stack.push_back(e);
    while (!stack.empty()) {
      const XMLElement* at = stack.back();
      stack.pop_back();
      size_t geoms = 0;  // of this body: its shapes (a scene's list of one body's shapes)
      for (const XMLElement* c = at->FirstChildElement(); c; c = c->NextSiblingElement()) {
        const std::string n = c->Name();
        if (n == "geom" && ++geoms > SceneLimits::kMaxBodies)
          fail(*c, "more than the limit of " + std::to_string(SceneLimits::kMaxBodies) +
                       " geoms in one body");
        if (n == "body") {
          if (++bodies > SceneLimits::kMaxBodies)
            fail(*c,
                 "more than the limit of " + std::to_string(SceneLimits::kMaxBodies) + " bodies");
          stack.push_back(c);
        } else if (n == "joint" || n == "freejoint") {
          if (++joints > SceneLimits::kMaxConstraints)
            fail(*c, "more than the limit of " + std::to_string(SceneLimits::kMaxConstraints) +
                         " joints");
        }
      }
    }
  }

  // ---- includes -----------------------------------------------------------------------
  // root's children into top_, an <include file> by the children of its file's <mujoco>
  // (relative to the main file's folder, as MuJoCo's); `chain` the files being expanded
  void expand(const XMLElement& root, std::vector<std::string>& chain) {
    for (const XMLElement* e = root.FirstChildElement(); e; e = e->NextSiblingElement()) {
      if (std::string(e->Name()) != "include") {
        top_.push_back(e);
        continue;
      }
      for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next())
        if (std::string(a->Name()) != "file")
          fail(*e, std::string("attribute '") + a->Name() + "' of <include> not supported");
      const char* f = e->Attribute("file");
      if (!f || !*f) fail(*e, "missing attribute 'file'");
      std::string p = f;
      const size_t slash = file_.rfind('/');
      if (p[0] != '/' && slash != std::string::npos) p = file_.substr(0, slash + 1) + p;
      for (const std::string& c : chain)
        if (c == p) fail(*e, "'" + p + "' includes itself");
      if (chain.size() > 8) fail(*e, "includes nested deeper than 8 files");
      // a bound on the whole: files that include others many times over would multiply
      if (included_.size() >= 64) fail(*e, "more than 64 included files");
      std::string text;
      try {
        text = read_scene_text(p);
      } catch (const SceneError& x) {
        fail(*e, "cannot read the included file '" + p + "': " + x.message());
      }
      // the limits hold for the main file and its includes together (the elements' count)
      XmlLimits limits = mjcf_limits();
      limits.max_elements = limits.max_elements - std::min(elements_, limits.max_elements);
      const XmlOutline outline = xml_outline(text, limits);
      located_outline_defect(outline, limits, p);
      elements_ += outline.elements;
      auto doc = std::make_unique<tinyxml2::XMLDocument>();
      if (doc->Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
        throw SceneError(p + ":" + std::to_string(doc->ErrorLineNum()), "",
                         std::string("not valid XML: ") +
                             (doc->ErrorStr() ? doc->ErrorStr() : "tinyxml2 could not parse it"));
      const XMLElement* r = doc->RootElement();
      if (!r || std::string(r->Name()) != "mujoco")
        fail(*e, "the included file '" + p + "' is not an MJCF (root element <mujoco>)");
      doc_file_[doc.get()] = p;
      out_.files.push_back(p);
      included_.push_back(std::move(doc));
      chain.push_back(p);
      expand(*r, chain);
      chain.pop_back();
    }
  }

  // ---- keyframes ----------------------------------------------------------------------
  // the <key name=keyframe_> (an error when there is none), its controls read
  void find_keyframe() {
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
  void apply_keyframe(const XMLElement& key) {
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

  // ---- forces: actuators, tendons, springs ------------------------------------------
  // (kind: "passive" or "actuation", for MuJoCo's <flag> switches)
  void add_force(const XMLElement& e, const json& f, const char* kind) {
    if (!out_.doc.contains("forces")) out_.doc["forces"] = json::array();
    const std::string pointer = "/forces/" + std::to_string(out_.doc["forces"].size());
    out_.located[pointer] = {where(e), path(e)};
    out_.kinds[pointer] = kind;
    out_.doc["forces"].push_back(f);
  }
  static bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (unsigned char c : s)
      if (!(std::isalnum(c) || c == '_')) return false;
    return true;
  }

  // τ = clamp(tau0 + dq q + du q̇, lo, hi) on a hinge or slide joint: every MuJoCo actuator
  // at a fixed control, and a joint spring.  appell's own servo, damper or torque where one
  // says the same (no clamp: those keep the exact derivatives), else a joint_torque
  // expression of q(joint) and qd(joint).  (A hinge's angle is read in (−π, π] by both,
  // MuJoCo's is not wrapped: they agree within one turn.)
  void joint_law(const XMLElement& e, const std::string& joint, double tau0, double dq, double du,
                 bool clamped, double lo, double hi, const char* kind) {
    const double kp = -dq, kd = -du;
    const double target = kp > 0 ? tau0 / kp : 0.0;
    json f;
    if (!clamped && kp == 0 && kd >= 0 && (tau0 == 0 || kd == 0)) {
      f = kd > 0 ? json{{"type", "joint_damping"}, {"joint", joint}, {"damping", kd}}
                 : json{{"type", "joint_torque"}, {"joint", joint}, {"value", tau0}};
    } else if (!clamped && kp > 0 && kd >= 0) {
      f = {{"type", "pd"}, {"joint", joint}, {"kp", kp}, {"kd", kd}, {"target", target}};
    } else if (is_identifier(joint)) {
      std::string v = "f0 + fq*q(" + joint + ") + fv*qd(" + joint + ")";
      json p = {{"f0", tau0}, {"fq", dq}, {"fv", du}};
      if (clamped) {
        v = "min(max(" + v + ", lo), hi)";
        p["lo"] = lo;
        p["hi"] = hi;
      }
      f = {{"type", "joint_torque"}, {"joint", joint}, {"value", v}, {"parameters", p}};
    } else if (kp >= 0 && kd >= 0) {
      warn(e, "joint '" + joint +
                  "': its name is not an identifier appell's expressions can read: a pd servo "
                  "without MuJoCo's force limit");
      f = {{"type", "pd"}, {"joint", joint}, {"kp", kp}, {"kd", kd}, {"target", target}};
    } else {
      fail(e, "joint '" + joint +
                  "': this force needs an expression of the joint's coordinate, and the name is "
                  "not an identifier (letters, digits, _)");
    }
    add_force(e, f, kind);
  }

  // A fixed tendon's force F = clamp(f0 + fl L + fv L̇, lo, hi), L = Σ coef q: on each
  // of its joints τ = coef F (joint_torque expressions)
  void tendon_law(const XMLElement& e, const std::string& tendon, double f0, double fl, double fv,
                  bool clamped, double lo, double hi, const char* kind) {
    const auto& terms = tendons_.at(tendon);
    std::string L, Ld;
    json p = {{"f0", f0}, {"fl", fl}, {"fv", fv}};
    for (size_t k = 0; k < terms.size(); ++k) {
      const std::string& j = terms[k].first;
      if (!is_identifier(j))
        fail(e, "tendon '" + tendon + "': joint '" + j +
                    "' has a name that appell's expressions cannot read (letters, digits, _)");
      const std::string c = "c" + std::to_string(k);
      L += (k ? " + " : "") + c + "*q(" + j + ")";
      Ld += (k ? " + " : "") + c + "*qd(" + j + ")";
      p[c] = terms[k].second;
    }
    std::string F = "f0 + fl*(" + L + ") + fv*(" + Ld + ")";
    if (clamped) {
      F = "min(max(" + F + ", lo), hi)";
      p["lo"] = lo;
      p["hi"] = hi;
    }
    for (size_t k = 0; k < terms.size(); ++k)
      add_force(e,
                {{"type", "joint_torque"},
                 {"joint", terms[k].first},
                 {"value", "c" + std::to_string(k) + "*(" + F + ")"},
                 {"parameters", p}},
                kind);
  }

  // <tendon><fixed name stiffness damping springlength> of <joint joint coef>: a length
  // L = Σ coef q for the actuators that name it, and its spring and damper
  void tendons(const XMLElement& t) {
    for (const XMLElement* e = t.FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string n = e->Name();
      if (n != "fixed") {
        warn(*e, "tendon <" + n + "> not supported, ignored (so are actuators on it)");
        continue;
      }
      check_attributes(*e);
      const char* name = e->Attribute("name");
      std::vector<std::pair<std::string, double>> terms;
      for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
        if (std::string(c->Name()) != "joint") {
          warn(*c, "not supported in a fixed tendon, ignored");
          continue;
        }
        for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next())
          if (std::string(a->Name()) != "joint" && std::string(a->Name()) != "coef")
            warn(*c, std::string("attribute '") + a->Name() + "' not supported, ignored");
        const char* j = c->Attribute("joint");
        if (!j) fail(*c, "missing attribute 'joint'");
        const auto it = joints_.find(j);
        if (it == joints_.end()) fail(*c, "no joint '" + std::string(j) + "' in the model");
        if (it->second.type != "hinge" && it->second.type != "slide")
          fail(*c, "a fixed tendon's joint must be a hinge or a slide");
        const char* coef = c->Attribute("coef");
        if (!coef) fail(*c, "missing attribute 'coef'");
        terms.emplace_back(j, numbers(*c, "coef", coef, 1, 1)[0]);
      }
      if (terms.empty()) fail(*e, "a fixed tendon without joints");
      const std::string key = name ? name : "";
      if (!key.empty() && !tendons_.emplace(key, terms).second)
        fail(*e, "a second tendon named '" + key + "'");
      // MuJoCo's spring rests at springlength, or where the tendon is at qpos0 (L = Σ coef ref)
      const double k = get1(*e, "stiffness", 0), b = get1(*e, "damping", 0);
      if (!(k >= 0) || !(b >= 0)) fail(*e, "stiffness and damping must be >= 0");
      const auto rest = get(*e, "springlength", 1, 2, {-1});
      if (rest.size() == 2 && rest[0] != rest[1])
        fail(*e, "attribute 'springlength': a dead band (two lengths) is not supported");
      double L_qpos0 = 0;
      for (const auto& [joint, coef] : terms) L_qpos0 += coef * joints_.at(joint).ref;
      const double L0 = rest[0] >= 0 ? rest[0] : L_qpos0;
      if (k > 0 || b > 0) {
        if (key.empty()) tendons_[""] = terms;
        tendon_law(*e, key, k * L0, -k, -b, false, 0, 0, "passive");
      }
    }
  }

  static bool is_actuator_kind(const std::string& n) {
    return n == "general" || n == "motor" || n == "position" || n == "velocity" || n == "damper";
  }
  // what an actuator element (or its default) says, onto `a`, with its kind's meaning
  // (MuJoCo's shortcuts set the gain, bias and dynamics of <general>)
  void actuator_attributes(const XMLElement& e, ActuatorSpec& a) {
    const std::string kind = e.Name();
    const auto nums = [&](const char* k, size_t lo,
                          size_t hi) -> std::optional<std::vector<double>> {
      const char* v = e.Attribute(k);
      if (!v) return std::nullopt;
      return numbers(e, k, v, lo, hi);
    };
    const auto choice = [&](const char* k, std::string& out, const std::set<std::string>& ok) {
      const char* v = e.Attribute(k);
      if (!v) return;
      if (!ok.count(v)) {
        std::string list;
        for (const auto& o : ok) list += (list.empty() ? "" : ", ") + o;
        fail(e,
             std::string("attribute '") + k + "': expected one of " + list + ", got '" + v + "'");
      }
      out = v;
    };
    if (const auto g = nums("gear", 1, 6)) a.gear = (*g)[0];
    if (const auto r = nums("ctrlrange", 2, 2)) a.ctrlrange = *r;
    if (const auto r = nums("forcerange", 2, 2)) a.forcerange = *r;
    choice("ctrllimited", a.ctrllimited, {"auto", "true", "false"});
    choice("forcelimited", a.forcelimited, {"auto", "true", "false"});
    const auto three = [](const std::vector<double>& v) {
      std::vector<double> out(3, 0.0);
      for (size_t k = 0; k < 3 && k < v.size(); ++k) out[k] = v[k];
      return out;
    };
    if (kind == "general") {
      choice("gaintype", a.gaintype, {"fixed", "affine", "muscle", "user"});
      choice("biastype", a.biastype, {"none", "affine", "muscle", "user"});
      choice("dyntype", a.dyntype,
             {"none", "integrator", "filter", "filterexact", "muscle", "user"});
      if (const auto g = nums("gainprm", 1, 10)) a.gainprm = three(*g);
      if (const auto b = nums("biasprm", 1, 10)) a.biasprm = three(*b);
      if (e.Attribute("dynprm")) nums("dynprm", 1, 10);  // checked; used by dynamics only
    } else if (kind == "motor") {
      a.gaintype = "fixed";
      a.gainprm = {1, 0, 0};
      a.biastype = "none";
      a.biasprm = {0, 0, 0};
      a.dyntype = "none";
    } else if (kind == "position") {
      if (const auto kp = nums("kp", 1, 1)) a.gainprm = {(*kp)[0], 0, 0};
      a.gaintype = "fixed";
      a.biastype = "affine";
      a.biasprm[1] = -a.gainprm[0];
      if (const auto kv = nums("kv", 1, 1)) a.biasprm[2] = -(*kv)[0];
      a.dyntype = "none";
    } else if (kind == "velocity") {
      if (const auto kv = nums("kv", 1, 1)) a.gainprm = {(*kv)[0], 0, 0};
      a.gaintype = "fixed";
      a.biastype = "affine";
      a.biasprm = {0, 0, -a.gainprm[0]};
      a.dyntype = "none";
    } else if (kind == "damper") {
      const double kv = nums("kv", 1, 1).value_or(std::vector<double>{1})[0];
      a.gaintype = "affine";
      a.gainprm = {0, 0, -kv};
      a.biastype = "none";
      a.biasprm = {0, 0, 0};
      a.ctrllimited = "true";
      a.dyntype = "none";
    }
  }

  // <actuator>: MuJoCo's force F = gain·ctrl + bias (gain and bias affine in the actuator
  // length gear·q and its rate), clamped to forcerange, on the joint as gear·F (on a fixed
  // tendon's joints as coef·gear·F).  appell has no control inputs: ctrl is 0, or the
  // selected keyframe's, clamped to ctrlrange as MuJoCo clamps it
  void actuators(const XMLElement& a) {
    for (const XMLElement* e = a.FirstChildElement(); e; e = e->NextSiblingElement()) {
      const std::string n = e->Name();
      const size_t index = actuator_count_++;
      if (!is_actuator_kind(n)) {
        warn(*e, "actuator <" + n + "> not supported, ignored");
        continue;
      }
      check_attributes(*e);
      std::string cls = "main";
      if (const char* c = e->Attribute("class")) {
        cls = c;
        if (!classes_.count(cls)) fail(*e, "no default class '" + cls + "'");
      }
      ActuatorSpec s = actuator_defaults_.count(cls) ? actuator_defaults_.at(cls) : ActuatorSpec{};
      actuator_attributes(*e, s);
      const char* joint = e->Attribute("joint");
      const char* tendon = e->Attribute("tendon");
      if (!joint && !tendon) {
        warn(*e, "an actuator without a joint or tendon transmission not supported, ignored");
        continue;
      }
      if (joint && tendon) fail(*e, "both attribute 'joint' and 'tendon'");
      if (joint) {
        const auto it = joints_.find(joint);
        if (it == joints_.end()) fail(*e, "no joint '" + std::string(joint) + "' in the model");
        if (it->second.type != "hinge" && it->second.type != "slide") {
          warn(*e, "an actuator on a " + it->second.type + " joint not supported, ignored");
          continue;
        }
      } else if (!tendons_.count(tendon)) {
        warn(*e, "no fixed tendon '" + std::string(tendon) +
                     "' (spatial tendons are not supported): actuator ignored");
        continue;
      }
      if (s.gaintype == "muscle" || s.gaintype == "user" || s.biastype == "muscle" ||
          s.biastype == "user") {
        warn(*e, "a muscle or user gain or bias not supported, actuator ignored");
        continue;
      }
      if (s.dyntype != "none")
        warn(*e, "activation dynamics (dyntype '" + s.dyntype +
                     "') not supported: the force follows the control at once");
      const auto limited = [&](const std::string& flag, const std::vector<double>& range,
                               const char* what) {
        const bool on = flag == "true" || (flag == "auto" && autolimits_ && !range.empty());
        if (on && (range.size() != 2 || !(range[0] < range[1])))
          fail(*e, std::string("attribute '") + what + "': expected lower < upper");
        return on;
      };
      double ctrl = index < key_ctrl_.size() ? key_ctrl_[index] : 0.0;
      if (limited(s.ctrllimited, s.ctrlrange, "ctrlrange"))
        ctrl = std::min(std::max(ctrl, s.ctrlrange[0]), s.ctrlrange[1]);
      const bool clamped = limited(s.forcelimited, s.forcerange, "forcerange");
      // F = f0 + fl·(gear L) + fv·(gear L̇), L the joint's coordinate or the tendon's length
      const bool gain_affine = s.gaintype == "affine", bias_affine = s.biastype == "affine";
      const double f0 = s.gainprm[0] * ctrl + (bias_affine ? s.biasprm[0] : 0.0);
      const double fl =
          (gain_affine ? s.gainprm[1] * ctrl : 0.0) + (bias_affine ? s.biasprm[1] : 0.0);
      const double fv =
          (gain_affine ? s.gainprm[2] * ctrl : 0.0) + (bias_affine ? s.biasprm[2] : 0.0);
      const double g = s.gear;
      const double lo = clamped ? std::min(g * s.forcerange[0], g * s.forcerange[1]) : 0.0;
      const double hi = clamped ? std::max(g * s.forcerange[0], g * s.forcerange[1]) : 0.0;
      if (joint)
        joint_law(*e, joint, g * f0, g * g * fl, g * g * fv, clamped, lo, hi, "actuation");
      else
        tendon_law(*e, tendon, g * f0, g * g * fl, g * g * fv, clamped, lo, hi, "actuation");
    }
  }

  // <equality>: <joint joint1 joint2 polycoef> with a linear polynomial is a mimic
  // (q1 = c0 + c1 q2); <connect> a spherical joint closing a loop at the anchor (body1's
  // frame, put in the world at qpos0); <weld> a fixed joint closing a loop at the bodies'
  // relative pose at qpos0.  MuJoCo's are soft (solref, solimp); appell's rows are hard.
  void equalities(const XMLElement& q) {
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
        if (c[k] != 0)
          fail(*e, "attribute 'polycoef': only a linear coupling (c0 c1) is supported");
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
  void contact(const XMLElement& c) {
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

  void loop_equality(const XMLElement& e, const std::string& kind, int index) {
    for (const tinyxml2::XMLAttribute* a = e.FirstAttribute(); a; a = a->Next()) {
      const std::string k = a->Name();
      if (k == "name" || k == "body1" || k == "body2" || (kind == "connect" && k == "anchor") ||
          k == "class")
        continue;
      if (k == "solref" || k == "solimp")
        warn(e, "attribute '" + k +
                    "' (MuJoCo's constraint softness) ignored: appell's rows are hard");
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
    const std::string name =
        e.Attribute("name") ? e.Attribute("name") : kind + std::to_string(index);
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

}  // namespace

bool is_mjcf_text(const std::string& text) {
  return first_significant_char(text) == '<' && xml_outline(text).root == "mujoco";
}

UrdfScene mjcf_scene_from_string(const std::string& xml, const std::string& file,
                                 const std::string& keyframe) {
  const XmlLimits limits = mjcf_limits();
  const XmlOutline outline = xml_outline(xml, limits);
  located_outline_defect(outline, limits, file);
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    std::string why = doc.ErrorStr() ? doc.ErrorStr() : "tinyxml2 could not parse it";
    throw SceneError(file + ":" + std::to_string(doc.ErrorLineNum()), "", "not valid XML: " + why);
  }
  const XMLElement* root = doc.RootElement();
  if (!root || std::string(root->Name()) != "mujoco")
    throw SceneError(file, "", "not an MJCF: the root element is not <mujoco>");
  UrdfScene out;
  out.file = file;
  Converter(file, out, keyframe, outline.elements).run(*root);
  return out;
}

UrdfScene include_mjcf(const Node& include) {
  include.object({"mjcf", "q", "qd", "keyframe"});
  const std::string keyframe = include.has("keyframe") ? include["keyframe"].string() : "";
  if (include.has("keyframe") && keyframe.empty())
    include["keyframe"].fail("expected the name of a <key>");
  const Node file = include["mjcf"];
  std::string path = file.string();
  const std::string& scene = include.file();
  const size_t slash = scene.rfind('/');
  if (!path.empty() && path[0] != '/' && slash != std::string::npos)
    path = scene.substr(0, slash + 1) + path;
  std::string text;
  try {
    text = read_scene_text(path);
  } catch (const SceneError& e) {
    if (e.message() == "cannot open the file")
      file.fail("cannot open the MJCF file '" + path + "'");
    file.fail("cannot read the MJCF file '" + path + "': " + e.message());
  }
  if (!is_mjcf_text(text)) file.fail("'" + path + "' is not an MJCF (XML, root element <mujoco>)");
  UrdfScene u;
  try {
    u = mjcf_scene_from_string(text, path, keyframe);
  } catch (const SceneError& e) {
    // the key the include names is not in the file: the include's error
    if (e.message().rfind(kNoKey, 0) == 0) include["keyframe"].fail(e.message() + " in " + path);
    throw;
  }
  u.files.insert(u.files.begin(), path);
  include_joint_values(include, u);
  follow_mimics(u);
  return u;
}

}  // namespace appell
