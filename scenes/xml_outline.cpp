#include "scenes/xml_outline.hpp"

#include <algorithm>
#include <cstring>

namespace appell {

namespace {

bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// tinyxml2's name characters, generously: every byte that is not markup or space
bool name_char(char c) {
  return !space(c) && c != '>' && c != '/' && c != '=' && c != '"' && c != '\'' && c != '<' &&
         c != '\0';
}

bool starts(const std::string& s, size_t i, const char* prefix) {
  return s.compare(i, std::strlen(prefix), prefix) == 0;
}

// How a tag's attributes ended: at its '>' or "/>", past the limit of attributes (its
// quoted values: one an attribute), or with the text
enum class TagEnd { Closed, TooManyAttributes, Unfinished };

// Reads a tag from i (after its name) to past its '>' or "/>" (self_closed then), its
// attributes counted against max_attributes (none when negative: an end tag's).
TagEnd tag_end(const std::string& text, size_t& i, int max_attributes, bool& self_closed) {
  const size_t n = text.size();
  int attributes = 0;
  for (;; ++i) {
    if (i >= n) return TagEnd::Unfinished;
    const char c = text[i];
    if (c == '"' || c == '\'') {
      const size_t k = text.find(c, i + 1);
      if (k == std::string::npos) return TagEnd::Unfinished;
      i = k;
      if (max_attributes >= 0 && ++attributes > max_attributes) return TagEnd::TooManyAttributes;
    } else if (c == '>') {
      break;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '>') {
      self_closed = true;
      ++i;
      break;
    }
  }
  ++i;
  return TagEnd::Closed;
}

}  // namespace

char first_significant_char(const std::string& text) {
  size_t i = starts(text, 0, "\xEF\xBB\xBF") ? 3 : 0;
  while (i < text.size() && space(text[i])) ++i;
  return i < text.size() ? text[i] : '\0';
}

XmlOutline xml_outline(const std::string& text, int max_depth) {
  XmlLimits limits;
  limits.max_depth = max_depth;
  return xml_outline(text, limits);
}

std::string outline_defect(const XmlOutline& o, const XmlLimits& limits) {
  if (o.too_deep_line > 0)
    return "line " + std::to_string(o.too_deep_line) + ": element <" + o.too_deep.substr(0, 40) +
           "> is nested deeper than the limit of " + std::to_string(limits.max_depth) +
           " XML elements";
  if (o.too_many_line > 0)
    return "line " + std::to_string(o.too_many_line) + ": element <" + o.too_many.substr(0, 40) +
           "> " + o.too_many_what;
  return "";
}

XmlOutline xml_outline(const std::string& text, const XmlLimits& limits) {
  const int max_depth = limits.max_depth;
  XmlOutline out;
  const auto line_of = [&](size_t at) {
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
  };
  const size_t n = text.size();
  int depth = 0;
  size_t i = 0;
  // each pass reads one piece of markup from the next '<' (character data is skipped:
  // tinyxml2 ends text at '<'); a piece that does not end stops the scan, as tinyxml2
  // stops with an error there and opens nothing after it
  while ((i = text.find('<', i)) != std::string::npos) {
    const char* end = nullptr;
    size_t skip = 0;
    if (starts(text, i, "<?"))
      end = "?>", skip = 2;
    else if (starts(text, i, "<!--"))
      end = "-->", skip = 4;
    else if (starts(text, i, "<![CDATA["))
      end = "]]>", skip = 9;
    else if (starts(text, i, "<!"))
      end = ">", skip = 2;
    if (end) {
      const size_t k = text.find(end, i + skip);
      if (k == std::string::npos) return out;
      i = k + std::strlen(end);
      continue;
    }
    // a tag: '<', white space, '/' for an end tag, the name, attributes, '>' or "/>"
    const size_t start = i;
    ++i;
    while (i < n && space(text[i])) ++i;
    const bool closing = i < n && text[i] == '/';
    if (closing) ++i;
    const size_t name = i;
    while (i < n && name_char(text[i])) ++i;
    const std::string tag = text.substr(name, i - name);
    bool self_closed = false;
    const TagEnd te = tag_end(text, i, closing ? -1 : limits.max_attributes, self_closed);
    if (te == TagEnd::Unfinished) return out;
    if (te == TagEnd::TooManyAttributes) {
      out.too_many_line = line_of(start);
      out.too_many = tag;
      out.too_many_what =
          "has more than the limit of " + std::to_string(limits.max_attributes) + " attributes";
      return out;
    }
    if (closing) {
      depth = std::max(0, depth - 1);
      continue;
    }
    if (out.root.empty() && depth == 0) out.root = tag;
    if (++out.elements > limits.max_elements) {
      out.too_many_line = line_of(start);
      out.too_many = tag;
      out.too_many_what =
          "is past the limit of " + std::to_string(limits.max_elements) + " XML elements";
      return out;
    }
    if (self_closed) continue;
    if (++depth > max_depth) {
      out.too_deep_line = line_of(start);
      out.too_deep = tag;
      return out;
    }
  }
  return out;
}

}  // namespace appell
