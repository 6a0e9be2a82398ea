// A located view of one JSON value, for the scene loader: every accessor checks the type
// and range it expects and throws SceneError with the value's JSON Pointer otherwise.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "appell/rotation.hpp"
#include "appell/scene.hpp"

namespace appell {

class Node {
 public:
  Node(const nlohmann::json& j, std::string pointer, const std::string& file)
      : j_(&j), ptr_(std::move(pointer)), file_(&file) {}

  const nlohmann::json& json() const { return *j_; }
  const std::string& pointer() const { return ptr_; }
  const std::string& file() const { return *file_; }
  [[noreturn]] void fail(const std::string& message) const;

  // an object whose keys are all in `allowed` (unknown keys are almost always typos)
  const Node& object(std::initializer_list<const char*> allowed) const;
  const Node& object(const std::vector<std::string>& allowed) const;
  bool has(const char* key) const { return j_->is_object() && j_->contains(key); }
  Node operator[](const char* key) const;  // required key
  Node at(size_t i) const;
  size_t size() const;  // of an array (checked)

  double number() const;  // finite
  double positive() const;
  double nonnegative() const;
  int positive_int() const;
  std::string string() const;
  // a body or constraint name (`what`): not empty, and nothing that would break a CSV
  // column or a one-line message (no comma, double quote or control character)
  std::string name(const char* what) const;
  Vec3 vec3() const;
  Vec3 unit_vec3() const;  // nonzero, normalised
  Mat3 mat3() const;
  std::vector<Node> array(size_t n) const;  // an array of exactly n elements

 private:
  const nlohmann::json* j_;
  std::string ptr_;
  const std::string* file_;
};

std::string type_name(const nlohmann::json& j);

// Why `s` cannot name a body, a joint or a constraint, as the end of a sentence ("is
// empty", "contains a comma, ..."), or "" when it can.  Names become CSV column names and
// keys of JSON output, and appear in one-line messages: valid UTF-8 without a comma, a
// double quote or a control character.  The URDF loader applies the same rule.
std::string name_defect(const std::string& s);
// the same as a whole message about a `what` ("body", "constraint") name, as Node::name()
// says it; the Python ModelBuilder applies it
std::string name_problem(const std::string& name, const char* what);
std::string format_vec(const Vec3& v);

}  // namespace appell
