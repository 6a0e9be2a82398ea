// Scene text → JSON document, within the limits of docs/scene-format.md ("Limits"):
// a bounded read, a bounded nesting depth and array length, no duplicate keys, and every
// error located by the JSON Pointer of the value being read (RFC 6901).  Public for
// programs that read scene-like files with the same limits and messages (the CLI's report
// reads its series and scene JSON with them); not part of appell.hpp, and the only public
// header that needs nlohmann/json.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace appell {

struct SceneLimits {
  static constexpr std::size_t kMaxBytes = 16u << 20;  // a scene file, 16 MiB
  static constexpr int kMaxDepth = 32;                 // nested arrays and objects
  static constexpr std::size_t kMaxArray = 100000;     // elements of one array
  static constexpr std::size_t kMaxBodies = 10000;
  static constexpr std::size_t kMaxConstraints = 10000;
  static constexpr std::size_t kMaxForces = 10000;
  static constexpr int kMaxRows = 60000;         // constraint rows in all
  static constexpr double kMaxSteps = 1e9;       // duration / dt
  static constexpr double kMaxOutputRows = 1e7;  // duration / (dt · every)
};

// A mesh file's limits (docs/scene-format.md "Mesh files"), checked before the work: the
// size first, then the counts a header states against the bytes that must hold them.
struct MeshLimits {
  static constexpr long long kMaxBytes = 256ll << 20;   // a mesh file, 256 MiB
  static constexpr long long kMaxVertices = 6000000;    // after reading (STL: 3 a triangle)
  static constexpr long long kMaxTriangles = 4000000;   // polygons triangulated
  static constexpr int kImportSeconds = 4;              // DAE, glTF: the importer's wall clock
  static constexpr long long kImportBytes = 4ll << 30;  // and its address space
};

// One reference token of a JSON Pointer, escaped: '~' → "~0", '/' → "~1" (RFC 6901 §3).
std::string pointer_token(const std::string& key);

// Control characters (a newline in a name) shown as escapes, so that a message stays on
// one line: "\n", "\t", "\u0001".
std::string printable(const std::string& s);

// True when s is valid UTF-8 (what JSON output and the JSON parser require).
bool valid_utf8(const std::string& s);

// The whole file, or a SceneError naming `path` (cannot open, cannot read, larger than
// kMaxBytes, not a regular file).  Scenes and URDFs are read from regular files only: a
// directory, a device (/dev/zero), a FIFO or a socket is refused before any read (a FIFO
// without a writer would block).  The read stops at kMaxBytes + 1 bytes in any case.
std::string read_scene_text(const std::string& path);

// The document, or a SceneError at the pointer of the offending value: a syntax error
// (with its line and column), a number a double cannot hold, a duplicate key, nesting
// deeper than kMaxDepth, an array longer than kMaxArray.
nlohmann::json parse_scene_document(const std::string& text, const std::string& file);

}  // namespace appell
