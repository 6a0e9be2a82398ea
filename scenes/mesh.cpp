// Mesh files for convex collision shapes, read by assimp: only the vertices are kept (the
// shape is their convex hull).
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <sys/stat.h>

#include <assimp/Importer.hpp>

#include "scenes/shapes.hpp"

namespace appell {

bool read_mesh_vertices(const std::string& path, const Vec3& scale, std::vector<Vec3>& out,
                        std::string& error) {
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
  // swap keeps its shape); faces and normals are not needed
  const aiScene* scene = importer.ReadFile(path, aiProcess_PreTransformVertices);
  if (!scene || !scene->HasMeshes()) {
    const char* why = importer.GetErrorString();
    error = (why && *why) ? why : "no mesh in the file";
    return false;
  }
  out.clear();
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D& p = mesh->mVertices[v];
      out.push_back(Vec3(p.x, p.y, p.z).cwiseProduct(scale));
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
