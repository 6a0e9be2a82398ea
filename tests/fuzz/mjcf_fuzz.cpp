// libFuzzer target: bytes → MJCF file → scene (tinyxml2, then our converter) → Model →
// one evaluation at t = 0 in every formulation.
//
// A bad MJCF must end as a one-line SceneError naming the file; a model that loads must
// have names that JSON output and CSV columns can carry.  Any other exception, a crash or
// a sanitizer report is a defect.  The bytes go through a file because an MJCF is loaded
// by path and names its meshes relative to it: the file sits in a folder of its own with
// the seeds' meshes (cube.obj, cube.stl), one folder per process, rewritten per input.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "appell/scene.hpp"
#include "evaluate_all.hpp"
#include "scenes/reader.hpp"

namespace {

void write(const std::string& path, const std::string& text) {
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
}

// the folder, with a cube (OBJ and ASCII STL) for the seeds' <mesh file>
std::string folder() {
  const std::string dir = "/tmp/appell_mjcf_fuzz_" + std::to_string(getpid());
  ::mkdir(dir.c_str(), 0700);
  std::string obj, stl = "solid c\n";
  for (int c = 0; c < 8; ++c)
    obj += "v " + std::to_string(0.1 * ((c >> 2) & 1)) + " " +
           std::to_string(0.1 * ((c >> 1) & 1)) + " " + std::to_string(0.1 * (c & 1)) + "\n";
  obj += "f 1 3 7 5\nf 2 6 8 4\nf 1 5 6 2\nf 3 4 8 7\nf 1 2 4 3\nf 5 7 8 6\n";
  const char* tri[4] = {"0 0 0", "0.1 0 0", "0 0.1 0", "0 0 0.1"};
  const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  for (const auto& f : faces) {
    stl += "facet normal 0 0 0\nouter loop\n";
    for (int k : f) stl += std::string("vertex ") + tri[k] + "\n";
    stl += "endloop\nendfacet\n";
  }
  write(dir + "/cube.obj", obj);
  write(dir + "/tetra.stl", stl + "endsolid c\n");
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace appell;
  if (size > 1 << 16) return 0;
  static const std::string path = folder() + "/model.xml";
  write(path, std::string(reinterpret_cast<const char*>(bytes), size));
  Scene scene;
  try {
    scene = load_scene(path);
  } catch (const SceneError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) __builtin_trap();  // one line
    if (what.rfind(path, 0) != 0) __builtin_trap();              // names the file
    return 0;
  }
  for (const Body& b : scene.model.bodies())
    if (!name_defect(b.name).empty()) __builtin_trap();
  for (const ConstraintPtr& c : scene.model.constraints())
    if (!name_defect(c->name()).empty()) __builtin_trap();
  fuzz::evaluate_all(scene);
  return 0;
}
