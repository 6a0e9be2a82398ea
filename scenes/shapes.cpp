// "shapes" of a body, or of the world at the top level (docs/scene-format.md "Collision
// shapes").
#include "scenes/shapes.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "appell/shape_types.hpp"

namespace appell {

namespace {

// a filter's bit set: an integer in [0, 2^32)
std::uint32_t bits(const Node& n) {
  const nlohmann::json& j = n.json();
  if (!j.is_number_integer() && !j.is_number_unsigned())
    n.fail("expected an integer in [0, 4294967295], got " + type_name(j));
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (v > std::numeric_limits<std::uint32_t>::max())
      n.fail("expected an integer in [0, 4294967295], got " + std::to_string(v));
    return static_cast<std::uint32_t>(v);
  }
  const auto v = j.get<std::int64_t>();
  if (v < 0 || v > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max()))
    n.fail("expected an integer in [0, 4294967295], got " + std::to_string(v));
  return static_cast<std::uint32_t>(v);
}

}  // namespace

std::string mesh_path(const Node& n) {
  std::string path = n.string();
  if (path.empty()) n.fail("expected a file name");
  const std::string& scene = n.file();
  const size_t slash = scene.rfind('/');
  if (path[0] != '/' && slash != std::string::npos) path = scene.substr(0, slash + 1) + path;
  return path;
}

namespace {

// a scale factor: finite and nonzero (negative mirrors)
double factor(const Node& n) {
  const double v = n.number();
  if (v == 0) n.fail("a scale must be nonzero (negative mirrors), got 0");
  return v;
}

// "vertices": [[x, y, z], ...] and "faces": [[i, j, k], ...] (indices from 0)
MeshFile inline_mesh(const Node& n) {
  MeshFile f;
  const Node v = n["vertices"];
  if (!v.json().is_array()) v.fail("expected an array of [x, y, z]");
  for (size_t i = 0; i < v.size(); ++i) f.vertices.push_back(v.at(i).vec3());
  if (!n.has("faces")) return f;
  const Node t = n["faces"];
  if (!t.json().is_array()) t.fail("expected an array of [i, j, k]");
  for (size_t i = 0; i < t.size(); ++i) {
    const auto e = t.at(i).array(3);
    std::array<int, 3> face{};
    for (int k = 0; k < 3; ++k) {
      const nlohmann::json& j = e[k].json();
      if (!j.is_number_integer() || j.get<long long>() < 0 ||
          j.get<long long>() >= static_cast<long long>(f.vertices.size()))
        e[k].fail("expected a vertex index from 0 to " + std::to_string(f.vertices.size() - 1));
      face[k] = j.get<int>();
    }
    f.triangles.push_back(face);
  }
  return f;
}

// a shape entry's sizes, for its type to read (appell/shape_types.hpp)
class SceneShapeEntry final : public ShapeEntry {
 public:
  SceneShapeEntry(const Node& n, MeshCache& meshes) : n_(n), meshes_(meshes) {}
  double positive(const char* key) const override { return n_[key].positive(); }
  Vec3 positive3(const char* key) const override {
    const auto e = n_[key].array(3);
    return Vec3(e[0].positive(), e[1].positive(), e[2].positive());
  }
  std::shared_ptr<const Mesh> mesh() const override;

 private:
  const Node& n_;
  MeshCache& meshes_;
};

// "file" (read once per scene and scale, shared) or the "vertices" themselves, times
// "scale"
std::shared_ptr<const Mesh> SceneShapeEntry::mesh() const {
  const Node& n = n_;
  Vec3 scale = Vec3::Ones();
  if (n.has("scale")) {
    const Node sc = n["scale"];
    if (sc.json().is_array()) {
      const auto e = sc.array(3);
      scale = Vec3(factor(e[0]), factor(e[1]), factor(e[2]));
    } else {
      scale = Vec3::Constant(factor(sc));
    }
  }
  if (n.has("vertices") == n.has("file")) n.fail("a mesh needs either \"file\" or \"vertices\"");
  if (n.has("faces") && !n.has("vertices")) n["faces"].fail("\"faces\" go with \"vertices\"");
  if (n.has("vertices")) {
    try {
      return scaled_mesh(inline_mesh(n), scale);
    } catch (const std::invalid_argument& e) {
      n["vertices"].fail(std::string("scaled, ") + (e.what() + std::strlen("make_mesh(): ")));
    }
  }
  const std::string path = mesh_path(n["file"]);
  std::string error;
  std::shared_ptr<const Mesh> mesh = meshes_.load(path, scale, error);
  if (!mesh) n["file"].fail("cannot read the mesh '" + path + "': " + error);
  return mesh;
}

}  // namespace

Shape parse_shape(const Node& n, int body, const std::string& body_name, const Vec3& com,
                  size_t index, MeshCache& meshes) {
  static const std::vector<std::string> kSizes = shape_parameter_keys();
  std::vector<std::string> keys = {
      "name",        "type",  "position", "orientation",         "friction",
      "restitution", "group", "mask",     "collide_with_joined", "visual"};
  keys.insert(keys.begin() + 4, kSizes.begin(), kSizes.end());
  n.object(keys);
  Shape s;
  s.body = body;
  s.name = n.has("name") ? n["name"].name("shape") : body_name + "/" + std::to_string(index);
  const std::string type = n["type"].string();
  if (!parse_shape_type(type, s.type))
    n["type"].fail("unknown shape type '" + type + "'; expected " + shape_type_names());
  // the type's own sizes, and no other type's
  const std::vector<std::string> own = shape_keys(s.type);
  for (const std::string& k : kSizes)
    if (n.has(k.c_str()) && std::find(own.begin(), own.end(), k) == own.end())
      n[k.c_str()].fail("a " + type + " has no " + k);
  read_shape_sizes(SceneShapeEntry(n, meshes), s);
  if (n.has("position")) s.position = n["position"].vec3();
  if (n.has("orientation")) s.orientation = parse_orientation(n["orientation"]);
  s.position -= com;  // link frame -> centre-of-mass frame (same axes)
  if (n.has("friction")) s.friction = n["friction"].nonnegative();
  if (n.has("restitution")) {
    s.restitution = n["restitution"].nonnegative();
    if (s.restitution > 1) n["restitution"].fail("restitution must be in [0, 1]");
  }
  if (n.has("group")) s.group = bits(n["group"]);
  if (n.has("mask")) s.mask = bits(n["mask"]);
  if (n.has("visual")) {
    if (!n["visual"].json().is_boolean()) n["visual"].fail("expected true or false");
    s.visual = n["visual"].json().get<bool>();
  }
  if (n.has("collide_with_joined")) {
    if (!n["collide_with_joined"].json().is_boolean())
      n["collide_with_joined"].fail("expected true or false");
    s.collide_with_joined = n["collide_with_joined"].json().get<bool>();
  }
  const std::string defect = shape_defect(s);
  if (!defect.empty())
    (n.has("file") ? n["file"] : n.has("vertices") ? n["vertices"] : n).fail(defect);
  return s;
}

}  // namespace appell
