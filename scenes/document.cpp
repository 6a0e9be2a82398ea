#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <set>
#include <vector>

#include "appell/scene.hpp"
#include "appell/scene_document.hpp"

namespace appell {

using nlohmann::json;

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

namespace {

// the length of the valid UTF-8 sequence at s[i], or 0.  RFC 3629 §4: no overlong forms,
// no surrogates, nothing above U+10FFFF (what nlohmann::json's dump() insists on)
size_t utf8_length(const std::string& s, size_t i) {
  const unsigned char c = s[i];
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (c < 0x80) {
    return 1;
  } else if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    const unsigned char b = s[i + k];
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xbf)) return 0;
  }
  return n;
}

}  // namespace

std::string printable(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = s[i];
    const size_t n = utf8_length(s, i);
    char buf[8];
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);  // not UTF-8: shown as a byte
      out += buf;
    } else {
      out.append(s, i, n);
      i += n;
      continue;
    }
    ++i;
  }
  return out;
}

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

// closes a file descriptor when the read ends, however it ends
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_scene_text(const std::string& path) {
  // O_NONBLOCK: opening a FIFO that has no writer returns at once instead of waiting
  const Descriptor f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw SceneError(path, "", "cannot open the file");
  struct stat st;
  if (::fstat(f.fd, &st) != 0) throw SceneError(path, "", "cannot read the file");
  if (S_ISDIR(st.st_mode)) throw SceneError(path, "", "is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw SceneError(path, "",
                     "not a regular file (a device, a pipe or a socket); scenes and URDFs are "
                     "read from files");
  const auto too_large = [&] {
    return SceneError(path, "",
                      "the file is larger than the limit of " +
                          std::to_string(SceneLimits::kMaxBytes >> 20) + " MiB for a scene");
  };
  if (static_cast<unsigned long long>(st.st_size) > SceneLimits::kMaxBytes) throw too_large();
  // a bounded read all the same (the file may grow): one byte more than the limit tells
  std::string text;
  char buf[1 << 16];
  while (text.size() <= SceneLimits::kMaxBytes) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw SceneError(path, "", "cannot read the file");
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  if (text.size() > SceneLimits::kMaxBytes) throw too_large();
  return text;
}

namespace {

// Where the parser is: one frame per open array or object.  In an object, `key` is the
// member being read (until its value is complete); in an array, `count` the elements
// read so far, i.e. the index of the one being read.
class Tracker {
 public:
  Tracker(const std::string& file) : file_(file) {}

  std::string pointer() const {
    std::string p;
    for (const Frame& f : frames_) {
      if (f.object && f.reading)
        p += "/" + pointer_token(f.key);
      else if (!f.object)
        p += "/" + std::to_string(f.count);
    }
    return p;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw SceneError(file_, pointer(), message);
  }

  bool operator()(int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (frames_.size() >= static_cast<size_t>(SceneLimits::kMaxDepth))
          fail("nested deeper than the limit of " + std::to_string(SceneLimits::kMaxDepth) +
               " arrays and objects");
        frames_.emplace_back();
        frames_.back().object = event == json::parse_event_t::object_start;
        break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        f.reading = true;
        if (!f.keys.insert(f.key).second) fail("duplicate key '" + f.key + "'");
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        complete();
        break;
      case json::parse_event_t::value:
        complete();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object = false;
    std::string key;
    bool reading = false;
    size_t count = 0;
    std::set<std::string> keys;
  };

  // the value being read in the innermost frame is complete
  void complete() {
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    if (f.object) {
      f.reading = false;
    } else if (++f.count > SceneLimits::kMaxArray) {
      f.count = SceneLimits::kMaxArray;
      fail("more than the limit of " + std::to_string(SceneLimits::kMaxArray) + " array elements");
    }
  }

  const std::string& file_;
  std::vector<Frame> frames_;
};

// line and column (1-based) of a byte offset
std::string line_and_column(const std::string& text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// nlohmann's message without its "[json.exception...] parse error at line 1, column 2: "
std::string reason(const std::string& what) {
  const size_t column = what.find("column ");
  const size_t colon = what.find(": ", column == std::string::npos ? 0 : column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

}  // namespace

json parse_scene_document(const std::string& text, const std::string& file) {
  Tracker tracker(file);
  try {
    return json::parse(text, [&](int depth, json::parse_event_t e, json& parsed) {
      return tracker(depth, e, parsed);
    });
  } catch (const json::parse_error& e) {
    tracker.fail("invalid JSON at " + line_and_column(text, e.byte) + ": " + reason(e.what()));
  } catch (const json::out_of_range&) {
    // the only one the parser throws: a number beyond the range of a double (1e400)
    tracker.fail("number out of the range of a double (about ±1.8e308)");
  }
}

}  // namespace appell
