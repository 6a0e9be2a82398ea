// STL (binary and ASCII) and OBJ meshes (scenes/mesh_readers.hpp): strict one-pass readers.
#include <cstdint>
#include <cstring>

#include "scenes/mesh_readers.hpp"

namespace appell::mesh_detail {

namespace {

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

}  // namespace

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

}  // namespace appell::mesh_detail
