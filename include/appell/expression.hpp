// Expressions of the scene language (docs/scene-format.md) with exact derivatives.
//
// An equation such as  "vy(q) - z(q)*vx(q) - a*sin(w*t)"  is parsed once, by recursive
// descent, into a flat tape (one operation per node, operands before their users;
// operations on constants are folded, and each variable has a single node).
// Grammar (lowest precedence first; ^ is right-associative and binds tighter than unary
// minus, so -x^2 = −(x²)):
//
//     equation:= expr ('=' expr)?          (lhs = rhs means lhs − rhs = 0)
//     expr    := term (('+' | '-') term)*
//     term    := unary (('*' | '/') unary)*
//     unary   := ('-' | '+') unary | power
//     power   := primary ('^' unary)?
//     primary := number | name | name '(' args ')' | '(' expr ')'
//
// names: t, parameters, pi; x(b) y(b) z(b) vx(b) vy(b) vz(b) wx(b) wy(b) wz(b) with b a
// body name; qw(b) qx(b) qy(b) qz(b), the unit quaternion of b's orientation (w ≥ 0);
// q(j) qd(j), the coordinate and rate of joint j (q(j, k) qd(j, k): the k-th, from 0, of a
// joint with several; appell/joint_state.hpp); functions sin cos tan asin acos atan atan2 sinh cosh
// tanh exp log sqrt abs pow min max.  In a Lagrangian system (docs/lagrangian.md) q(c) and
// qd(c) name its coordinate c and that coordinate's rate instead.
//
// Derivatives by forward-mode automatic differentiation, never finite differences.  One
// sweep of the tape carries, per node, the value, its gradient with respect to every
// variable of the expression (a fixed-size vector, sized at parse time), and optionally
// the first two Taylor coefficients along the direction  x ↦ x + v s,  t ↦ t + s
// (velocities and ω held fixed).  For a function f of the node's operands the chain
// rules are
//     ∇f  = f_a ∇a + f_b ∇b                                                      (E1)
//     f₁  = f_a a₁ + f_b b₁                                                      (E2)
//     f₂  = f_a a₂ + f_b b₂ + ½ (f_aa a₁² + 2 f_ab a₁ b₁ + f_bb b₁²)             (E3)
// so that for a position-level g(x, t):  f₁ = ġ along the motion, and 2 f₂ =
// vᵀ ∂²g/∂x² v + 2 ∂²g/∂x∂t·v + ∂²g/∂t² — exactly the velocity-product part of g̈.
//
// Evaluation never allocates when the StateView carries a scratch buffer of
// scratch_size() doubles (Data holds one, sized by the Model); the Expression itself is
// constant, so a Model stays shareable between threads.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "appell/body.hpp"

namespace appell {

class Joint;

// A parse or evaluation error at a 1-based column of the equation text.
class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(int column, const std::string& message)
      : std::runtime_error("column " + std::to_string(column) + ": " + message),
        column_(column),
        message_(message) {}
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  int column_;
  std::string message_;
};

// One variable of an expression: t, or one component of a body's x̄, v̄, ω or quaternion,
// or one coordinate or rate of a joint.  Orientation and joint variables have values only
// (forces); constraints reject them (their derivatives are not carried).  Coordinate and
// Rate are a Lagrangian system's q_k and q̇_k (axis = k); they have no StateView value and
// are read by value_as() only.
struct ExprVariable {
  enum class Kind {
    Time,
    Position,
    Velocity,
    AngularVelocity,
    Orientation,
    JointQ,
    JointU,
    Coordinate,
    Rate
  };
  Kind kind = Kind::Time;
  int body = kWorld;
  int axis = 0;                        // component, or the joint's coordinate index
  int column = 0;                      // where it first appears, for errors
  std::string text;                    // as written, e.g. "vx(cart)"
  std::shared_ptr<const Joint> joint;  // JointQ, JointU
};

class Expression {
 public:
  // What a name inside x(...) etc. refers to: the body index, or −2 if there is no such
  // body; `rigid` tells whether it has an angular velocity.
  struct BodyInfo {
    int index = -2;
    bool rigid = false;
  };
  using BodyLookup = std::function<BodyInfo(const std::string&)>;
  // The joint called `name`, or null (joint variables are then unknown names).
  using JointLookup = std::function<std::shared_ptr<const Joint>(const std::string&)>;
  // The index of the Lagrangian coordinate called `name`, or −1 (q(name), qd(name)).
  using CoordinateLookup = std::function<int(const std::string&)>;

  // Parses `text`.  Throws ExpressionError (column and message) on any error: syntax,
  // unknown function or name, wrong number of arguments, unknown body, ω of a particle.
  static Expression parse(const std::string& text, const std::map<std::string, double>& parameters,
                          const BodyLookup& bodies, const JointLookup& joints = nullptr,
                          const CoordinateLookup& coordinates = nullptr);
  // true when `name` may be used as a parameter (an identifier, not t/pi/a function/a
  // variable accessor)
  static bool valid_parameter_name(const std::string& name);

  const std::vector<ExprVariable>& variables() const { return vars_; }
  const std::string& text() const { return text_; }  // as written
  int size() const { return static_cast<int>(ops_.size()); }
  // doubles of StateView::scratch one sweep uses (with gradients when `gradient`)
  size_t scratch_size(bool gradient) const {
    return static_cast<size_t>(size()) * (3 + (gradient ? vars_.size() : 0));
  }

  // The value.  O(nodes).
  double value(const StateView& s) const;

  // Value, gradient (one entry per variables()[k]) and the Taylor coefficients f₁, f₂
  // (E2, E3); `taylor` = false skips f₁, f₂.  O(nodes · (variables + 3)).
  struct Jet {
    double value = 0, d1 = 0, d2 = 0;
  };
  Jet evaluate(const StateView& s, double* gradient, bool taylor) const;

  // Evaluates value, gradient and Taylor coefficients and reports the first node whose
  // value or derivatives are not finite (e.g. a division by zero) as an ExpressionError
  // at its column; `when` completes the message ("at t = 0").  With `derivatives` false
  // only values are checked (forces need no derivatives).
  void check_finite(const StateView& s, const std::string& when, bool derivatives = true) const;

  // The value at the variables' values x (x[k] for variables()[k]), in any scalar type T
  // with the arithmetic and functions of bodies/dual_number.hpp: double, DualNumber<N> for
  // first derivatives, DualNumber<N, DualNumber<K>> for second ones.  `work` holds size()
  // values.  Defined in constraints/expression_scalar.hpp.  O(nodes) operations of T.
  template <class T>
  T value_as(const T* x, T* work) const;
  // The 1-based column of the first node whose value at x is not finite, or 0.
  int first_nonfinite_column(const double* x, double* work) const;

 private:
  // tape operations
  // clang-format off
  enum class Op : unsigned char {
    Const, Var,
    Add, Sub, Mul, Div, Pow, Atan2, Min, Max,                          // binary
    Neg, PowConst, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh,  // unary
    Exp, Log, Sqrt, Abs,
  };
  // clang-format on
  struct Node {
    Op op;
    int a = -1, b = -1;  // operand nodes
    int var = -1;        // variable index (Op::Var)
    double c = 0.0;      // constant, or the constant exponent of PowConst
    int column = 0;
  };
  friend class ExpressionParser;

  // the sweep; `grad` may be null (values only); returns the index of the first
  // non-finite node when `find_bad`, else −1
  int sweep(const StateView& s, bool grad, bool taylor, bool find_bad, double* out_grad,
            Jet* out) const;
  template <bool kGrad, bool kTaylor>
  int sweep_as(const StateView& s, bool find_bad, double* out_grad, Jet* out) const;
  double variable_value(const ExprVariable& v, const StateView& s) const;
  // node i's value, Taylor coefficients and gradient into r (layout in sweep_as); r[0..]
  // of the operands in A, B
  template <bool kGrad, bool kTaylor>
  void sweep_node(const Node& nd, const StateView& s, int nv, const double* A, const double* B,
                  double* r) const;
  // f and its first and second partial derivatives with respect to the operands a, b
  struct Partials {
    double f = 0, fa = 0, fb = 0, faa = 0, fab = 0, fbb = 0;
  };
  static Partials binary_partials(Op op, double a, double b);
  static Partials unary_partials(Op op, double c, double a);

  std::vector<Node> ops_;
  int root_ = -1;  // the node whose value is the expression's
  std::vector<ExprVariable> vars_;
  std::string text_;
};

}  // namespace appell
