// MJCF (MuJoCo's XML) as a scene part (scenes/mjcf.hpp): the entry points and the
// converter's run (scenes/mjcf_converter.hpp: its other steps, one file each).
#include "scenes/mjcf.hpp"

#include <algorithm>

#include "scenes/mjcf_converter.hpp"

namespace appell {

namespace mjcf_detail {

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

Converter::Converter(const std::string& file, UrdfScene& out, const std::string& keyframe,
                     size_t elements)
    : file_(file), keyframe_(keyframe), out_(out), elements_(elements) {
  out_.doc = {{"bodies", json::array()}, {"constraints", json::array()}};
  out_.meshes = std::make_shared<MeshCache>();
}

void Converter::run(const XMLElement& root) {
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
                            " more warnings not shown (the first " + std::to_string(kMaxWarnings) +
                            " are)");
}

// The bodies, joints and each body's geoms of <worldbody> counted before any is built (a
// walk of the elements, O(n)): past the scene's limits (SceneLimits), the first one past
// is the error, before the work of converting 50,000 bodies that would be refused after it
void Converter::count_tree() const {
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
          fail(*c, "more than the limit of " + std::to_string(SceneLimits::kMaxBodies) + " bodies");
        stack.push_back(c);
      } else if (n == "joint" || n == "freejoint") {
        if (++joints > SceneLimits::kMaxConstraints)
          fail(*c, "more than the limit of " + std::to_string(SceneLimits::kMaxConstraints) +
                       " joints");
      }
    }
  }
}

// root's children into top_, an <include file> by the children of its file's <mujoco>
// (relative to the main file's folder, as MuJoCo's); `chain` the files being expanded
void Converter::expand(const XMLElement& root, std::vector<std::string>& chain) {
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

}  // namespace mjcf_detail

bool is_mjcf_text(const std::string& text) {
  return first_significant_char(text) == '<' && xml_outline(text).root == "mujoco";
}

UrdfScene mjcf_scene_from_string(const std::string& xml, const std::string& file,
                                 const std::string& keyframe) {
  const XmlLimits limits = mjcf_detail::mjcf_limits();
  const XmlOutline outline = xml_outline(xml, limits);
  mjcf_detail::located_outline_defect(outline, limits, file);
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS) {
    std::string why = doc.ErrorStr() ? doc.ErrorStr() : "tinyxml2 could not parse it";
    throw SceneError(file + ":" + std::to_string(doc.ErrorLineNum()), "", "not valid XML: " + why);
  }
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (!root || std::string(root->Name()) != "mujoco")
    throw SceneError(file, "", "not an MJCF: the root element is not <mujoco>");
  UrdfScene out;
  out.file = file;
  mjcf_detail::Converter(file, out, keyframe, outline.elements).run(*root);
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
    if (e.message().rfind(mjcf_detail::kNoKey, 0) == 0)
      include["keyframe"].fail(e.message() + " in " + path);
    throw;
  }
  u.files.insert(u.files.begin(), path);
  include_joint_values(include, u);
  follow_mimics(u);
  return u;
}

}  // namespace appell
