// Mesh files and their hulls (scenes/mesh.cpp, bodies/mesh.cpp), swept over the file's size:
//   BM_LoadMesh/n     read a binary STL of n vertices (n/3 triangles of points on a sphere of
//                     radius 0.5: every vertex is on the hull, the hull computer's worst
//                     case) and build its Mesh and collision hull
//   BM_MeshOnPlane/n  one contact query of that mesh resting on a plane: its cost depends on
//                     the hull (at most kMaxHullVertices vertices), not on n
// Counters: the hull's vertex count.  The file is written once per n, in SetUp's place.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "appell/appell.hpp"
#include "appell/contact.hpp"

namespace appell {
namespace {

std::string sphere_stl(int n) {
  const std::string path =
      "/tmp/appell_mesh_bench_" + std::to_string(getpid()) + "_" + std::to_string(n) + ".stl";
  std::mt19937 rng(1);
  std::normal_distribution<double> normal;
  std::ofstream f(path, std::ios::binary);
  f << std::string(80, ' ');
  const std::uint32_t triangles = static_cast<std::uint32_t>(n / 3);
  f.write(reinterpret_cast<const char*>(&triangles), 4);
  for (std::uint32_t t = 0; t < triangles; ++t) {
    float v[12] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
      const Vec3 d = 0.5 * Vec3(normal(rng), normal(rng), normal(rng)).normalized();
      for (int i = 0; i < 3; ++i) v[3 + 3 * k + i] = static_cast<float>(d(i));
    }
    f.write(reinterpret_cast<const char*>(v), sizeof v);
    f.write("\0\0", 2);
  }
  return path;
}

std::string scene_text(const std::string& stl) {
  return R"({"shapes": [{"type": "plane"}], "bodies": [{"name": "ball", "mass": 1,
      "inertia": {"box": [1, 1, 1]}, "position": [0, 0, 0.4999],
      "shapes": [{"type": "mesh", "file": ")" +
         stl + R"("}]}]})";
}

void BM_LoadMesh(benchmark::State& state) {
  const std::string stl = sphere_stl(static_cast<int>(state.range(0)));
  const std::string text = scene_text(stl);
  size_t hull = 0;
  for (auto _ : state) {
    const Scene s = load_scene_from_string(text, "/tmp/mesh_bench.json");
    hull = s.model.shapes()[0].mesh->hull.size();
  }
  state.counters["hull"] = static_cast<double>(hull);
  std::remove(stl.c_str());
}
BENCHMARK(BM_LoadMesh)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMillisecond);

void BM_MeshOnPlane(benchmark::State& state) {
  const std::string stl = sphere_stl(static_cast<int>(state.range(0)));
  const Model m = compile(load_scene_from_string(scene_text(stl), "/tmp/mesh_bench.json"));
  std::remove(stl.c_str());
  Data d(m);
  forward(m, d);
  auto det = make_contact_detector(m);
  std::vector<ContactPoint> points;
  for (auto _ : state) {
    points.clear();
    det->detect(m, d, 1e-3, points);
    benchmark::DoNotOptimize(points.data());
  }
  state.counters["hull"] = static_cast<double>(m.shapes()[0].mesh->hull.size());
  state.counters["points"] = static_cast<double>(points.size());
}
BENCHMARK(BM_MeshOnPlane)->RangeMultiplier(10)->Range(1000, 1000000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace appell
