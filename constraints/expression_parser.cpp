// The recursive-descent parser of the expression language: text → tape (expression.hpp).
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "appell/expression.hpp"
#include "appell/joint.hpp"

namespace appell {

namespace {

struct FunctionInfo {
  const char* name;
  int arity;
};

constexpr FunctionInfo kFunctions[] = {
    {"sin", 1},  {"cos", 1},   {"tan", 1},  {"asin", 1}, {"acos", 1}, {"atan", 1},
    {"sinh", 1}, {"cosh", 1},  {"tanh", 1}, {"exp", 1},  {"log", 1},  {"sqrt", 1},
    {"abs", 1},  {"atan2", 2}, {"pow", 2},  {"min", 2},  {"max", 2},
};

// body accessors 0–12 (position, velocity, angular velocity, quaternion), joint accessors
// 13–14 (coordinate, rate)
const char* const kAccessors[] = {"x",  "y",  "z",  "vx", "vy", "vz", "wx", "wy",
                                  "wz", "qw", "qx", "qy", "qz", "q",  "qd"};
constexpr int kJointAccessor = 13;

const FunctionInfo* find_function(const std::string& name) {
  for (const FunctionInfo& f : kFunctions)
    if (name == f.name) return &f;
  return nullptr;
}

int find_accessor(const std::string& name) {
  for (int i = 0; i < static_cast<int>(std::size(kAccessors)); ++i)
    if (name == kAccessors[i]) return i;
  return -1;
}

// nq (coordinates) or nu (rates) of a joint
int joint_size(const Joint& j, bool coordinates) {
  return coordinates ? j.joint_type().nq() : j.joint_type().nu();
}

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

}  // namespace

class ExpressionParser {
 public:
  using E = Expression;
  ExpressionParser(const std::string& text, const std::map<std::string, double>& params,
                   const E::BodyLookup& bodies, const E::JointLookup& joints,
                   const E::CoordinateLookup& coordinates, E& out)
      : s_(text),
        params_(params),
        bodies_(bodies),
        joints_(joints),
        coordinates_(coordinates),
        e_(out) {}

  static constexpr int kMaxDepth = 256;

  void run() {
    skip();
    if (pos_ >= s_.size()) throw ExpressionError(1, "empty equation");
    e_.root_ = expr();
    skip();
    // "lhs = rhs" is read as lhs − rhs = 0 (the equation is "= 0" otherwise)
    const size_t eq = pos_;
    if (accept('=')) e_.root_ = emit(E::Op::Sub, e_.root_, expr(), eq);
    skip();
    if (pos_ < s_.size()) fail(pos_, std::string("unexpected '") + s_[pos_] + "'");
  }

 private:
  [[noreturn]] void fail(size_t at, const std::string& msg) const {
    throw ExpressionError(static_cast<int>(at) + 1, msg);
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    skip();
    if (pos_ >= s_.size())
      fail(pos_, std::string("unexpected end of the equation; expected '") + c + "'");
    if (s_[pos_] != c) fail(pos_, std::string("expected '") + c + "', got '" + s_[pos_] + "'");
    ++pos_;
  }

  int emit(E::Op op, int a, int b, size_t column, double c = 0.0) {
    E::Node n;
    n.op = op;
    n.a = a;
    n.b = b;
    n.c = c;
    n.column = static_cast<int>(column) + 1;
    // constant folding: an operation on constants becomes a constant (unless it is not
    // finite, which is left for check_finite to report at its column)
    if (a >= 0 && is_const(a) && (b < 0 || is_const(b))) {
      E mini;
      mini.ops_.push_back(e_.ops_[a]);
      if (b >= 0) mini.ops_.push_back(e_.ops_[b]);
      E::Node folded = n;
      folded.a = 0;
      folded.b = b >= 0 ? 1 : -1;
      mini.ops_.push_back(folded);
      mini.root_ = static_cast<int>(mini.ops_.size()) - 1;
      const double v = mini.value(StateView{});
      if (std::isfinite(v)) {
        if (b >= 0 && b == last()) e_.ops_.pop_back();
        if (a == last()) e_.ops_.pop_back();
        n.op = E::Op::Const;
        n.a = n.b = -1;
        n.c = v;
      }
    }
    e_.ops_.push_back(n);
    return last();
  }
  int last() const { return static_cast<int>(e_.ops_.size()) - 1; }
  bool is_const(int i) const { return e_.ops_[i].op == E::Op::Const; }

  int expr() {
    int lhs = term();
    for (;;) {
      skip();
      const size_t at = pos_;
      if (accept('+'))
        lhs = emit(E::Op::Add, lhs, term(), at);
      else if (accept('-'))
        lhs = emit(E::Op::Sub, lhs, term(), at);
      else
        return lhs;
    }
  }
  int term() {
    int lhs = unary();
    for (;;) {
      skip();
      const size_t at = pos_;
      if (accept('*'))
        lhs = emit(E::Op::Mul, lhs, unary(), at);
      else if (accept('/'))
        lhs = emit(E::Op::Div, lhs, unary(), at);
      else
        return lhs;
    }
  }
  // every recursion of the grammar passes through here: bound it, so that no equation
  // a user can type exhausts the stack
  int unary() {
    skip();
    const size_t at = pos_;
    struct Depth {
      int& d;
      explicit Depth(int& depth) : d(++depth) {}
      ~Depth() { --d; }
    } guard(depth_);
    if (depth_ > kMaxDepth)
      fail(at, "the equation is nested too deeply (more than " + std::to_string(kMaxDepth) +
                   " levels)");
    if (accept('-')) return emit(E::Op::Neg, unary(), -1, at);
    if (accept('+')) return unary();
    return power();
  }
  int power() {
    const int base = primary();
    skip();
    const size_t at = pos_;
    if (!accept('^')) return base;
    return make_pow(base, unary(), at);
  }
  int make_pow(int base, int exponent, size_t at) {
    // a constant exponent keeps negative bases legal (x^2 for x < 0)
    if (is_const(exponent)) {
      const double p = e_.ops_[exponent].c;
      if (exponent == static_cast<int>(e_.ops_.size()) - 1) e_.ops_.pop_back();  // folded in
      return emit(E::Op::PowConst, base, -1, at, p);
    }
    return emit(E::Op::Pow, base, exponent, at);
  }

  int primary() {
    skip();
    const size_t at = pos_;
    if (pos_ >= s_.size()) fail(pos_, "unexpected end of the equation; expected a value");
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (accept('(')) {
      const int inner = expr();
      expect(')');
      return inner;
    }
    if (!is_ident_start(c)) fail(pos_, std::string("unexpected '") + c + "'");
    while (pos_ < s_.size() && is_ident_char(s_[pos_])) ++pos_;
    const std::string name = s_.substr(at, pos_ - at);
    skip();
    if (pos_ < s_.size() && s_[pos_] == '(') {
      ++pos_;
      const int acc = find_accessor(name);
      if (acc >= 0) return variable_ref(name, acc, at);
      const FunctionInfo* f = find_function(name);
      if (!f) fail(at, "unknown function '" + name + "'");
      return call(*f, at);
    }
    if (name == "t")
      return variable(ExprVariable{ExprVariable::Kind::Time, kWorld, 0, 0, "t", nullptr}, at);
    if (name == "pi") return emit(E::Op::Const, -1, -1, at, M_PI);
    auto it = params_.find(name);
    if (it != params_.end()) return emit(E::Op::Const, -1, -1, at, it->second);
    if (find_accessor(name) >= 0) fail(at, "'" + name + "' needs a body: " + name + "(body)");
    if (find_function(name)) fail(at, "function '" + name + "' needs arguments in parentheses");
    fail(at, "unknown name '" + name + "'; expected t, a parameter or a variable such as x(body)");
  }

  int number() {
    const size_t at = pos_;
    const char* begin = s_.c_str() + pos_;
    char* end = nullptr;
    const double v = std::strtod(begin, &end);
    if (end == begin) fail(at, "malformed number");
    pos_ += static_cast<size_t>(end - begin);
    if (!std::isfinite(v)) fail(at, "number out of range");
    return emit(E::Op::Const, -1, -1, at, v);
  }

  int variable_ref(const std::string& accessor, int acc, size_t at) {
    skip();
    const size_t name_at = pos_;
    const size_t close = s_.find(')', pos_);
    if (close == std::string::npos) fail(s_.size(), "unexpected end of the equation; expected ')'");
    std::string body = s_.substr(pos_, close - pos_);
    while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
    if (body.empty()) fail(name_at, "expected a body name in " + accessor + "(...)");
    pos_ = close + 1;
    if (acc >= kJointAccessor) return joint_ref(accessor, acc, body, name_at, at);
    if (coordinates_)
      fail(at, "a Lagrangian system has no bodies; its variables are q(name), qd(name) and t");
    if (body == "world") fail(name_at, "'world' has no state; expected a body name");
    const E::BodyInfo info = bodies_(body);
    if (info.index < 0) fail(name_at, "unknown body '" + body + "'");
    ExprVariable v;
    v.kind = acc < 3   ? ExprVariable::Kind::Position
             : acc < 6 ? ExprVariable::Kind::Velocity
             : acc < 9 ? ExprVariable::Kind::AngularVelocity
                       : ExprVariable::Kind::Orientation;
    v.body = info.index;
    v.axis = acc < 9 ? acc % 3 : acc - 9;
    v.text = accessor + "(" + body + ")";
    if (v.kind == ExprVariable::Kind::AngularVelocity && !info.rigid)
      fail(at, "'" + body + "' is a particle; it has no angular velocity");
    if (v.kind == ExprVariable::Kind::Orientation && !info.rigid)
      fail(at, "'" + body + "' is a particle; it has no orientation");
    return variable(v, at);
  }

  // q(joint) or q(joint, k); `inside` is the text between the parentheses.  In a
  // Lagrangian system, q(c) and qd(c) of its coordinate c.
  int joint_ref(const std::string& accessor, int acc, const std::string& inside, size_t name_at,
                size_t at) {
    if (coordinates_) {
      const int k = coordinates_(inside);
      if (k < 0) fail(name_at, "unknown coordinate '" + inside + "' in " + accessor + "(...)");
      ExprVariable v;
      v.kind = acc == kJointAccessor ? ExprVariable::Kind::Coordinate : ExprVariable::Kind::Rate;
      v.axis = k;
      v.text = accessor + "(" + inside + ")";
      return variable(v, at);
    }
    std::string name = inside;
    int k = -1;
    const size_t comma = inside.find(',');
    if (comma != std::string::npos) {
      name = inside.substr(0, comma);
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
        name.pop_back();
      const std::string idx = inside.substr(comma + 1);
      char* end = nullptr;
      const long v = std::strtol(idx.c_str(), &end, 10);
      while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
      if (end == idx.c_str() || (end && *end) || v < 0)
        fail(name_at + comma + 1, "expected a coordinate index 0, 1, ... after the joint name");
      k = static_cast<int>(v);
    }
    std::shared_ptr<const Joint> joint = joints_ ? joints_(name) : nullptr;
    if (!joint) fail(name_at, "unknown joint '" + name + "' in " + accessor + "(...)");
    ExprVariable v;
    v.kind = acc == kJointAccessor ? ExprVariable::Kind::JointQ : ExprVariable::Kind::JointU;
    const int n = joint_size(*joint, v.kind == ExprVariable::Kind::JointQ);
    if (n == 0) fail(name_at, "joint '" + name + "' has no coordinates");
    if (k < 0 && n != 1)
      fail(name_at, "joint '" + name + "' has " + std::to_string(n) + " coordinates; write " +
                        accessor + "(" + name + ", k) with k from 0 to " + std::to_string(n - 1));
    if (k >= n)
      fail(name_at, "joint '" + name + "' has " + std::to_string(n) + " coordinates, got index " +
                        std::to_string(k));
    v.axis = k < 0 ? 0 : k;
    v.joint = std::move(joint);
    v.text = accessor + "(" + inside + ")";
    return variable(v, at);
  }

  int variable(ExprVariable v, size_t at) {
    int k = 0;
    for (; k < static_cast<int>(e_.vars_.size()); ++k) {
      const ExprVariable& o = e_.vars_[k];
      if (o.kind == v.kind && o.body == v.body && o.axis == v.axis && o.joint == v.joint) break;
    }
    if (k == static_cast<int>(e_.vars_.size())) {
      v.column = static_cast<int>(at) + 1;
      e_.vars_.push_back(v);
      var_node_.push_back(-1);
    }
    // one node per variable: later uses refer back to it
    if (var_node_[k] >= 0) return var_node_[k];
    const int n = emit(E::Op::Var, -1, -1, at);
    e_.ops_[n].var = k;
    var_node_[k] = n;
    return n;
  }

  int call(const FunctionInfo& f, size_t at) {
    int args[2] = {-1, -1};
    int count = 0;
    skip();
    if (!accept(')')) {
      for (;;) {
        const int a = expr();
        if (count < 2) args[count] = a;
        ++count;
        if (accept(')')) break;
        skip();
        if (pos_ >= s_.size()) fail(pos_, "unexpected end of the equation; expected ')'");
        expect(',');
      }
    }
    if (count != f.arity)
      fail(at, std::string("'") + f.name + "' takes " + std::to_string(f.arity) +
                   (f.arity == 1 ? " argument" : " arguments") + ", got " + std::to_string(count));
    const std::string n = f.name;
    if (n == "atan2") return emit(E::Op::Atan2, args[0], args[1], at);
    if (n == "pow") return make_pow(args[0], args[1], at);
    if (n == "min") return emit(E::Op::Min, args[0], args[1], at);
    if (n == "max") return emit(E::Op::Max, args[0], args[1], at);
    static const std::pair<const char*, E::Op> unary[] = {
        {"sin", E::Op::Sin},   {"cos", E::Op::Cos},   {"tan", E::Op::Tan},   {"asin", E::Op::Asin},
        {"acos", E::Op::Acos}, {"atan", E::Op::Atan}, {"sinh", E::Op::Sinh}, {"cosh", E::Op::Cosh},
        {"tanh", E::Op::Tanh}, {"exp", E::Op::Exp},   {"log", E::Op::Log},   {"sqrt", E::Op::Sqrt},
        {"abs", E::Op::Abs}};
    for (const auto& u : unary)
      if (n == u.first) return emit(u.second, args[0], -1, at);
    fail(at, "unknown function '" + n + "'");
  }

  const std::string& s_;
  const std::map<std::string, double>& params_;
  const E::BodyLookup& bodies_;
  const E::JointLookup& joints_;
  const E::CoordinateLookup& coordinates_;
  E& e_;
  int depth_ = 0;
  size_t pos_ = 0;
  std::vector<int> var_node_;  // the node of each variable
};

Expression Expression::parse(const std::string& text,
                             const std::map<std::string, double>& parameters,
                             const BodyLookup& bodies, const JointLookup& joints,
                             const CoordinateLookup& coordinates) {
  Expression e;
  e.text_ = text;
  ExpressionParser(text, parameters, bodies, joints, coordinates, e).run();
  return e;
}

bool Expression::valid_parameter_name(const std::string& name) {
  if (name.empty() || !is_ident_start(name[0])) return false;
  for (char c : name)
    if (!is_ident_char(c)) return false;
  return name != "t" && name != "pi" && !find_function(name) && find_accessor(name) < 0;
}

}  // namespace appell
