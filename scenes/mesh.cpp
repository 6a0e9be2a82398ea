// Mesh files for convex collision shapes, read by assimp: the vertices (the shape is their
// convex hull) and the triangles, which reports draw.
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <sys/stat.h>

#include <array>
#include <assimp/Importer.hpp>
#include <climits>

#include "scenes/shapes.hpp"

namespace appell {

bool read_mesh_vertices(const std::string& path, const Vec3& scale, std::vector<Vec3>& out,
                        std::string& error) {
  std::vector<std::array<int, 3>> faces;
  return read_mesh(path, scale, out, faces, error);
}

bool read_mesh(const std::string& path, const Vec3& scale, std::vector<Vec3>& out,
               std::vector<std::array<int, 3>>& faces, std::string& error) {
  // a regular file of bounded size: a device or a pipe would block the reader or never end
  constexpr long long kMaxBytes = 256ll << 20;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot open the file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return false;
  }
  if (st.st_size > kMaxBytes) {
    error = "larger than the limit of 256 MiB";
    return false;
  }
  Assimp::Importer importer;
  // the file's node transforms are applied (a mesh exported with a unit scale or an axis
  // swap keeps its shape); polygons become triangles (no vertex is added), normals are
  // not needed
  const aiScene* scene =
      importer.ReadFile(path, aiProcess_PreTransformVertices | aiProcess_Triangulate);
  if (!scene || !scene->HasMeshes()) {
    const char* why = importer.GetErrorString();
    error = (why && *why) ? why : "no mesh in the file";
    return false;
  }
  out.clear();
  faces.clear();
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    const auto base = static_cast<long long>(out.size());
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D& p = mesh->mVertices[v];
      out.push_back(Vec3(p.x, p.y, p.z).cwiseProduct(scale));
    }
    // triangles only (points and lines are not drawn); indices checked, not trusted
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;
      std::array<int, 3> t{};
      bool ok = true;
      for (int k = 0; k < 3; ++k) {
        ok = ok && face.mIndices[k] < mesh->mNumVertices && base + face.mIndices[k] < INT_MAX;
        if (ok) t[k] = static_cast<int>(base + face.mIndices[k]);
      }
      if (ok) faces.push_back(t);
    }
  }
  if (out.empty()) {
    error = "the meshes have no vertices";
    return false;
  }
  return true;
}

bool read_mesh_triangles(const std::string& path, const Vec3& scale, std::vector<Vec3>& vertices,
                         std::vector<std::array<int, 3>>& triangles, std::string& error) {
  // the file checks of read_mesh_vertices() first (a device or a huge file is refused)
  if (!read_mesh_vertices(path, scale, vertices, error)) return false;
  Assimp::Importer importer;
  const aiScene* scene =
      importer.ReadFile(path, aiProcess_PreTransformVertices | aiProcess_Triangulate |
                                  aiProcess_JoinIdenticalVertices);
  if (!scene || !scene->HasMeshes()) {
    const char* why = importer.GetErrorString();
    error = (why && *why) ? why : "no mesh in the file";
    return false;
  }
  vertices.clear();
  triangles.clear();
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    const int base = static_cast<int>(vertices.size());
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D& p = mesh->mVertices[v];
      vertices.push_back(Vec3(p.x, p.y, p.z).cwiseProduct(scale));
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines bound no volume
      triangles.push_back({base + static_cast<int>(face.mIndices[0]),
                           base + static_cast<int>(face.mIndices[1]),
                           base + static_cast<int>(face.mIndices[2])});
    }
  }
  if (triangles.empty()) {
    error = "the meshes have no triangles";
    return false;
  }
  return true;
}

}  // namespace appell
