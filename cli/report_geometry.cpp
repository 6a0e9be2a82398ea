// The geometry the report's animation draws on the bodies: every collision shape and every
// visual shape of the Model (Model::shapes(), Model::visuals()), posed on its body, and
// the meshes' triangles, compactly (float32 positions and uint32 indices, base64), with
// identical meshes stored once and the page's triangles capped (kMaxTriangles): a mesh
// above its share is decimated by vertex clustering and a note says so.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <unordered_map>

#include "appell/shape_types.hpp"
#include "cli/report.hpp"

namespace appell::cli {

using nlohmann::json;

namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t n = (std::uint32_t{bytes[i]} << 16) |
                            (i + 1 < bytes.size() ? std::uint32_t{bytes[i + 1]} << 8 : 0) |
                            (i + 2 < bytes.size() ? std::uint32_t{bytes[i + 2]} : 0);
    out += kBase64[(n >> 18) & 63];
    out += kBase64[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[n & 63] : '=';
  }
  return out;
}

// little-endian, whatever the machine (the page's typed arrays read little-endian)
void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}
void put_float(std::vector<std::uint8_t>& out, double v) {
  const float f = static_cast<float>(v);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  put32(out, bits);
}

json vec(const Vec3& v) {
  return json::array({v.x(), v.y(), v.z()});
}

using Triangles = std::vector<std::array<int, 3>>;

// The triangles that remain when the vertices are snapped to a grid of `cells` cells
// along the box's longest edge (each cell's vertices merged into their mean): degenerate
// and repeated triangles drop out.  Rossignac & Borrel's vertex clustering, the simplest
// decimation that keeps a mesh's outline.
void cluster(const std::vector<Vec3>& v, const Triangles& faces, double cells,
             std::vector<Vec3>& out_v, Triangles& out_f) {
  Vec3 lo = v[0], hi = v[0];
  for (const Vec3& p : v) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double cell = std::max((hi - lo).maxCoeff() / cells, 1e-300);
  std::map<std::array<long long, 3>, int> index;
  std::vector<int> of(v.size(), -1);
  std::vector<Vec3> sum;
  std::vector<int> count;
  const auto vertex = [&](int i) {
    if (of[i] >= 0) return of[i];
    std::array<long long, 3> key;
    for (int k = 0; k < 3; ++k)
      key[k] = static_cast<long long>(std::floor((v[i](k) - lo(k)) / cell));
    const auto [it, fresh] = index.emplace(key, static_cast<int>(sum.size()));
    if (fresh) {
      sum.push_back(Vec3::Zero());
      count.push_back(0);
    }
    sum[it->second] += v[i];
    ++count[it->second];
    return of[i] = it->second;
  };
  std::map<std::array<int, 3>, bool> seen;
  out_f.clear();
  for (const auto& f : faces) {
    const std::array<int, 3> t{vertex(f[0]), vertex(f[1]), vertex(f[2])};
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) continue;
    std::array<int, 3> key = t;
    std::sort(key.begin(), key.end());
    if (seen.emplace(key, true).second) out_f.push_back(t);
  }
  out_v.resize(sum.size());
  for (size_t i = 0; i < sum.size(); ++i) out_v[i] = sum[i] / count[i];
}

// only the vertices the faces use, renumbered
void compact(std::vector<Vec3>& v, Triangles& faces) {
  std::vector<int> of(v.size(), -1);
  std::vector<Vec3> used;
  for (auto& f : faces)
    for (int& i : f) {
      if (of[i] < 0) {
        of[i] = static_cast<int>(used.size());
        used.push_back(v[i]);
      }
      i = of[i];
    }
  v.swap(used);
}

// one mesh of the page: at most `budget` triangles (at least 12), a note when decimated
json mesh_entry(const Shape& s, size_t budget, std::vector<std::string>& notes) {
  std::vector<Vec3> v = s.mesh->vertices;
  Triangles faces = s.mesh->faces;
  const size_t source = faces.size();
  json e = {{"source_triangles", source}};
  if (faces.empty()) {
    // no triangles (a mesh given by its vertices): drawn as points, at most 3 budget
    if (v.size() > 3 * budget) {
      const size_t stride = (v.size() + 3 * budget - 1) / (3 * budget);
      std::vector<Vec3> kept;
      for (size_t i = 0; i < v.size(); i += stride) kept.push_back(v[i]);
      notes.push_back("mesh '" + s.name + "': " + std::to_string(v.size()) +
                      " vertices, drawn as " + std::to_string(kept.size()) + " points");
      v.swap(kept);
    }
  } else {
    budget = std::max<size_t>(budget, 12);
    if (faces.size() > budget) {
      std::vector<Vec3> dv;
      Triangles df;
      // coarser grids until the triangles fit
      for (double cells = 1024; cells >= 2; cells *= 0.75) {
        cluster(v, faces, cells, dv, df);
        if (df.size() <= budget) break;
      }
      if (df.size() > budget) df.resize(budget);  // 2 cells and still too many: cut
      v.swap(dv);
      faces.swap(df);
      notes.push_back("mesh '" + s.name + "': " + std::to_string(source) + " triangles, drawn as " +
                      std::to_string(faces.size()) + " (decimated: the page holds at most " +
                      std::to_string(ReportLimits::kMaxTriangles) + " triangles)");
    }
    compact(v, faces);
  }
  std::vector<std::uint8_t> pos, idx;
  pos.reserve(12 * v.size());
  for (const Vec3& p : v)
    for (int k = 0; k < 3; ++k) put_float(pos, p(k));
  idx.reserve(12 * faces.size());
  for (const auto& f : faces)
    for (int i : f) put32(idx, static_cast<std::uint32_t>(i));
  e["vertices"] = v.size();
  e["triangles"] = faces.size();
  e["positions"] = base64(pos);
  e["indices"] = base64(idx);
  return e;
}

// a key equal for shapes sharing one Mesh (the loader shares a file read at one scale)
std::string mesh_key(const Shape& s) {
  return std::to_string(reinterpret_cast<std::uintptr_t>(s.mesh.get()));
}

}  // namespace

json report_geometry(const Model& m) {
  std::vector<const Shape*> all;
  for (const Shape& s : m.shapes()) all.push_back(&s);
  for (const Shape& s : m.visuals()) all.push_back(&s);
  // distinct meshes, and each one's share of the page's triangles
  std::unordered_map<std::string, int> mesh_of;
  std::vector<const Shape*> meshes;
  size_t total = 0;
  std::vector<int> shape_mesh(all.size(), -1);
  for (size_t i = 0; i < all.size(); ++i) {
    if (!all[i]->mesh) continue;
    const auto [it, fresh] = mesh_of.emplace(mesh_key(*all[i]), static_cast<int>(meshes.size()));
    if (fresh) {
      meshes.push_back(all[i]);
      total += std::max(all[i]->mesh->faces.size(), all[i]->mesh->vertices.size() / 3);
    }
    shape_mesh[i] = it->second;
  }
  std::vector<std::string> notes;
  json mesh_list = json::array();
  for (const Shape* s : meshes) {
    const size_t size = std::max(s->mesh->faces.size(), s->mesh->vertices.size() / 3);
    const size_t budget =
        total <= ReportLimits::kMaxTriangles
            ? std::max<size_t>(size, 1)
            : static_cast<size_t>(static_cast<double>(ReportLimits::kMaxTriangles) *
                                  static_cast<double>(size) / static_cast<double>(total));
    mesh_list.push_back(mesh_entry(*s, budget, notes));
  }
  json shapes = json::array();
  for (size_t i = 0; i < all.size(); ++i) {
    const Shape& s = *all[i];
    json e = {{"name", s.name},
              {"body", s.body < 0 ? -1 : s.body},
              {"kind", shape_type_name(s.type)},
              {"visual", s.visual},
              {"p", vec(s.position)},
              {"q", {s.orientation.w(), s.orientation.x(), s.orientation.y(), s.orientation.z()}},
              {"r", shape_reach(s)}};
    // the type's own numbers (appell/shape_types.hpp)
    const ShapeDescription d = describe_shape(s);
    for (int k = 0; k < d.count; ++k) {
      const ShapeDescription::Entry& x = d.entries[k];
      e[x.key] = x.n == 1 ? json(x.v[0]) : vec(Vec3(x.v[0], x.v[1], x.v[2]));
    }
    if (shape_mesh[i] >= 0) e["mesh"] = shape_mesh[i];
    shapes.push_back(e);
  }
  return {{"shapes", shapes},
          {"meshes", mesh_list},
          {"max_triangles", ReportLimits::kMaxTriangles},
          {"notes", notes}};
}

}  // namespace appell::cli
