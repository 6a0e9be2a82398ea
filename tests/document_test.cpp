// scenes/document: RFC 6901 reference tokens, one-line messages, and the limits of the
// document parser (docs/scene-format.md, "Limits").
#include <gtest/gtest.h>

#include <string>

#include "appell/scene.hpp"
#include "appell/scene_document.hpp"

namespace {

using appell::parse_scene_document;
using appell::pointer_token;
using appell::printable;
using appell::SceneError;

// The examples of RFC 6901 §5, and nlohmann's own reading of the tokens we write.
TEST(Document, PointerTokensFollowRfc6901) {
  EXPECT_EQ(pointer_token("a/b"), "a~1b");
  EXPECT_EQ(pointer_token("m~n"), "m~0n");
  EXPECT_EQ(pointer_token("~1"), "~01");  // not "~1" read back as "/"
  EXPECT_EQ(pointer_token(""), "");
  for (const std::string key : {"a/b", "m~n", "~01/~", "/", "~", "plain", " ", "c%d", "e^f"}) {
    const nlohmann::json doc = {{key, 42}};
    EXPECT_EQ(doc.at(nlohmann::json::json_pointer("/" + pointer_token(key))), 42) << key;
  }
}

TEST(Document, PrintableKeepsOneLine) {
  EXPECT_EQ(printable("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(printable(std::string("x\x01y", 3)), "x\\u0001y");
  EXPECT_EQ(printable("\xff"), "\\xff");           // not UTF-8: shown as a byte
  EXPECT_EQ(printable("ω̇ ∞"), "ω̇ ∞");              // UTF-8 passes
  EXPECT_EQ(printable("\xe2\x88"), "\\xe2\\x88");  // a truncated sequence
}

// the pointer of the error that parsing `text` throws
std::string error_pointer(const std::string& text) {
  try {
    parse_scene_document(text, "s.json");
  } catch (const SceneError& e) {
    return e.pointer();
  }
  return "(no error)";
}

TEST(Document, ErrorsAreLocatedAtTheValueBeingRead) {
  EXPECT_EQ(error_pointer(R"({"a": {"b/c": [0, 1e400]}})"), "/a/b~1c/1");
  EXPECT_EQ(error_pointer(R"({"a": 1, "a": 2})"), "/a");
  EXPECT_EQ(error_pointer(R"({"a": [1, {"~": 1, "~": 1}]})"), "/a/1/~0");
  EXPECT_EQ(error_pointer(R"({"a": [1, 2, x]})"), "/a/2");
  EXPECT_EQ(error_pointer(R"({"a": 1,)"), "");  // after a complete member: the object
  EXPECT_EQ(error_pointer(""), "");
  // nesting: the 33rd level is refused, the 32nd is not
  EXPECT_EQ(error_pointer(std::string(32, '[') + std::string(32, ']')), "(no error)");
  EXPECT_EQ(error_pointer(std::string(33, '[') + std::string(33, ']')),
            "/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0");
}

TEST(Document, KeysMayRepeatInDifferentObjects) {
  EXPECT_EQ(error_pointer(R"({"a": {"m": 1}, "b": {"m": 2}, "c": [{"m": 1}, {"m": 2}]})"),
            "(no error)");
}

}  // namespace
