// libFuzzer target: bytes → scene → Model → one evaluation at t = 0 in every formulation.
//
// A bad scene must end as a SceneError whose message is one line and whose pointer, when
// there is one, is a JSON Pointer; any other exception, a crash or a sanitizer report is a
// defect.  Sizes are bounded so that one input stays fast (dense formulations are O(n³)).
#include <cstddef>
#include <cstdint>
#include <string>

#include "appell/scene.hpp"
#include "evaluate_all.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace appell;
  if (size > 1 << 16) return 0;
  const std::string text(reinterpret_cast<const char*>(bytes), size);
  Scene scene;
  try {
    scene = load_scene_from_string(text, "fuzz.json");
  } catch (const SceneError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) __builtin_trap();  // one line
    if (!e.pointer().empty() && e.pointer()[0] != '/') __builtin_trap();
    return 0;
  }
  fuzz::evaluate_all(scene);
  return 0;
}
