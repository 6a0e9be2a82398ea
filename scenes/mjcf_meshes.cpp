// The MJCF converter's meshes (scenes/mjcf_converter.hpp): <asset><mesh>, read when a geom
// first uses it, and the solid it bounds.
#include <climits>
#include <cmath>
#include <cstdlib>

#include "scenes/mjcf_converter.hpp"

namespace appell::mjcf_detail {

// <asset><mesh name file scale>: read when a geom first uses it
void Converter::assets(const XMLElement& a) {
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
const MeshAsset& Converter::load_mesh(MeshAsset& m) {
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

}  // namespace appell::mjcf_detail
