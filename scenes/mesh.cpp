// Mesh files for mesh shapes (docs/scene-format.md "Mesh files"): their vertices and
// triangles, read once per scene load and shared (MeshCache).
//
// Which reader.  STL, OBJ and PLY, the formats robots ship their collision meshes in, are
// read here by strict readers: one pass over the bytes, every count a header states checked
// against the bytes that must hold it before anything is allocated, every index checked,
// every number finite.  They cannot hang or abort, and a fuzzer sees all of their code.
// COLLADA (.dae) and glTF (.gltf, .glb), whose grammars are large, go to assimp, which
// Debian builds with assertions (an ai_assert aborts the process) and whose readers can loop
// on a malformed file; it runs in a child process (fork) under a CPU-time and an
// address-space limit, killed after MeshLimits::kImportSeconds of wall-clock time, and sends
// the vertices and triangles back through a pipe.  The child's death or its timeout is an
// error message here; the child leaves by _exit and prints nothing.  Everything else (3MF,
// OFF, FBX, ... which assimp would also try) is refused by its extension, and each accepted
// format's content is checked (STL sizes, PLY and GLB headers, the XML or JSON start of
// DAE and glTF) before a reader or assimp sees it.
//
// A fork copies only the calling thread: in a multithreaded program a lock another thread
// held at the fork (inside assimp or the C++ runtime) can block the child; the wall-clock
// limit ends it, and the load fails with that message.
#include <LinearMath/btConvexHullComputer.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "scenes/mesh_readers.hpp"

namespace appell {

namespace {

const char* const kAccepted = "STL, OBJ, PLY, DAE (COLLADA), glTF or GLB";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

}  // namespace

bool read_mesh_file(const std::string& path, MeshFile& out, std::string& error) {
  out = MeshFile{};
  // a regular file of bounded size: a device or a pipe would block the reader or never end
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot open the file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return false;
  }
  const std::string ext = extension(path);
  const bool own = ext == "stl" || ext == "obj" || ext == "ply";
  const bool assimp = ext == "dae" || ext == "gltf" || ext == "glb";
  if (!own && !assimp) {
    error = (ext.empty() ? std::string("a mesh file without an extension")
                         : "unsupported mesh format '." + ext + "'") +
            "; accepted: " + kAccepted + " (by the file's extension)";
    return false;
  }
  if (st.st_size > MeshLimits::kMaxBytes) {
    error = "larger than the limit of " + std::to_string(MeshLimits::kMaxBytes >> 20) + " MiB";
    return false;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  {
    std::ifstream in(path, std::ios::binary);
    if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
      error = "cannot read the file";
      return false;
    }
  }
  mesh_detail::Sink sink{out, ""};
  bool ok = false;
  if (ext == "stl")
    ok = mesh_detail::read_stl(bytes, sink);
  else if (ext == "obj")
    ok = mesh_detail::read_obj(bytes, sink);
  else if (ext == "ply")
    ok = mesh_detail::read_ply(bytes, sink);
  else {
    error = mesh_detail::assimp_content_defect(ext, bytes);
    if (!error.empty()) return false;
    bytes = std::string();  // the child needs the path only
    ok = mesh_detail::import_sandboxed(path, sink);
  }
  if (ok && out.vertices.empty()) ok = sink.fail("no vertices");
  if (!ok) {
    error = sink.error;
    out = MeshFile{};
  }
  return ok;
}

void hull_triangles(MeshFile& f) {
  f.triangles.clear();
  if (f.vertices.size() < 4) return;
  btConvexHullComputer hull;
  hull.compute(f.vertices.data()->data(), static_cast<int>(sizeof(Vec3)),
               static_cast<int>(f.vertices.size()), 0, 0);
  f.vertices.clear();
  for (int i = 0; i < hull.vertices.size(); ++i)
    f.vertices.emplace_back(hull.vertices[i].x(), hull.vertices[i].y(), hull.vertices[i].z());
  // each face's edges in turn (counter-clockwise seen from outside)
  for (int i = 0; i < hull.faces.size(); ++i) {
    const btConvexHullComputer::Edge* first = &hull.edges[hull.faces[i]];
    std::vector<long long> corners;
    const btConvexHullComputer::Edge* e = first;
    do {
      corners.push_back(e->getSourceVertex());
      e = e->getNextEdgeOfFace();
    } while (e != first && corners.size() <= f.vertices.size());
    for (size_t k = 1; k + 1 < corners.size(); ++k)
      f.triangles.push_back({static_cast<int>(corners[0]), static_cast<int>(corners[k]),
                             static_cast<int>(corners[k + 1])});
  }
}

std::shared_ptr<const Mesh> scaled_mesh(const MeshFile& file, const Vec3& scale) {
  std::vector<Vec3> v;
  v.reserve(file.vertices.size());
  for (const Vec3& p : file.vertices) v.push_back(p.cwiseProduct(scale));
  std::vector<mesh_detail::Triangle> t = file.triangles;
  // a mirror (an odd number of negative factors) turns the triangles' winding: swapped
  // back, their normals point out and the volume they bound stays positive
  if (scale.prod() < 0)
    for (mesh_detail::Triangle& f : t) std::swap(f[1], f[2]);
  return make_mesh(std::move(v), std::move(t));
}

std::shared_ptr<const Mesh> MeshCache::load(const std::string& path, const Vec3& scale,
                                            std::string& error) {
  char resolved[PATH_MAX];
  const std::string key = ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  const auto scaled = meshes_.find({key, {scale.x(), scale.y(), scale.z()}});
  if (scaled != meshes_.end()) return scaled->second;
  auto file = files_.find(key);
  if (file == files_.end()) {
    MeshFile f;
    ++reads_;
    if (!read_mesh_file(path, f, error)) return nullptr;
    file = files_.emplace(key, std::move(f)).first;
  }
  std::shared_ptr<const Mesh> mesh;
  try {
    mesh = scaled_mesh(file->second, scale);
  } catch (const std::invalid_argument& e) {
    error = std::string("scaled, ") + (e.what() + std::strlen("make_mesh(): "));
    return nullptr;
  }
  meshes_.emplace(std::make_pair(key, std::array<double, 3>{scale.x(), scale.y(), scale.z()}),
                  mesh);
  return mesh;
}

}  // namespace appell
