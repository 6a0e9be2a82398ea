// Scenes with values replaced by JSON Pointer (appell/overrides.hpp).
#include "appell/overrides.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/scene_document.hpp"

namespace appell {

using nlohmann::json;

namespace {

// RFC 6901 §4: "~1" is "/", "~0" is "~"; any other "~" is malformed
std::string unescape(const std::string& token, const std::string& file, const std::string& ptr) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '~') {
      out += token[i];
      continue;
    }
    if (i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[++i] == '0' ? '~' : '/';
      continue;
    }
    throw SceneError(file, ptr, "malformed JSON Pointer: '~' must be followed by 0 or 1");
  }
  return out;
}

// the value `ptr` names in `root`, made when it is a new key of an object (the objects on
// the way included); array indices must exist
json& locate(json& root, const std::string& ptr, const std::string& file) {
  if (ptr.empty() || ptr[0] != '/')
    throw SceneError(file, ptr, "malformed JSON Pointer: must start with '/', e.g. /bodies/0/mass");
  json* at = &root;
  std::string walked;
  size_t start = 1;
  while (true) {
    const size_t end = ptr.find('/', start);
    const std::string token = unescape(ptr.substr(start, end - start), file, ptr);
    if (at->is_null()) *at = json::object();  // a key made on the way
    if (at->is_object()) {
      at = &(*at)[token];
    } else if (at->is_array()) {
      char* stop = nullptr;
      const unsigned long i = std::strtoul(token.c_str(), &stop, 10);
      if (token.empty() || *stop != '\0' || (token.size() > 1 && token[0] == '0') ||
          i >= at->size())
        throw SceneError(file, ptr,
                         "no element '" + token + "' in the array at " +
                             (walked.empty() ? "/" : walked) + " (it has " +
                             std::to_string(at->size()) + ")");
      at = &(*at)[i];
    } else {
      throw SceneError(
          file, ptr,
          "the value at " + walked + " is a " + at->type_name() + ", not an object or an array");
    }
    walked += "/" + token;
    if (end == std::string::npos) return *at;
    start = end + 1;
  }
}

// the comma-separated parts of s, commas inside brackets, braces or strings excluded
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> parts(1);
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string && c == '\\' && i + 1 < s.size()) {
      parts.back() += s.substr(i++, 2);
      continue;
    }
    if (c == '"') in_string = !in_string;
    if (!in_string && (c == '[' || c == '{')) ++depth;
    if (!in_string && (c == ']' || c == '}')) --depth;
    if (c == ',' && depth == 0 && !in_string) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

std::string format(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

Scene load_scene_with_overrides(const std::string& text, const std::string& file,
                                const std::vector<Override>& overrides) {
  // the checks of every scene (duplicate keys, limits) before the values are replaced
  json root = parse_scene_document(text, file);
  for (const Override& o : overrides) {
    json value = json::parse(o.value, nullptr, false);
    if (value.is_discarded())
      throw SceneError(file, o.pointer, "the new value '" + o.value + "' is not JSON");
    locate(root, o.pointer, file) = std::move(value);
  }
  return load_scene_from_string(root.dump(), file);
}

std::vector<std::string> parse_set_values(const std::string& ptr, const std::string& values) {
  const auto bad = [&](const std::string& why) {
    return SceneError("--set", ptr,
                      why + "; expected a:b:n (n values from a to b), v1,v2,... or one JSON value");
  };
  if (values.empty()) throw bad("no value");
  if (values.find(':') != std::string::npos && values.find_first_of("[{\"") == std::string::npos) {
    // a:b:n, evenly spaced, the ends exact; each part a whole token, checked in full
    const size_t c1 = values.find(':'), c2 = values.find(':', c1 + 1);
    const auto number = [](const std::string& t, double& v) {
      char* end = nullptr;
      v = std::strtod(t.c_str(), &end);
      return !t.empty() && !std::isspace(static_cast<unsigned char>(t[0])) && *end == '\0' &&
             std::isfinite(v);
    };
    double a = 0, b = 0;
    if (c2 == std::string::npos || values.find(':', c2 + 1) != std::string::npos ||
        !number(values.substr(0, c1), a) || !number(values.substr(c1 + 1, c2 - c1 - 1), b))
      throw bad("'" + values + "' is not a range a:b:n with finite a, b and n >= 1");
    const std::string count = values.substr(c2 + 1);
    char* end = nullptr;
    errno = 0;
    const long long parsed = std::strtoll(count.c_str(), &end, 10);
    if (count.empty() || !(std::isdigit(static_cast<unsigned char>(count[0])) || count[0] == '-') ||
        *end != '\0')
      throw bad("'" + values + "': the count '" + count + "' is not a whole number");
    if (errno == ERANGE || parsed < 1 || parsed > kMaxSetValues)
      throw SceneError("--set", ptr,
                       "'" + values + "': count " + count + " out of range (1.." +
                           std::to_string(kMaxSetValues) + ")");
    // numpy.linspace(a, b, n) bit for bit (numpy/core/function_base.py): a + k·step with
    // step = (b − a)/(n − 1), or a + (k/(n − 1))·(b − a) when the step underflows to 0;
    // the last value is b exactly
    const int n = static_cast<int>(parsed);
    const double delta = b - a, div = n - 1.0;
    const double step = n > 1 ? delta / div : 0.0;
    std::vector<std::string> out;
    for (int k = 0; k < n; ++k) {
      const double y = n == 1        ? 0.0 * delta + a
                       : k == n - 1  ? b
                       : step == 0.0 ? k / div * delta + a
                                     : k * step + a;
      out.push_back(format(y));
    }
    return out;
  }
  std::vector<std::string> out;
  for (const std::string& v : split_top_level(values)) {
    if (v.empty()) throw bad("an empty value in '" + values + "'");
    const bool is_json = !json::parse(v, nullptr, false).is_discarded();
    if (!is_json && (v[0] == '[' || v[0] == '{' || v[0] == '"'))
      throw bad("'" + v + "' is not JSON");
    out.push_back(is_json ? v : json(v).dump());  // a bare word is a string: pinv, rk4
  }
  return out;
}

}  // namespace appell
