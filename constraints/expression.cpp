#include "appell/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "appell/joint_state.hpp"
#include "constraints/expression_scalar.hpp"

namespace appell {

// ---- evaluation ---------------------------------------------------------------------------

// (expression variables never name the world, so the state array is indexed directly)
double Expression::variable_value(const ExprVariable& v, const StateView& s) const {
  switch (v.kind) {
    case ExprVariable::Kind::Time:
      return s.t;
    case ExprVariable::Kind::Position:
      return s.bodies[v.body].x(v.axis);
    case ExprVariable::Kind::Velocity:
      return s.bodies[v.body].v(v.axis);
    case ExprVariable::Kind::AngularVelocity:
      return s.bodies[v.body].w(v.axis);
    case ExprVariable::Kind::Orientation: {
      const Quat o(s.bodies[v.body].Q);
      const double sign = o.w() < 0 ? -1.0 : 1.0;  // the representative with w ≥ 0
      return sign * (v.axis == 0 ? o.w() : o.vec()(v.axis - 1));
    }
    case ExprVariable::Kind::JointQ:
    case ExprVariable::Kind::JointU: {
      double q[8], u[6];
      joint_coordinates(*v.joint, s, q, u);
      return v.kind == ExprVariable::Kind::JointQ ? q[v.axis] : u[v.axis];
    }
    case ExprVariable::Kind::Coordinate:  // Lagrangian systems evaluate by value_as()
    case ExprVariable::Kind::Rate:
      return std::nan("");
  }
  return 0.0;
}

int Expression::sweep(const StateView& s, bool grad, bool taylor, bool find_bad, double* out_grad,
                      Jet* out) const {
  // a constant (its operations folded at parsing) is its value, with no workspace (a
  // servo's fixed target, at every evaluation of every step)
  if (!find_bad && root_ >= 0 && ops_[root_].op == Op::Const) {
    if (out) *out = Jet{ops_[root_].c, 0.0, 0.0};
    if (grad && out_grad) std::fill(out_grad, out_grad + vars_.size(), 0.0);
    return -1;
  }
  // one instantiation per mode, so the inner loops carry no mode tests
  if (grad && taylor) return sweep_as<true, true>(s, find_bad, out_grad, out);
  if (grad) return sweep_as<true, false>(s, find_bad, out_grad, out);
  if (taylor) return sweep_as<false, true>(s, find_bad, out_grad, out);
  return sweep_as<false, false>(s, find_bad, out_grad, out);
}

// f, f_a, f_b, f_aa, f_ab, f_bb of a binary operation at (a, b)
Expression::Partials Expression::binary_partials(Op op, double a, double b) {
  Partials p;
  switch (op) {
    case Op::Mul:
      p.f = a * b, p.fa = b, p.fb = a, p.fab = 1.0;
      break;
    case Op::Div:
      p.f = a / b, p.fa = 1.0 / b, p.fb = -p.f / b, p.fab = -1.0 / (b * b),
      p.fbb = 2.0 * p.f / (b * b);
      break;
    case Op::Pow: {  // a^b = exp(b log a), a > 0
      const double la = std::log(a);
      p.f = std::pow(a, b);
      p.fa = b * std::pow(a, b - 1.0);
      p.fb = p.f * la;
      p.faa = b * (b - 1.0) * std::pow(a, b - 2.0);
      p.fab = std::pow(a, b - 1.0) * (1.0 + b * la);
      p.fbb = p.f * la * la;
      break;
    }
    case Op::Atan2: {  // atan2(a, b) = angle of (b, a)
      const double r2 = a * a + b * b, r4 = r2 * r2;
      p.f = std::atan2(a, b);
      p.fa = b / r2, p.fb = -a / r2;
      p.faa = -2.0 * a * b / r4, p.fbb = 2.0 * a * b / r4, p.fab = (a * a - b * b) / r4;
      break;
    }
    case Op::Min:
    case Op::Max: {
      const bool first = op == Op::Min ? a <= b : a >= b;
      p.f = first ? a : b;
      p.fa = first ? 1.0 : 0.0, p.fb = first ? 0.0 : 1.0;
      break;
    }
    default:
      break;
  }
  return p;
}

// f, f_a, f_aa of a unary operation at a (c: the constant exponent of PowConst)
Expression::Partials Expression::unary_partials(Op op, double c, double a) {
  Partials p;
  double& f = p.f;
  double& fa = p.fa;
  double& faa = p.faa;
  switch (op) {
    case Op::PowConst:
      if (c == 2.0) {  // the common case, without pow()
        f = a * a, fa = 2.0 * a, faa = 2.0;
      } else if (c == 1.0) {
        f = a, fa = 1.0;
      } else if (a != 0.0 && c != 0.0) {  // one pow(): a^(c−2)
        const double q = std::pow(a, c - 2.0);
        faa = c * (c - 1.0) * q, fa = c * q * a, f = q * a * a;
      } else {
        f = std::pow(a, c);
        fa = c == 0.0 ? 0.0 : c * std::pow(a, c - 1.0);
        faa = c == 0.0 ? 0.0 : c * (c - 1.0) * std::pow(a, c - 2.0);
      }
      break;
    case Op::Sin:
      f = std::sin(a), fa = std::cos(a), faa = -f;
      break;
    case Op::Cos:
      f = std::cos(a), fa = -std::sin(a), faa = -f;
      break;
    case Op::Tan:
      f = std::tan(a), fa = 1.0 + f * f, faa = 2.0 * f * fa;
      break;
    case Op::Asin: {
      const double q = 1.0 - a * a;
      f = std::asin(a), fa = 1.0 / std::sqrt(q), faa = a / (q * std::sqrt(q));
      break;
    }
    case Op::Acos: {
      const double q = 1.0 - a * a;
      f = std::acos(a), fa = -1.0 / std::sqrt(q), faa = -a / (q * std::sqrt(q));
      break;
    }
    case Op::Atan: {
      const double q = 1.0 + a * a;
      f = std::atan(a), fa = 1.0 / q, faa = -2.0 * a / (q * q);
      break;
    }
    case Op::Sinh:
      f = std::sinh(a), fa = std::cosh(a), faa = f;
      break;
    case Op::Cosh:
      f = std::cosh(a), fa = std::sinh(a), faa = f;
      break;
    case Op::Tanh:
      f = std::tanh(a), fa = 1.0 - f * f, faa = -2.0 * f * fa;
      break;
    case Op::Exp:
      f = fa = faa = std::exp(a);
      break;
    case Op::Log:
      f = std::log(a), fa = 1.0 / a, faa = -1.0 / (a * a);
      break;
    case Op::Sqrt:
      f = std::sqrt(a), fa = 0.5 / f, faa = -0.25 / (f * a);
      break;
    case Op::Abs:
      f = std::abs(a), fa = a > 0 ? 1.0 : (a < 0 ? -1.0 : 0.0);
      break;
    default:
      break;
  }
  return p;
}

template <bool grad, bool taylor>
void Expression::sweep_node(const Node& nd, const StateView& s, int nv, const double* A,
                            const double* B, double* r) const {
  switch (nd.op) {
    case Op::Const:
      r[0] = nd.c;
      r[1] = r[2] = 0.0;
      if (grad) std::fill(r + 3, r + 3 + nv, 0.0);
      return;
    case Op::Var: {
      const ExprVariable& v = vars_[nd.var];
      r[0] = variable_value(v, s);
      // the Taylor direction: x ↦ x + v̄ s, t ↦ t + s; velocities fixed
      r[1] = v.kind == ExprVariable::Kind::Time       ? 1.0
             : v.kind == ExprVariable::Kind::Position ? s.bodies[v.body].v(v.axis)
                                                      : 0.0;
      r[2] = 0.0;
      if (grad) {
        std::fill(r + 3, r + 3 + nv, 0.0);
        r[3 + nd.var] = 1.0;
      }
      return;
    }
    // the linear operations, coefficient by coefficient
    case Op::Add:
      r[0] = A[0] + B[0];
      if (taylor) r[1] = A[1] + B[1], r[2] = A[2] + B[2];
      if (grad)
        for (int k = 0; k < nv; ++k) r[3 + k] = A[3 + k] + B[3 + k];
      return;
    case Op::Sub:
      r[0] = A[0] - B[0];
      if (taylor) r[1] = A[1] - B[1], r[2] = A[2] - B[2];
      if (grad)
        for (int k = 0; k < nv; ++k) r[3 + k] = A[3 + k] - B[3 + k];
      return;
    case Op::Neg:
      r[0] = -A[0];
      if (taylor) r[1] = -A[1], r[2] = -A[2];
      if (grad)
        for (int k = 0; k < nv; ++k) r[3 + k] = -A[3 + k];
      return;
    default:
      break;
  }
  // the others by the chain rules (E1)–(E3)
  if (B) {
    const Partials p = binary_partials(nd.op, A[0], B[0]);
    r[0] = p.f;
    if (taylor) {
      r[1] = p.fa * A[1] + p.fb * B[1];
      r[2] = p.fa * A[2] + p.fb * B[2] +
             0.5 * (p.faa * A[1] * A[1] + 2.0 * p.fab * A[1] * B[1] + p.fbb * B[1] * B[1]);
    }
    if (grad)
      for (int k = 0; k < nv; ++k) r[3 + k] = p.fa * A[3 + k] + p.fb * B[3 + k];
  } else {
    const Partials p = unary_partials(nd.op, nd.c, A[0]);
    r[0] = p.f;
    if (taylor) {
      r[1] = p.fa * A[1];
      r[2] = p.fa * A[2] + 0.5 * p.faa * A[1] * A[1];
    }
    if (grad)
      for (int k = 0; k < nv; ++k) r[3 + k] = p.fa * A[3 + k];
  }
}

template <bool grad, bool taylor>
int Expression::sweep_as(const StateView& s, bool find_bad, double* out_grad, Jet* out) const {
  const int n = size();
  const int nv = static_cast<int>(vars_.size());
  const int stride = 3 + (grad ? nv : 0);
  // the caller's workspace (Data::scratch) when it is large enough, else our own
  const size_t need = static_cast<size_t>(n) * stride;
  std::vector<double> own;
  double* w = s.scratch;
  if (!w || s.scratch_size < need) {
    own.resize(need);
    w = own.data();
  }
  // node i: w[i*stride] value, +1 f₁, +2 f₂, +3.. gradient
  for (int i = 0; i < n; ++i) {
    const Node& nd = ops_[i];
    double* r = w + static_cast<size_t>(i) * stride;
    const double* A = nd.a >= 0 ? w + static_cast<size_t>(nd.a) * stride : nullptr;
    const double* B = nd.b >= 0 ? w + static_cast<size_t>(nd.b) * stride : nullptr;
    sweep_node<grad, taylor>(nd, s, nv, A, B, r);
    if (find_bad && nd.op != Op::Const && nd.op != Op::Var) {
      bool ok = std::isfinite(r[0]) && (!taylor || (std::isfinite(r[1]) && std::isfinite(r[2])));
      if (grad)
        for (int k = 0; k < nv; ++k) ok = ok && std::isfinite(r[3 + k]);
      if (!ok) return i;
    }
  }
  // the root's value, coefficients and gradient
  const double* root = w + static_cast<size_t>(root_) * stride;
  if (out) {
    out->value = root[0];
    out->d1 = taylor ? root[1] : 0.0;
    out->d2 = taylor ? root[2] : 0.0;
  }
  if (grad && out_grad) std::copy(root + 3, root + 3 + nv, out_grad);
  return -1;
}

double Expression::value(const StateView& s) const {
  Jet j;
  sweep(s, false, false, false, nullptr, &j);
  return j.value;
}

Expression::Jet Expression::evaluate(const StateView& s, double* gradient, bool taylor) const {
  Jet j;
  sweep(s, gradient != nullptr, taylor, false, gradient, &j);
  return j;
}

void Expression::check_finite(const StateView& s, const std::string& when, bool derivatives) const {
  const int bad = sweep(s, derivatives, derivatives, true, nullptr, nullptr);
  if (bad < 0) return;
  const Node& nd = ops_[bad];
  std::string what;
  switch (nd.op) {
    case Op::Div:
      what = "division";
      break;
    case Op::Pow:
    case Op::PowConst:
      what = "power";
      break;
    case Op::Var:
      what = "variable";
      break;
    default: {
      // the function name as written
      size_t i = static_cast<size_t>(nd.column) - 1, j = i;
      while (j < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[j])) || text_[j] == '_'))
        ++j;
      what = j > i ? "'" + text_.substr(i, j - i) + "'" : "operation";
    }
  }
  if (nd.op == Op::Div) {
    // the denominator's value: evaluate the sub-tape that ends there (error path only)
    Expression sub;
    sub.ops_.assign(ops_.begin(), ops_.begin() + nd.b + 1);
    sub.root_ = nd.b;
    sub.vars_ = vars_;
    if (sub.value(s) == 0.0) throw ExpressionError(nd.column, "division by zero " + when);
  }
  throw ExpressionError(nd.column, what + " is not finite (or not differentiable) " + when);
}

int Expression::first_nonfinite_column(const double* x, double* work) const {
  value_as(x, work);
  for (int i = 0; i < size(); ++i)
    if (!std::isfinite(work[i])) return ops_[i].column;
  return 0;
}

}  // namespace appell
