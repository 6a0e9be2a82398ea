// Mesh files for mesh shapes (docs/scene-format.md "Mesh files"): their vertices and
// triangles, read once per scene load and shared (MeshCache).
//
// Which reader.  STL, OBJ and PLY, the formats robots ship their collision meshes in, are
// read here by strict readers: one pass over the bytes, every count a header states checked
// against the bytes that must hold it before anything is allocated, every index checked,
// every number finite.  They cannot hang or abort, and a fuzzer sees all of their code.
// COLLADA (.dae) and glTF (.gltf, .glb), whose grammars are large, go to assimp, which
// Debian builds with assertions (an ai_assert aborts the process) and whose readers can loop
// on a malformed file; it runs in a child process (fork) under a CPU-time and an
// address-space limit, killed after MeshLimits::kImportSeconds of wall-clock time, and sends
// the vertices and triangles back through a pipe.  The child's death or its timeout is an
// error message here; the child leaves by _exit and prints nothing.  Everything else (3MF,
// OFF, FBX, ... which assimp would also try) is refused by its extension, and each accepted
// format's content is checked (STL sizes, PLY and GLB headers, the XML or JSON start of
// DAE and glTF) before a reader or assimp sees it.
//
// A fork copies only the calling thread: in a multithreaded program a lock another thread
// held at the fork (inside assimp or the C++ runtime) can block the child; the wall-clock
// limit ends it, and the load fails with that message.
#include <LinearMath/btConvexHullComputer.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <assimp/Importer.hpp>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>

#include "appell/scene_document.hpp"
#include "scenes/shapes.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define APPELL_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define APPELL_UNDER_ASAN 1
#endif
#endif

namespace appell {

namespace {

using Triangle = std::array<int, 3>;

const char* const kAccepted = "STL, OBJ, PLY, DAE (COLLADA), glTF or GLB";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return lower(path.substr(dot + 1));
}

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

bool parse_double(std::string_view t, double& v) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
}
bool parse_int(std::string_view t, long long& v) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
}

std::string at_line(long long line, const std::string& why) {
  return "line " + std::to_string(line) + ": " + why;
}
std::string quoted(std::string_view t) {
  std::string s(t.substr(0, 40));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) >= 127) c = '?';
  return "'" + s + "'";
}

// ---- STL ------------------------------------------------------------------------------

bool read_stl_binary(const std::string& bytes, Sink& sink) {
  std::uint32_t n = 0;
  std::memcpy(&n, bytes.data() + 80, 4);  // little-endian, as every platform we build for
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + 84;
  if (3ll * n > MeshLimits::kMaxVertices)
    return sink.fail("more than " + std::to_string(MeshLimits::kMaxVertices) + " vertices (" +
                     std::to_string(n) + " triangles)");
  sink.out.vertices.reserve(3ull * n);
  sink.out.triangles.reserve(n);
  for (std::uint32_t t = 0; t < n; ++t, p += 50) {
    const auto base = static_cast<long long>(sink.out.vertices.size());
    for (int k = 0; k < 3; ++k) {
      float v[3];
      std::memcpy(v, p + 12 + 12 * k, 12);
      if (!sink.vertex(v[0], v[1], v[2])) return false;
    }
    if (!sink.triangle(base, base + 1, base + 2)) return false;
  }
  return true;
}

bool read_stl_ascii(const std::string& bytes, Sink& sink) {
  Text t{bytes.data(), bytes.data() + bytes.size()};
  std::vector<long long> loop;
  bool in_loop = false, solid = false;
  for (;;) {
    const std::string_view w = t.word();
    if (w.empty()) break;
    const long long line = t.line;
    if (w == "solid" || w == "endsolid") {
      solid = true;
      t.next_line();  // the solid's name, any text
    } else if (w == "facet") {
      if (t.token() != "normal") return sink.fail(at_line(line, "expected 'facet normal'"));
      for (int k = 0; k < 3; ++k) {
        double v;
        if (!parse_double(t.token(), v)) return sink.fail(at_line(line, "expected 3 numbers"));
      }
    } else if (w == "outer") {
      if (t.token() != "loop" || in_loop) return sink.fail(at_line(line, "expected 'outer loop'"));
      in_loop = true;
      loop.clear();
    } else if (w == "vertex") {
      if (!in_loop) return sink.fail(at_line(line, "a vertex outside 'outer loop'"));
      double v[3];
      for (double& x : v)
        if (!parse_double(t.token(), x))
          return sink.fail(at_line(line, "expected 3 numbers after 'vertex'"));
      loop.push_back(static_cast<long long>(sink.out.vertices.size()));
      if (!sink.vertex(v[0], v[1], v[2])) return sink.at(line);
    } else if (w == "endloop") {
      if (!in_loop || loop.size() < 3)
        return sink.fail(at_line(line, "a loop needs 3 vertices or more"));
      if (!sink.polygon(loop)) return sink.at(line);
      in_loop = false;
    } else if (w == "endfacet") {
      if (in_loop) return sink.fail(at_line(line, "'endfacet' inside a loop"));
    } else {
      return sink.fail(at_line(line, "unexpected " + quoted(w)));
    }
  }
  if (!solid || in_loop) return sink.fail("not an ASCII STL (solid ... endsolid)");
  return true;
}

bool read_stl(const std::string& bytes, Sink& sink) {
  // binary: 80 bytes of header, a count, 50 bytes a triangle, nothing else; some binary
  // files start with "solid" too, so the sizes decide first
  if (bytes.size() >= 84) {
    std::uint32_t n = 0;
    std::memcpy(&n, bytes.data() + 80, 4);
    if (84 + 50ull * n == bytes.size()) return read_stl_binary(bytes, sink);
  }
  size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (bytes.compare(i, 5, "solid") == 0) return read_stl_ascii(bytes, sink);
  if (bytes.size() < 84)
    return sink.fail("not an STL file (" + std::to_string(bytes.size()) +
                     " bytes, no 'solid'; a binary STL has 84 or more)");
  std::uint32_t n = 0;
  std::memcpy(&n, bytes.data() + 80, 4);
  return sink.fail("not an STL file: a binary STL of " + std::to_string(n) +
                   " triangles has 84 + 50 × " + std::to_string(n) + " bytes, this one " +
                   std::to_string(bytes.size()) + ", and it does not start with 'solid'");
}

// ---- OBJ ------------------------------------------------------------------------------

bool read_obj(const std::string& bytes, Sink& sink) {
  if (bytes.find('\0') != std::string::npos) return sink.fail("not an OBJ file (binary data)");
  Text t{bytes.data(), bytes.data() + bytes.size()};
  std::vector<long long> corners;
  while (t.p < t.end) {
    const std::string_view key = t.token();
    const long long line = t.line;
    if (key == "v") {
      double v[3];
      for (double& x : v)
        if (!parse_double(t.token(), x)) return sink.fail(at_line(line, "expected 'v x y z'"));
      if (!sink.vertex(v[0], v[1], v[2])) return sink.at(line);
    } else if (key == "f") {
      // "f a b c ...", each corner i, i/t, i//n or i/t/n; negative: counted back from the
      // last vertex so far
      corners.clear();
      for (std::string_view c = t.token(); !c.empty(); c = t.token()) {
        long long i = 0;
        if (!parse_int(c.substr(0, c.find('/')), i) || i == 0)
          return sink.fail(at_line(line, "bad face corner " + quoted(c)));
        const auto n = static_cast<long long>(sink.out.vertices.size());
        const long long index = i > 0 ? i - 1 : n + i;
        if (index < 0)
          return sink.fail(at_line(line, "face corner " + quoted(c) + " names no vertex"));
        if (index >= MeshLimits::kMaxVertices)
          return sink.fail(at_line(line, "face corner " + quoted(c) + " is beyond the limit of " +
                                             std::to_string(MeshLimits::kMaxVertices) +
                                             " vertices"));
        corners.push_back(index);
      }
      if (corners.size() < 3) return sink.fail(at_line(line, "a face needs 3 corners or more"));
      if (!sink.polygon(corners)) return sink.at(line);
    }
    // anything else (vn, vt, o, g, s, usemtl, mtllib, l, p, comments) draws nothing solid
    t.next_line();
  }
  return sink.check_indices();
}

// ---- PLY ------------------------------------------------------------------------------

enum class PlyType { None, I8, U8, I16, U16, I32, U32, F32, F64 };

PlyType ply_type(std::string_view s) {
  static const std::map<std::string_view, PlyType> types = {
      {"char", PlyType::I8},    {"int8", PlyType::I8},     {"uchar", PlyType::U8},
      {"uint8", PlyType::U8},   {"short", PlyType::I16},   {"int16", PlyType::I16},
      {"ushort", PlyType::U16}, {"uint16", PlyType::U16},  {"int", PlyType::I32},
      {"int32", PlyType::I32},  {"uint", PlyType::U32},    {"uint32", PlyType::U32},
      {"float", PlyType::F32},  {"float32", PlyType::F32}, {"double", PlyType::F64},
      {"float64", PlyType::F64}};
  const auto it = types.find(s);
  return it == types.end() ? PlyType::None : it->second;
}
int ply_size(PlyType t) {
  switch (t) {
    case PlyType::I8:
    case PlyType::U8:
      return 1;
    case PlyType::I16:
    case PlyType::U16:
      return 2;
    case PlyType::I32:
    case PlyType::U32:
    case PlyType::F32:
      return 4;
    case PlyType::F64:
      return 8;
    case PlyType::None:
      break;
  }
  return 0;
}

struct PlyProperty {
  std::string name;
  PlyType type = PlyType::None;
  PlyType count = PlyType::None;  // a list's count type; None for a scalar
};
struct PlyElement {
  std::string name;
  long long count = 0;
  std::vector<PlyProperty> properties;
};

// Reads scalars of either encoding, bounds-checked.
struct PlyData {
  enum class Format { Ascii, Little, Big } format = Format::Ascii;
  const unsigned char* p = nullptr;
  const unsigned char* end = nullptr;
  Text text{nullptr, nullptr};
  bool value(PlyType t, double& v) {
    if (format == Format::Ascii) return parse_double(text.word(), v);
    const int n = ply_size(t);
    if (end - p < n) return false;
    unsigned char b[8];
    std::memcpy(b, p, static_cast<size_t>(n));
    p += n;
    if (format == Format::Big) std::reverse(b, b + n);  // to the host's little-endian order
    switch (t) {
      case PlyType::I8:
        v = static_cast<std::int8_t>(b[0]);
        break;
      case PlyType::U8:
        v = b[0];
        break;
      case PlyType::I16: {
        std::int16_t x;
        std::memcpy(&x, b, 2);
        v = x;
        break;
      }
      case PlyType::U16: {
        std::uint16_t x;
        std::memcpy(&x, b, 2);
        v = x;
        break;
      }
      case PlyType::I32: {
        std::int32_t x;
        std::memcpy(&x, b, 4);
        v = x;
        break;
      }
      case PlyType::U32: {
        std::uint32_t x;
        std::memcpy(&x, b, 4);
        v = x;
        break;
      }
      case PlyType::F32: {
        float x;
        std::memcpy(&x, b, 4);
        v = x;
        break;
      }
      case PlyType::F64: {
        std::memcpy(&v, b, 8);
        break;
      }
      case PlyType::None:
        return false;
    }
    return true;
  }
};

bool read_ply(const std::string& bytes, Sink& sink) {
  // the header: lines up to "end_header", within its first 64 KiB
  const size_t header_end = bytes.find("end_header", 0);
  if (bytes.compare(0, 3, "ply") != 0 || header_end == std::string::npos || header_end > 65536)
    return sink.fail("not a PLY file (it starts 'ply' and its header ends with 'end_header')");
  Text h{bytes.data(), bytes.data() + header_end};
  h.next_line();
  PlyData data;
  bool format = false;
  std::vector<PlyElement> elements;
  while (h.p < h.end) {
    const long long line = h.line;
    const std::string_view key = h.token();
    if (key == "format") {
      const std::string_view f = h.token(), version = h.token();
      if (f == "ascii")
        data.format = PlyData::Format::Ascii;
      else if (f == "binary_little_endian")
        data.format = PlyData::Format::Little;
      else if (f == "binary_big_endian")
        data.format = PlyData::Format::Big;
      else
        return sink.fail(at_line(line, "unknown PLY format " + quoted(f)));
      if (version != "1.0")
        return sink.fail(at_line(line, "PLY version " + quoted(version) + ", expected 1.0"));
      format = true;
    } else if (key == "element") {
      PlyElement e;
      e.name = std::string(h.token());
      if (!parse_int(h.token(), e.count) || e.count < 0)
        return sink.fail(at_line(line, "expected 'element NAME COUNT'"));
      elements.push_back(e);
    } else if (key == "property") {
      if (elements.empty()) return sink.fail(at_line(line, "a property before any element"));
      PlyProperty p;
      std::string_view type = h.token();
      if (type == "list") {
        p.count = ply_type(h.token());
        type = h.token();
        if (p.count == PlyType::None || p.count == PlyType::F32 || p.count == PlyType::F64)
          return sink.fail(at_line(line, "a list's count must be an integer type"));
      }
      p.type = ply_type(type);
      p.name = std::string(h.token());
      if (p.type == PlyType::None || p.name.empty())
        return sink.fail(at_line(line, "unknown property type " + quoted(type)));
      elements.back().properties.push_back(p);
    } else if (key != "comment" && key != "obj_info" && !key.empty()) {
      return sink.fail(at_line(line, "unknown PLY header line " + quoted(key)));
    }
    h.next_line();
  }
  if (!format) return sink.fail("the PLY header has no 'format' line");
  // the data after the end_header line
  size_t start = bytes.find('\n', header_end);
  start = start == std::string::npos ? bytes.size() : start + 1;
  const long long left = static_cast<long long>(bytes.size() - start);
  // the counts against the bytes that must hold them (a row is one byte at least, a
  // binary row its scalars' and its lists' counts' sizes), and against the limits
  long long need = 0;
  for (const PlyElement& e : elements) {
    long long row = 0;
    for (const PlyProperty& p : e.properties)
      row += data.format == PlyData::Format::Ascii
                 ? 2
                 : ply_size(p.count == PlyType::None ? p.type : p.count);
    if (e.count > 0 && row == 0) return sink.fail("PLY element '" + e.name + "' has no property");
    if (e.count > (left + 1) / std::max(1ll, row) || need + e.count * row > left + 1)
      return sink.fail("PLY element '" + e.name + "' of " + std::to_string(e.count) +
                       " rows cannot fit in the file's " + std::to_string(left) + " bytes of data");
    need += e.count * row;
    if (e.name == "vertex" && e.count > MeshLimits::kMaxVertices)
      return sink.fail("more than " + std::to_string(MeshLimits::kMaxVertices) + " vertices");
    if (e.name == "face" && e.count > MeshLimits::kMaxTriangles)
      return sink.fail("more than " + std::to_string(MeshLimits::kMaxTriangles) + " triangles");
  }
  data.p = reinterpret_cast<const unsigned char*>(bytes.data()) + start;
  data.end = reinterpret_cast<const unsigned char*>(bytes.data()) + bytes.size();
  data.text = Text{bytes.data() + start, bytes.data() + bytes.size()};
  bool vertices = false;
  std::vector<long long> corners;
  for (const PlyElement& e : elements) {
    int ix = -1, iy = -1, iz = -1, list = -1;
    for (size_t k = 0; k < e.properties.size(); ++k) {
      const PlyProperty& p = e.properties[k];
      const bool scalar = p.count == PlyType::None;
      if (scalar && p.name == "x") ix = static_cast<int>(k);
      if (scalar && p.name == "y") iy = static_cast<int>(k);
      if (scalar && p.name == "z") iz = static_cast<int>(k);
      if (!scalar && list < 0 && (p.name == "vertex_indices" || p.name == "vertex_index"))
        list = static_cast<int>(k);
    }
    const bool is_vertex = e.name == "vertex", is_face = e.name == "face";
    if (is_vertex && (ix < 0 || iy < 0 || iz < 0))
      return sink.fail("PLY element 'vertex' needs properties x, y and z");
    if (is_face && list < 0)
      return sink.fail("PLY element 'face' needs a list property 'vertex_indices'");
    vertices = vertices || is_vertex;
    if (is_vertex) sink.out.vertices.reserve(static_cast<size_t>(e.count));
    for (long long r = 0; r < e.count; ++r) {
      double xyz[3] = {0, 0, 0};
      for (size_t k = 0; k < e.properties.size(); ++k) {
        const PlyProperty& p = e.properties[k];
        const auto bad = [&] {
          return sink.fail("PLY element '" + e.name + "' row " + std::to_string(r + 1) +
                           ": a bad or missing value of '" + p.name + "'");
        };
        double v = 0;
        if (p.count == PlyType::None) {
          if (!data.value(p.type, v)) return bad();
          if (static_cast<int>(k) == ix) xyz[0] = v;
          if (static_cast<int>(k) == iy) xyz[1] = v;
          if (static_cast<int>(k) == iz) xyz[2] = v;
          continue;
        }
        double count = 0;
        if (!data.value(p.count, count) || !(count >= 0) || count != std::floor(count) ||
            count > static_cast<double>(left))
          return bad();
        const bool indices = is_face && static_cast<int>(k) == list;
        if (indices) corners.clear();
        for (long long c = 0; c < static_cast<long long>(count); ++c) {
          if (!data.value(p.type, v)) return bad();
          if (indices) {
            if (!(v >= 0 && v < static_cast<double>(MeshLimits::kMaxVertices)) ||
                v != std::floor(v))
              return sink.fail("PLY face " + std::to_string(r + 1) + " names vertex " +
                               std::to_string(v));
            corners.push_back(static_cast<long long>(v));
          }
        }
        if (indices) {
          if (corners.size() < 3)
            return sink.fail("PLY face " + std::to_string(r + 1) + " has fewer than 3 corners");
          if (!sink.polygon(corners)) return false;
        }
      }
      if (is_vertex && !sink.vertex(xyz[0], xyz[1], xyz[2])) return false;
    }
  }
  if (!vertices) return sink.fail("the PLY file has no element 'vertex'");
  return sink.check_indices();
}

// ---- DAE, glTF, GLB: assimp in a child process ----------------------------------------

// what the child sends: a status byte (0: the mesh follows; 1: a message follows), then
// the vertex and triangle counts (uint64 each), the vertices (3 doubles each) and the
// triangles (3 int32 each), or the message's length (uint64) and bytes
bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

[[noreturn]] void import_child(const std::string& path, int fd) {
  // quiet, with the default action for fatal signals (a fuzzer's or an embedder's
  // handlers would report the child's crash as their own), and limited
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU, SIGPIPE})
    ::signal(sig, SIG_DFL);
  rlimit cpu{MeshLimits::kImportSeconds, MeshLimits::kImportSeconds};
  ::setrlimit(RLIMIT_CPU, &cpu);
#ifndef APPELL_UNDER_ASAN
  // (not under AddressSanitizer, whose shadow memory reserves terabytes of addresses)
  rlimit as{static_cast<rlim_t>(MeshLimits::kImportBytes),
            static_cast<rlim_t>(MeshLimits::kImportBytes)};
  ::setrlimit(RLIMIT_AS, &as);
#endif
  std::string message;
  {
    Assimp::Importer importer;
    // the file's node transforms applied (a mesh exported with a unit scale or an axis
    // swap keeps its shape); polygons become triangles
    const aiScene* scene =
        importer.ReadFile(path, aiProcess_PreTransformVertices | aiProcess_Triangulate);
    if (!scene || !scene->HasMeshes()) {
      const char* why = importer.GetErrorString();
      message = (why && *why) ? why : "no mesh in the file";
    } else {
      std::uint64_t nv = 0, nt = 0;
      for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        nv += scene->mMeshes[m]->mNumVertices;
        for (unsigned f = 0; f < scene->mMeshes[m]->mNumFaces; ++f)
          nt += scene->mMeshes[m]->mFaces[f].mNumIndices == 3 ? 1 : 0;
      }
      if (nv > static_cast<std::uint64_t>(MeshLimits::kMaxVertices))
        message = "more than " + std::to_string(MeshLimits::kMaxVertices) + " vertices";
      else if (nt > static_cast<std::uint64_t>(MeshLimits::kMaxTriangles))
        message = "more than " + std::to_string(MeshLimits::kMaxTriangles) + " triangles";
      if (message.empty()) {
        const unsigned char ok = 0;
        bool sent = write_all(fd, &ok, 1) && write_all(fd, &nv, 8) && write_all(fd, &nt, 8);
        for (unsigned m = 0; sent && m < scene->mNumMeshes; ++m) {
          const aiMesh* mesh = scene->mMeshes[m];
          for (unsigned v = 0; sent && v < mesh->mNumVertices; ++v) {
            const double p[3] = {mesh->mVertices[v].x, mesh->mVertices[v].y, mesh->mVertices[v].z};
            sent = write_all(fd, p, sizeof p);
          }
        }
        std::int64_t base = 0;
        for (unsigned m = 0; sent && m < scene->mNumMeshes; ++m) {
          const aiMesh* mesh = scene->mMeshes[m];
          for (unsigned f = 0; sent && f < mesh->mNumFaces; ++f) {
            const aiFace& face = mesh->mFaces[f];
            if (face.mNumIndices != 3) continue;  // points and lines bound no volume
            std::int32_t t[3];
            for (int k = 0; k < 3; ++k)
              t[k] = face.mIndices[k] < mesh->mNumVertices
                         ? static_cast<std::int32_t>(base + face.mIndices[k])
                         : -1;  // refused by the parent
            sent = write_all(fd, t, sizeof t);
          }
          base += mesh->mNumVertices;
        }
        ::_exit(sent ? 0 : 1);
      }
    }
  }
  const unsigned char failed = 1;
  const std::uint64_t n = message.size();
  write_all(fd, &failed, 1) && write_all(fd, &n, 8) && write_all(fd, message.data(), n);
  ::_exit(0);
}

// Reads n bytes from fd before `deadline`; false on the end of the data, an error or the
// deadline (`late` tells which).
bool read_all(int fd, void* data, size_t n, std::chrono::steady_clock::time_point deadline,
              bool& late) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      late = true;
      return false;
    }
    pollfd pfd{fd, POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, INT_MAX)));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (r == 0) continue;  // the deadline is checked above
    const ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool import_sandboxed(const std::string& path, Sink& sink) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return sink.fail("cannot start the mesh importer (pipe)");
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return sink.fail("cannot start the mesh importer (fork)");
  }
  if (pid == 0) {
    ::close(fds[0]);
    import_child(path, fds[1]);
  }
  ::close(fds[1]);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(MeshLimits::kImportSeconds);
  bool late = false;
  std::string error;
  unsigned char status = 2;
  std::uint64_t a = 0, b = 0;
  if (read_all(fds[0], &status, 1, deadline, late) && read_all(fds[0], &a, 8, deadline, late)) {
    if (status == 1) {
      std::string message(std::min<std::uint64_t>(a, 4096), '\0');
      if (read_all(fds[0], message.data(), message.size(), deadline, late))
        error = "the importer (assimp) refused it: " + message;
    } else if (status == 0 && read_all(fds[0], &b, 8, deadline, late)) {
      if (a > static_cast<std::uint64_t>(MeshLimits::kMaxVertices) ||
          b > static_cast<std::uint64_t>(MeshLimits::kMaxTriangles)) {
        error = "the importer sent more than the limits allow";
      } else {
        std::vector<double> xyz(3 * a);
        std::vector<std::int32_t> ijk(3 * b);
        if (read_all(fds[0], xyz.data(), xyz.size() * sizeof(double), deadline, late) &&
            read_all(fds[0], ijk.data(), ijk.size() * sizeof(std::int32_t), deadline, late)) {
          status = 3;  // complete
          for (std::uint64_t v = 0; v < a && error.empty(); ++v)
            if (!sink.vertex(xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2])) error = sink.error;
          for (std::uint64_t t = 0; t < b && error.empty(); ++t)
            if (!sink.triangle(ijk[3 * t], ijk[3 * t + 1], ijk[3 * t + 2])) error = sink.error;
        }
      }
    }
  }
  ::close(fds[0]);
  if (late) ::kill(pid, SIGKILL);
  int ws = 0;
  pid_t w;
  do w = ::waitpid(pid, &ws, 0);
  while (w < 0 && errno == EINTR);
  if (late)
    return sink.fail("the importer (assimp) took longer than " +
                     std::to_string(MeshLimits::kImportSeconds) + " s");
  if (w == pid && WIFSIGNALED(ws)) {
    const int sig = WTERMSIG(ws);
    if (sig == SIGXCPU || sig == SIGKILL)
      return sink.fail("the importer (assimp) took longer than " +
                       std::to_string(MeshLimits::kImportSeconds) + " s of CPU time");
    return sink.fail("the importer (assimp) crashed on it (signal " + std::to_string(sig) + ": " +
                     strsignal(sig) + ")");
  }
  if (!error.empty()) return sink.fail(error);
  if (status != 3) return sink.fail("the importer (assimp) stopped before it sent the mesh");
  return sink.check_indices();
}

// the content a DAE, glTF or GLB file starts with, checked before assimp sees it
std::string assimp_content_defect(const std::string& ext, const std::string& bytes) {
  size_t i = bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  if (ext == "dae") {
    const std::string head = bytes.substr(i, 4096);
    if ((head.compare(0, 5, "<?xml") != 0 && head.compare(0, 8, "<COLLADA") != 0) ||
        head.find("<COLLADA") == std::string::npos)
      return "not a COLLADA file (XML whose root element <COLLADA> starts in its first 4 KiB)";
    return "";
  }
  if (ext == "gltf") {
    if (i >= bytes.size() || bytes[i] != '{') return "not a glTF file (a JSON object)";
    return "";
  }
  // GLB: magic, version 2, the total length equal to the file's size
  std::uint32_t h[3] = {0, 0, 0};
  if (bytes.size() >= 12) std::memcpy(h, bytes.data(), 12);
  if (bytes.size() < 12 || bytes.compare(0, 4, "glTF") != 0 || h[1] != 2 || h[2] != bytes.size())
    return "not a GLB file (the magic 'glTF', version 2, and its length in bytes " +
           std::to_string(bytes.size()) + " in its 12-byte header)";
  return "";
}

}  // namespace

bool read_mesh_file(const std::string& path, MeshFile& out, std::string& error) {
  out = MeshFile{};
  // a regular file of bounded size: a device or a pipe would block the reader or never end
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    error = "cannot open the file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return false;
  }
  const std::string ext = extension(path);
  const bool own = ext == "stl" || ext == "obj" || ext == "ply";
  const bool assimp = ext == "dae" || ext == "gltf" || ext == "glb";
  if (!own && !assimp) {
    error = (ext.empty() ? std::string("a mesh file without an extension")
                         : "unsupported mesh format '." + ext + "'") +
            "; accepted: " + kAccepted + " (by the file's extension)";
    return false;
  }
  if (st.st_size > MeshLimits::kMaxBytes) {
    error = "larger than the limit of " + std::to_string(MeshLimits::kMaxBytes >> 20) + " MiB";
    return false;
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  {
    std::ifstream in(path, std::ios::binary);
    if (!in || !in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
      error = "cannot read the file";
      return false;
    }
  }
  Sink sink{out, ""};
  bool ok = false;
  if (ext == "stl")
    ok = read_stl(bytes, sink);
  else if (ext == "obj")
    ok = read_obj(bytes, sink);
  else if (ext == "ply")
    ok = read_ply(bytes, sink);
  else {
    error = assimp_content_defect(ext, bytes);
    if (!error.empty()) return false;
    bytes = std::string();  // the child needs the path only
    ok = import_sandboxed(path, sink);
  }
  if (ok && out.vertices.empty()) ok = sink.fail("no vertices");
  if (!ok) {
    error = sink.error;
    out = MeshFile{};
  }
  return ok;
}

void hull_triangles(MeshFile& f) {
  f.triangles.clear();
  if (f.vertices.size() < 4) return;
  btConvexHullComputer hull;
  hull.compute(f.vertices.data()->data(), static_cast<int>(sizeof(Vec3)),
               static_cast<int>(f.vertices.size()), 0, 0);
  f.vertices.clear();
  for (int i = 0; i < hull.vertices.size(); ++i)
    f.vertices.emplace_back(hull.vertices[i].x(), hull.vertices[i].y(), hull.vertices[i].z());
  // each face's edges in turn (counter-clockwise seen from outside)
  for (int i = 0; i < hull.faces.size(); ++i) {
    const btConvexHullComputer::Edge* first = &hull.edges[hull.faces[i]];
    std::vector<long long> corners;
    const btConvexHullComputer::Edge* e = first;
    do {
      corners.push_back(e->getSourceVertex());
      e = e->getNextEdgeOfFace();
    } while (e != first && corners.size() <= f.vertices.size());
    for (size_t k = 1; k + 1 < corners.size(); ++k)
      f.triangles.push_back({static_cast<int>(corners[0]), static_cast<int>(corners[k]),
                             static_cast<int>(corners[k + 1])});
  }
}

std::shared_ptr<const Mesh> scaled_mesh(const MeshFile& file, const Vec3& scale) {
  std::vector<Vec3> v;
  v.reserve(file.vertices.size());
  for (const Vec3& p : file.vertices) v.push_back(p.cwiseProduct(scale));
  std::vector<Triangle> t = file.triangles;
  // a mirror (an odd number of negative factors) turns the triangles' winding: swapped
  // back, their normals point out and the volume they bound stays positive
  if (scale.prod() < 0)
    for (Triangle& f : t) std::swap(f[1], f[2]);
  return make_mesh(std::move(v), std::move(t));
}

std::shared_ptr<const Mesh> MeshCache::load(const std::string& path, const Vec3& scale,
                                            std::string& error) {
  char resolved[PATH_MAX];
  const std::string key = ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  const auto scaled = meshes_.find({key, {scale.x(), scale.y(), scale.z()}});
  if (scaled != meshes_.end()) return scaled->second;
  auto file = files_.find(key);
  if (file == files_.end()) {
    MeshFile f;
    ++reads_;
    if (!read_mesh_file(path, f, error)) return nullptr;
    file = files_.emplace(key, std::move(f)).first;
  }
  std::shared_ptr<const Mesh> mesh;
  try {
    mesh = scaled_mesh(file->second, scale);
  } catch (const std::invalid_argument& e) {
    error = std::string("scaled, ") + (e.what() + std::strlen("make_mesh(): "));
    return nullptr;
  }
  meshes_.emplace(std::make_pair(key, std::array<double, 3>{scale.x(), scale.y(), scale.z()}),
                  mesh);
  return mesh;
}

}  // namespace appell
