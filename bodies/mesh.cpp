// A mesh and its convex hull (appell/geometry.hpp "Mesh"), built once and shared.
//
// The hull is Bullet's btConvexHullComputer (Preparata–Hong divide and conquer,
// O(n log n)).  Contact queries (engine/contact/collision.cpp) read the hull's vertices
// only: a support query is a loop over them, so its cost is bounded by kMaxHullVertices.
// A hull above that size (a scanned surface, a finely tessellated sphere) is simplified:
// the vertices' directions from the hull's centroid are binned into the 6·g² cells of a
// cube map (g = 13: 1014 cells), and each cell keeps its vertex farthest along the cell's
// central direction.  The kept points are hull vertices, so the simplified hull lies inside
// the full one; a second hull of at most 1014 points drops those that are not extreme.
// A mesh of more than 65536 vertices is first binned the same way on a finer map (g = 64)
// around the vertices' mean, so that the hull computer sees at most 24576 points: O(n) for
// the binning, whatever the file.
#include <LinearMath/btConvexHullComputer.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "appell/geometry.hpp"

namespace appell {

namespace {

// the hull vertices of `points` (Bullet); all of them when fewer than 4
std::vector<Vec3> hull_vertices(const std::vector<Vec3>& points) {
  if (points.size() < 4) return points;
  btConvexHullComputer hull;
  static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 is three packed doubles");
  hull.compute(points.data()->data(), static_cast<int>(sizeof(Vec3)),
               static_cast<int>(points.size()), 0, 0);
  std::vector<Vec3> out;
  out.reserve(static_cast<size_t>(hull.vertices.size()));
  for (int i = 0; i < hull.vertices.size(); ++i)
    out.emplace_back(hull.vertices[i].x(), hull.vertices[i].y(), hull.vertices[i].z());
  return out;
}

// at most 6 g² of the points: per cell of a cube map of directions around their centroid,
// the point farthest along the cell's centre.  O(points).
std::vector<Vec3> bin(const std::vector<Vec3>& points, int g) {
  Vec3 c = Vec3::Zero();
  for (const Vec3& v : points) c += v;
  c /= static_cast<double>(points.size());
  std::vector<int> best(6 * g * g, -1);
  std::vector<double> reach(6 * g * g, 0.0);
  for (size_t i = 0; i < points.size(); ++i) {
    const Vec3 d = points[i] - c;
    int axis = 0;
    d.cwiseAbs().maxCoeff(&axis);
    const double m = std::abs(d(axis));
    if (!(m > 0)) continue;  // the centroid itself is no extreme point
    // the face (axis and sign) and the cell on it, from the two other coordinates in [-1, 1]
    const int u = (axis + 1) % 3, w = (axis + 2) % 3;
    const auto cell = [&](double t) {
      return std::min(g - 1, std::max(0, static_cast<int>((t / m + 1) * 0.5 * g)));
    };
    const int face = 2 * axis + (d(axis) < 0 ? 1 : 0);
    const int ku = cell(d(u)), kw = cell(d(w));
    const int k = (face * g + ku) * g + kw;
    // the cell's central direction
    Vec3 dir = Vec3::Zero();
    dir(axis) = d(axis) < 0 ? -1.0 : 1.0;
    dir(u) = (ku + 0.5) * 2.0 / g - 1;
    dir(w) = (kw + 0.5) * 2.0 / g - 1;
    const double r = dir.dot(d);
    if (best[k] < 0 || r > reach[k]) {
      best[k] = static_cast<int>(i);
      reach[k] = r;
    }
  }
  std::vector<Vec3> kept;
  for (int b : best)
    if (b >= 0) kept.push_back(points[b]);
  return kept;
}

// Bullet's hull computer returns its vertices rounded (by up to about 1e-4 of the size):
// each is replaced by the candidate point farthest along its direction from the
// candidates' centroid, an exact extreme point of them.  O(hull × candidates).
std::vector<Vec3> snap(const std::vector<Vec3>& hull, const std::vector<Vec3>& points) {
  Vec3 c = Vec3::Zero();
  for (const Vec3& v : points) c += v;
  c /= static_cast<double>(points.size());
  std::vector<size_t> kept;
  for (const Vec3& h : hull) {
    const Vec3 d = h - c;
    size_t best = 0;
    double reach = -1e300;
    for (size_t i = 0; i < points.size(); ++i)
      if (d.dot(points[i]) > reach) {
        reach = d.dot(points[i]);
        best = i;
      }
    kept.push_back(best);
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  std::vector<Vec3> out;
  for (size_t i : kept) out.push_back(points[i]);
  return out;
}

// the collision hull's cube map: 6 · 13² = 1014 cells
constexpr int kHullCells = 13;
static_assert(6 * kHullCells * kHullCells <= kMaxHullVertices, "the cube map fits the limit");
// above this many vertices the exact hull (its time and memory grow with every vertex on
// it: 13 s and 500 MB for a million points on a sphere) is taken of a finer cube map's
// points, 6 · 64² = 24576, about 1.4° apart, and then simplified as any other
constexpr size_t kExactHullPoints = 65536;
constexpr int kPreCells = 64;

}  // namespace

std::shared_ptr<const Mesh> make_mesh(std::vector<Vec3> vertices,
                                      std::vector<std::array<int, 3>> faces) {
  auto mesh = std::make_shared<Mesh>();
  const auto n = static_cast<long long>(vertices.size());
  for (long long i = 0; i < n; ++i) {
    if (!vertices[i].allFinite())
      throw std::invalid_argument("make_mesh(): vertex " + std::to_string(i) + " is not finite");
    mesh->radius = std::max(mesh->radius, vertices[i].norm());
  }
  for (size_t f = 0; f < faces.size(); ++f)
    for (int i : faces[f])
      if (i < 0 || i >= n)
        throw std::invalid_argument("make_mesh(): face " + std::to_string(f) + " names vertex " +
                                    std::to_string(i) + " of " + std::to_string(n));
  const std::vector<Vec3> candidates =
      vertices.size() > kExactHullPoints ? bin(vertices, kPreCells) : vertices;
  mesh->hull = hull_vertices(candidates);
  if (static_cast<int>(mesh->hull.size()) > kMaxHullVertices)
    mesh->hull = hull_vertices(bin(mesh->hull, kHullCells));
  if (mesh->hull.size() >= 4) mesh->hull = snap(mesh->hull, candidates);
  mesh->vertices = std::move(vertices);
  mesh->faces = std::move(faces);
  return mesh;
}

}  // namespace appell
