// URDF robots as a scene part (scenes/urdf.hpp): the entry points, urdfdom's parse, a
// scene's "include" (scenes/urdf_converter.hpp: the conversion).
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
#include "scenes/urdf_converter.hpp"
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

// urdfdom reports why a parse failed through console_bridge; keep its first error
class Capture final : public console_bridge::OutputHandler {
 public:
  std::string first_error;
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR && first_error.empty())
      first_error = text;
  }
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
  urdf_detail::Converter(*model, out).run(floating_base);
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
