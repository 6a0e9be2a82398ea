// Internal to the scene loader: collision shapes in scenes (docs/scene-format.md "Collision
// shapes") and the meshes they read.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "appell/geometry.hpp"
#include "scenes/reader.hpp"

namespace appell {

class MeshCache;

// The shape at n on body `body` (kWorld for the world): its pose is given in the body's
// link frame, whose origin sits at -com in the centre-of-mass frame.  `index` names a
// shape without "name" ("<body>/<index>").  Mesh files are read through `meshes`.
// Located errors.
Shape parse_shape(const Node& n, int body, const std::string& body_name, const Vec3& com,
                  size_t index, MeshCache& meshes);

// A mesh shape's file (its "file" at n): relative to the scene's folder unless absolute.
std::string mesh_path(const Node& n);

// A body orientation {quaternion | axis_angle | matrix} (also used by bodies).
Quat parse_orientation(const Node& n);

// A mesh file's vertices and triangles (indices into vertices), unscaled.
struct MeshFile {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;
};

// Reads the mesh file at `path` (scenes/mesh.cpp: STL, OBJ and PLY here, DAE and glTF by
// assimp in a child process; limits in MeshLimits).  Returns false and says why in `error`
// (a phrase without the path, which the caller's message names) when it cannot.
// O(file size).
bool read_mesh_file(const std::string& path, MeshFile& out, std::string& error);

// The file's mesh times `scale` (nonzero factors; a mirror, an odd number of negative
// ones, turns the triangles back outward), with its hull (make_mesh).
std::shared_ptr<const Mesh> scaled_mesh(const MeshFile& file, const Vec3& scale);

// Replaces f's vertices and triangles by its convex hull's (Bullet's hull computer; each
// hull face a fan, outward), for a mesh given without faces.  O(n log n).
void hull_triangles(MeshFile& f);

// The meshes of one scene load: each file read once, each (file, scale) made into one
// Mesh that every shape using it shares.  Not for threads.
class MeshCache {
 public:
  // The mesh of the file at `path` (same file: same realpath) times `scale`; null, with
  // the reason in `error`, when it cannot be read.
  std::shared_ptr<const Mesh> load(const std::string& path, const Vec3& scale, std::string& error);
  // how many files were read (each at most once)
  int reads() const { return reads_; }

 private:
  std::map<std::string, MeshFile> files_;
  std::map<std::pair<std::string, std::array<double, 3>>, std::shared_ptr<const Mesh>> meshes_;
  int reads_ = 0;
};

}  // namespace appell
