// Internal to the scene loader: collision shapes in scenes (docs/scene-format.md "Collision
// shapes") and the meshes they read.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "appell/geometry.hpp"
#include "scenes/reader.hpp"

namespace appell {

// The shape at n on body `body` (kWorld for the world): its pose is given in the body's
// link frame, whose origin sits at -com in the centre-of-mass frame.  `index` names a
// shape without "name" ("<body>/<index>").  Located errors.
Shape parse_shape(const Node& n, int body, const std::string& body_name, const Vec3& com,
                  size_t index);

// A mesh shape's file (its "file" at n): relative to the scene's folder unless absolute.
std::string mesh_path(const Node& n);

// A body orientation {quaternion | axis_angle | matrix} (also used by bodies).
Quat parse_orientation(const Node& n);

// The vertices of every mesh in an OBJ, STL, DAE... file (read by assimp), times `scale`.
// Returns false and says why in `error` when the file cannot be read.
bool read_mesh_vertices(const std::string& path, const Vec3& scale, std::vector<Vec3>& out,
                        std::string& error);
// The same, with the file's triangles as indices into `out` (polygons triangulated; points
// and lines left out), for drawing.
bool read_mesh(const std::string& path, const Vec3& scale, std::vector<Vec3>& out,
               std::vector<std::array<int, 3>>& faces, std::string& error);

// The same file's triangles too (assimp's triangulation; indices into `vertices`), for the
// mass properties of the solid they bound (MJCF's inertia from mesh geoms).
bool read_mesh_triangles(const std::string& path, const Vec3& scale, std::vector<Vec3>& vertices,
                         std::vector<std::array<int, 3>>& triangles, std::string& error);

}  // namespace appell
