// PLY meshes (scenes/mesh_readers.hpp): ASCII and binary of either byte order, every count
// checked against the bytes that must hold it before anything is allocated.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>

#include "scenes/mesh_readers.hpp"

namespace appell::mesh_detail {

namespace {

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

// the header's lines after "ply" (h ends at "end_header"): the format into data, the
// elements and their properties
bool ply_header(Text h, PlyData& data, std::vector<PlyElement>& elements, Sink& sink) {
  bool format = false;
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
  return true;
}

// the elements' counts against the `left` bytes of data that must hold them (a row is one
// byte at least, a binary row its scalars' and its lists' counts' sizes), and against the
// limits
bool ply_counts_fit(const std::vector<PlyElement>& elements, PlyData::Format format, long long left,
                    Sink& sink) {
  long long need = 0;
  for (const PlyElement& e : elements) {
    long long row = 0;
    for (const PlyProperty& p : e.properties)
      row += format == PlyData::Format::Ascii
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
  return true;
}

// the rows of element e from data: a vertex's x, y, z and a face's vertex_indices into
// sink (`vertices` set by a vertex element), the other properties read past; a list holds
// at most `left` entries (the bytes of data)
bool ply_rows(const PlyElement& e, PlyData& data, long long left, Sink& sink, bool& vertices) {
  std::vector<long long> corners;
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
          if (!(v >= 0 && v < static_cast<double>(MeshLimits::kMaxVertices)) || v != std::floor(v))
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
  return true;
}

}  // namespace

bool read_ply(const std::string& bytes, Sink& sink) {
  // the header: lines up to "end_header", within its first 64 KiB
  const size_t header_end = bytes.find("end_header", 0);
  if (bytes.compare(0, 3, "ply") != 0 || header_end == std::string::npos || header_end > 65536)
    return sink.fail("not a PLY file (it starts 'ply' and its header ends with 'end_header')");
  Text h{bytes.data(), bytes.data() + header_end};
  h.next_line();
  PlyData data;
  std::vector<PlyElement> elements;
  if (!ply_header(h, data, elements, sink)) return false;
  // the data after the end_header line
  size_t start = bytes.find('\n', header_end);
  start = start == std::string::npos ? bytes.size() : start + 1;
  const long long left = static_cast<long long>(bytes.size() - start);
  if (!ply_counts_fit(elements, data.format, left, sink)) return false;
  data.p = reinterpret_cast<const unsigned char*>(bytes.data()) + start;
  data.end = reinterpret_cast<const unsigned char*>(bytes.data()) + bytes.size();
  data.text = Text{bytes.data() + start, bytes.data() + bytes.size()};
  bool vertices = false;
  for (const PlyElement& e : elements)
    if (!ply_rows(e, data, left, sink, vertices)) return false;
  if (!vertices) return sink.fail("the PLY file has no element 'vertex'");
  return sink.check_indices();
}

}  // namespace appell::mesh_detail
