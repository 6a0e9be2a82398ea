// libFuzzer target: bytes → a mesh file with each accepted extension (.stl, .obj, .ply
// read by our readers; .dae, .gltf, .glb by assimp in a child process) → read_mesh_file →
// the scaled Mesh and its hull (make_mesh), plain and mirrored.
//
// A file either reads, with finite vertices, triangles whose indices name them and counts
// within MeshLimits, or is refused with a one-line reason; assimp's crashes and hangs stay
// in its child (its time limit, 4 s, is well below libFuzzer's -timeout=10).  Any other
// outcome, a crash or a sanitizer report is a defect.  The bytes go through files because
// meshes are read by path; one folder per process, rewritten per input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "appell/geometry.hpp"
#include "appell/scene_document.hpp"
#include "scenes/shapes.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace appell;
  if (size > 1 << 20) return 0;
  static const std::string base = "/tmp/appell_mesh_fuzz_" + std::to_string(getpid()) + ".";
  for (const char* ext : {"stl", "obj", "ply", "dae", "gltf", "glb"}) {
    const std::string path = base + ext;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(bytes, 1, size, f);
    std::fclose(f);
    MeshFile file;
    std::string error;
    if (!read_mesh_file(path, file, error)) {
      if (error.empty() || error.find('\n') != std::string::npos) __builtin_trap();
      if (!file.vertices.empty() || !file.triangles.empty()) __builtin_trap();
      continue;
    }
    if (file.vertices.empty()) __builtin_trap();
    if (static_cast<long long>(file.vertices.size()) > MeshLimits::kMaxVertices ||
        static_cast<long long>(file.triangles.size()) > MeshLimits::kMaxTriangles)
      __builtin_trap();
    for (const Vec3& v : file.vertices)
      if (!v.allFinite()) __builtin_trap();
    for (const auto& t : file.triangles)
      for (int i : t)
        if (i < 0 || i >= static_cast<int>(file.vertices.size())) __builtin_trap();
    for (const Vec3& scale : {Vec3(1, 1, 1), Vec3(-1, 2, 1)}) {
      std::shared_ptr<const Mesh> mesh;
      try {
        mesh = scaled_mesh(file, scale);
      } catch (const std::invalid_argument&) {
        continue;  // a vertex that the scale makes infinite: a message, never a crash
      }
      if (static_cast<int>(mesh->hull.size()) > kMaxHullVertices) __builtin_trap();
      Shape s;
      s.type = ShapeType::ConvexMesh;
      s.mesh = mesh;
      (void)shape_defect(s);
    }
  }
  return 0;
}
