// Scenes with some values replaced: the parameter overrides of `appell sweep --set` and of
// the Python module's parameter grids.
//
// An override names a value of the scene by its JSON Pointer (RFC 6901: /bodies/0/mass,
// /integrator/duration, /gravity/2) and gives the new value as JSON text ("2.5",
// "[0, 0, -1]", "\"rk4\"").  The pointer must name a value the scene has, or a new key of
// an object it has (the loader then checks the key as it checks every key); the scene is
// then loaded as usual, so a value it refuses is reported at its own pointer.
//
//   appell::Scene s = appell::load_scene_with_overrides(text, "pendulum.json",
//                                                       {{"/bodies/0/mass", "2"}});
#pragma once

#include <string>
#include <vector>

#include "appell/scene.hpp"

namespace appell {

struct Override {
  std::string pointer;  // JSON Pointer of the value replaced
  std::string value;    // the new value, JSON text
};

// Parses `text`, applies the overrides in order, loads the result.  Throws SceneError
// naming `file` and the override's pointer when a pointer is malformed or names nothing
// the scene has, or when a value is not JSON; and whatever load_scene_from_string throws.
Scene load_scene_with_overrides(const std::string& text, const std::string& file,
                                const std::vector<Override>& overrides);

// The text of a scene file; throws SceneError when it cannot be read.
std::string read_scene_text(const std::string& path);

// The most values one a:b:n range gives (and the most runs `appell sweep` makes).
constexpr long long kMaxSetValues = 1000000;

// The values of one `--set POINTER=VALUES` of the command line, as JSON texts:
//   a:b:n        n numbers evenly spaced from a to b (1 ≤ n ≤ kMaxSetValues; n = 1 gives a),
//                those of numpy.linspace(a, b, n) bit for bit
//   v1,v2,...    each one JSON value, or a string when it is not JSON (pinv, rk4)
//   (arrays, objects and strings may contain commas: [0,1,0],[0,2,0] is two values)
// Throws SceneError (file "--set", the pointer) when VALUES says none of these.
std::vector<std::string> parse_set_values(const std::string& pointer, const std::string& values);

}  // namespace appell
