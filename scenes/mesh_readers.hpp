// The mesh readers' shared parts (private to scenes/mesh*.cpp): the limits' sink every reader
// adds to, a cursor over text, number parsing, and each format's reader:
//   mesh.cpp         read_mesh_file (the format by the extension), hulls, scaling, MeshCache
//   mesh_stl_obj.cpp STL (binary and ASCII) and OBJ
//   mesh_ply.cpp     PLY (ASCII and binary of either byte order)
//   mesh_import.cpp  DAE, glTF and GLB through assimp in a child process
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "appell/scene_document.hpp"
#include "scenes/shapes.hpp"

namespace appell::mesh_detail {

using Triangle = std::array<int, 3>;

// Counts added so far against the limits (each reader calls these as it goes).
struct Sink {
  MeshFile& out;
  std::string error;
  bool vertex(double x, double y, double z) {
    if (static_cast<long long>(out.vertices.size()) >= MeshLimits::kMaxVertices)
      return fail("more than " + std::to_string(MeshLimits::kMaxVertices) + " vertices");
    if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
      return fail("vertex " + std::to_string(out.vertices.size() + 1) + " is not finite");
    out.vertices.emplace_back(x, y, z);
    return true;
  }
  bool triangle(long long a, long long b, long long c) {
    if (static_cast<long long>(out.triangles.size()) >= MeshLimits::kMaxTriangles)
      return fail("more than " + std::to_string(MeshLimits::kMaxTriangles) + " triangles");
    out.triangles.push_back({static_cast<int>(a), static_cast<int>(b), static_cast<int>(c)});
    return true;
  }
  // a polygon of n ≥ 3 corners as a fan of n − 2 triangles (exact for a convex polygon)
  bool polygon(const std::vector<long long>& corners) {
    for (size_t k = 1; k + 1 < corners.size(); ++k)
      if (!triangle(corners[0], corners[k], corners[k + 1])) return false;
    return true;
  }
  // every index names a vertex (formats may list faces before vertices)
  bool check_indices() {
    const auto n = static_cast<long long>(out.vertices.size());
    for (size_t f = 0; f < out.triangles.size(); ++f)
      for (int i : out.triangles[f])
        if (i < 0 || i >= n)
          return fail("face " + std::to_string(f + 1) + " names vertex " + std::to_string(i + 1) +
                      " of " + std::to_string(n));
    return true;
  }
  bool fail(const std::string& why) {
    if (error.empty()) error = why;
    return false;
  }
  // the reason so far, located at a line of a text file
  bool at(long long line) {
    error = "line " + std::to_string(line) + ": " + error;
    return false;
  }
};

// ---- text -----------------------------------------------------------------------------

// A cursor over text: tokens separated by blanks, lines counted.
struct Text {
  const char* p;
  const char* end;
  long long line = 1;
  static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
  void skip_blanks() {
    while (p < end && blank(*p)) ++p;
  }
  bool at_line_end() {
    skip_blanks();
    return p == end || *p == '\n';
  }
  void next_line() {
    while (p < end && *p != '\n') ++p;
    if (p < end) {
      ++p;
      ++line;
    }
  }
  // the next token on this line ("" at its end)
  std::string_view token() {
    skip_blanks();
    const char* s = p;
    while (p < end && !blank(*p) && *p != '\n') ++p;
    return std::string_view(s, static_cast<size_t>(p - s));
  }
  // the next token on any line ("" at the end of the text)
  std::string_view word() {
    for (;;) {
      skip_blanks();
      if (p < end && *p == '\n') {
        next_line();
        continue;
      }
      return token();
    }
  }
};

inline bool parse_double(std::string_view t, double& v) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
}
inline bool parse_int(std::string_view t, long long& v) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
}

inline std::string at_line(long long line, const std::string& why) {
  return "line " + std::to_string(line) + ": " + why;
}
inline std::string quoted(std::string_view t) {
  std::string s(t.substr(0, 40));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) >= 127) c = '?';
  return "'" + s + "'";
}

// The readers: the bytes of a file into sink.out; false with sink.error when refused.
bool read_stl(const std::string& bytes, Sink& sink);
bool read_obj(const std::string& bytes, Sink& sink);
bool read_ply(const std::string& bytes, Sink& sink);
// the file at path read by assimp in a child process (mesh_import.cpp)
bool import_sandboxed(const std::string& path, Sink& sink);
// the content a DAE, glTF or GLB file starts with, checked before assimp sees it ("" when
// it fits the extension)
std::string assimp_content_defect(const std::string& ext, const std::string& bytes);

}  // namespace appell::mesh_detail
