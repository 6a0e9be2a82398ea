#include "scenes/reader.hpp"

#include <cmath>
#include <sstream>

#include "appell/scene_document.hpp"

namespace appell {

std::string type_name(const nlohmann::json& j) {
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "a value";
}

std::string format_vec(const Vec3& v) {
  std::ostringstream os;
  os.precision(10);
  os << "[" << v.x() << ", " << v.y() << ", " << v.z() << "]";
  return os.str();
}

void Node::fail(const std::string& message) const {
  throw SceneError(*file_, ptr_, message);
}

const Node& Node::object(std::initializer_list<const char*> allowed) const {
  return object(std::vector<std::string>(allowed.begin(), allowed.end()));
}

const Node& Node::object(const std::vector<std::string>& allowed) const {
  if (!j_->is_object()) fail("expected an object, got " + type_name(*j_));
  for (auto it = j_->begin(); it != j_->end(); ++it) {
    bool ok = false;
    for (const std::string& a : allowed) ok = ok || it.key() == a;
    if (!ok) {
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      Node(it.value(), ptr_ + "/" + pointer_token(it.key()), *file_)
          .fail("unknown key '" + it.key() + "'; expected one of: " + list);
    }
  }
  return *this;
}

Node Node::operator[](const char* key) const {
  if (!j_->is_object()) fail("expected an object, got " + type_name(*j_));
  auto it = j_->find(key);
  if (it == j_->end()) fail(std::string("missing key '") + key + "'");
  return Node(*it, ptr_ + "/" + key, *file_);
}

Node Node::at(size_t i) const {
  if (!j_->is_array()) fail("expected an array, got " + type_name(*j_));
  if (i >= j_->size()) fail("expected at least " + std::to_string(i + 1) + " elements");
  return Node((*j_)[i], ptr_ + "/" + std::to_string(i), *file_);
}

size_t Node::size() const {
  if (!j_->is_array()) fail("expected an array, got " + type_name(*j_));
  return j_->size();
}

double Node::number() const {
  if (!j_->is_number()) fail("expected a number, got " + type_name(*j_));
  const double v = j_->get<double>();
  if (!std::isfinite(v)) fail("expected a finite number");
  return v;
}

static std::string show(double v) {
  std::ostringstream os;
  os.precision(10);
  os << v;
  return os.str();
}

double Node::positive() const {
  const double v = number();
  if (!(v > 0)) fail("must be > 0, got " + show(v));
  return v;
}

double Node::nonnegative() const {
  const double v = number();
  if (!(v >= 0)) fail("must be >= 0, got " + show(v));
  return v;
}

int Node::positive_int() const {
  if (!j_->is_number_integer()) fail("expected a positive integer, got " + type_name(*j_));
  const long long v = j_->get<long long>();
  if (v < 1 || v > 1000000000) fail("must be a positive integer, got " + std::to_string(v));
  return static_cast<int>(v);
}

std::string Node::string() const {
  if (!j_->is_string()) fail("expected a string, got " + type_name(*j_));
  return j_->get<std::string>();
}

std::string name_defect(const std::string& s) {
  if (s.empty()) return "is empty";
  if (!valid_utf8(s)) return "is not valid UTF-8";
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f || c == ',' || c == '"')
      return "contains a comma, a double quote or a control character; names become CSV "
             "column names and may not";
  return "";
}

std::string name_problem(const std::string& s, const char* what) {
  const std::string defect = name_defect(s);
  if (defect.empty()) return "";
  if (s.empty()) return std::string(what) + " name must not be empty";
  return std::string(what) + " name '" + s + "' " + defect;
}

std::string Node::name(const char* what) const {
  const std::string s = string();
  const std::string why = name_problem(s, what);
  if (!why.empty()) fail(why);
  return s;
}

std::vector<Node> Node::array(size_t n) const {
  if (!j_->is_array())
    fail("expected an array of " + std::to_string(n) + ", got " + type_name(*j_));
  if (j_->size() != n)
    fail("expected " + std::to_string(n) + " elements, got " + std::to_string(j_->size()));
  std::vector<Node> out;
  for (size_t i = 0; i < n; ++i) out.push_back(at(i));
  return out;
}

Vec3 Node::vec3() const {
  const auto e = array(3);
  return Vec3(e[0].number(), e[1].number(), e[2].number());
}

Vec3 Node::unit_vec3() const {
  const Vec3 v = vec3();
  if (!(v.norm() > 1e-12)) fail("direction must be nonzero, got " + format_vec(v));
  return (v / v.cwiseAbs().maxCoeff()).normalized();  // |v|² cannot overflow
}

Mat3 Node::mat3() const {
  const auto rows = array(3);
  Mat3 M;
  for (int r = 0; r < 3; ++r) M.row(r) = rows[r].vec3().transpose();
  return M;
}

}  // namespace appell
