// libFuzzer target: bytes → URDF file → scene (liburdfdom, then our converter) → Model →
// one evaluation at t = 0 in every formulation.
//
// A bad URDF must end as a one-line SceneError naming the file, never at a JSON pointer
// (a URDF has none); a URDF that loads must have names that JSON output and CSV columns
// can carry (valid UTF-8, no comma or control character).  Any other exception, a crash
// or a sanitizer report is a defect.  The bytes go through a file because a URDF is
// loaded by path (appell check ROBOT.urdf); one file per process, rewritten per input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "appell/scene.hpp"
#include "evaluate_all.hpp"
#include "scenes/reader.hpp"
#include "scenes/urdf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace appell;
  if (size > 1 << 16) return 0;
  static const std::string path = "/tmp/appell_urdf_fuzz_" + std::to_string(getpid()) + ".urdf";
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(bytes, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  // the loader goes by content: text that starts like JSON (after a byte-order mark and
  // white space) is a JSON scene, whose errors do carry pointers (the seeds include the
  // example robots' scene files); the rule below is for what it reads as a URDF (XML of
  // another kind is refused by is_urdf_text itself, at the file)
  bool urdf = true;
  try {
    urdf = is_urdf_text(std::string(reinterpret_cast<const char*>(bytes), size), path);
  } catch (const SceneError&) {
  }
  Scene scene;
  try {
    scene = load_scene(path);
  } catch (const SceneError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) __builtin_trap();      // one line
    if (what.rfind(path, 0) != 0) __builtin_trap();                  // names the file
    if (urdf && what.rfind(path + ": /", 0) == 0) __builtin_trap();  // no JSON pointer
    return 0;
  }
  for (const Body& b : scene.model.bodies())
    if (!name_defect(b.name).empty()) __builtin_trap();
  for (const ConstraintPtr& c : scene.model.constraints())
    if (!name_defect(c->name()).empty()) __builtin_trap();
  fuzz::evaluate_all(scene);
  return 0;
}
