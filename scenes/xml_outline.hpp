// Internal to the scene loader: what kind of text a scene file holds, read before any
// parser sees it.
//
// The loader goes by content, not by the file's name: `{` starts a JSON scene, `<` an XML
// document whose root element says what it is (<robot>: a URDF; <mujoco>: MJCF, which
// appell does not read).  The scan of an XML document also bounds its nesting: tinyxml2
// (under urdfdom) parses nested elements by recursion, one pair of stack frames a level
// with no limit, so 50,000 nested elements overflow the stack.  The scan is a loop; it
// skips what tinyxml2 skips — the declaration and processing instructions to `?>`,
// comments to `-->`, CDATA to `]]>`, any other `<!` (DOCTYPE) to the first `>`, quoted
// attribute values — and nothing more, so every element tinyxml2 would open is counted.
#pragma once

#include <cstddef>
#include <string>

namespace appell {

struct XmlOutline {
  std::string root;       // the first element's name; empty when there is none
  int too_deep_line = 0;  // the line of the first element nested deeper than the limit (0: none)
  std::string too_deep;   // that element's name
  // the first element past the count limits (too many elements, or attributes on one):
  // its line (0: none), its name, and which limit, in words
  int too_many_line = 0;
  std::string too_many, too_many_what;
  size_t elements = 0;  // elements opened (up to where the scan stopped)
};

// Elements of a URDF nest a few levels (robot, link, visual, geometry, mesh); 64 leaves
// room for <gazebo> and plugin blocks.
constexpr int kMaxXmlDepth = 64;
// tinyxml2 checks each attribute of an element against those before it (O(n²) in one
// element's attributes: 80,000 take 17 s); MJCF's and URDF's elements have fewer than 50
constexpr int kMaxXmlAttributes = 256;
// elements of one document (a robot of thousands of bodies has some 10⁴–10⁵); tinyxml2
// keeps about 100 bytes an element
constexpr size_t kMaxXmlElements = 1000000;

struct XmlLimits {
  int max_depth = kMaxXmlDepth;
  int max_attributes = kMaxXmlAttributes;
  size_t max_elements = kMaxXmlElements;
};

// The outline of an XML text, in one pass of O(size) and no recursion; it stops at the
// first element past a limit.
XmlOutline xml_outline(const std::string& text, const XmlLimits& limits);
XmlOutline xml_outline(const std::string& text, int max_depth = kMaxXmlDepth);

// The error for the outline's first element past a limit ("" when none): "line N: element
// <name> ..." (located by the caller with the file).
std::string outline_defect(const XmlOutline& o, const XmlLimits& limits);

// The first byte after a UTF-8 byte order mark and white space ('\0' when none).
char first_significant_char(const std::string& text);

}  // namespace appell
