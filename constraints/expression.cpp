#include "appell/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

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
  }
  return 0.0;
}

int Expression::sweep(const StateView& s, bool grad, bool taylor, bool find_bad, double* out_grad,
                      Jet* out) const {
  // one instantiation per mode, so the inner loops carry no mode tests
  if (grad && taylor) return sweep_as<true, true>(s, find_bad, out_grad, out);
  if (grad) return sweep_as<true, false>(s, find_bad, out_grad, out);
  if (taylor) return sweep_as<false, true>(s, find_bad, out_grad, out);
  return sweep_as<false, false>(s, find_bad, out_grad, out);
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
    // partial derivatives of this node's function with respect to its operands
    double f = 0, fa = 0, fb = 0, faa = 0, fab = 0, fbb = 0;
    bool binary = false;
    switch (nd.op) {
      case Op::Const:
        r[0] = nd.c;
        r[1] = r[2] = 0.0;
        if (grad) std::fill(r + 3, r + 3 + nv, 0.0);
        continue;
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
        continue;
      }
      case Op::Add: {
        r[0] = A[0] + B[0];
        if (taylor) r[1] = A[1] + B[1], r[2] = A[2] + B[2];
        if (grad)
          for (int k = 0; k < nv; ++k) r[3 + k] = A[3 + k] + B[3 + k];
        if (find_bad) break;
        continue;
      }
      case Op::Sub: {
        r[0] = A[0] - B[0];
        if (taylor) r[1] = A[1] - B[1], r[2] = A[2] - B[2];
        if (grad)
          for (int k = 0; k < nv; ++k) r[3 + k] = A[3 + k] - B[3 + k];
        if (find_bad) break;
        continue;
      }
      case Op::Neg: {
        r[0] = -A[0];
        if (taylor) r[1] = -A[1], r[2] = -A[2];
        if (grad)
          for (int k = 0; k < nv; ++k) r[3 + k] = -A[3 + k];
        if (find_bad) break;
        continue;
      }
      case Op::Mul:
        binary = true;
        f = A[0] * B[0], fa = B[0], fb = A[0], fab = 1.0;
        break;
      case Op::Div:
        binary = true;
        f = A[0] / B[0], fa = 1.0 / B[0], fb = -f / B[0], fab = -1.0 / (B[0] * B[0]),
        fbb = 2.0 * f / (B[0] * B[0]);
        break;
      case Op::Pow: {  // a^b = exp(b log a), a > 0
        binary = true;
        const double la = std::log(A[0]), b = B[0];
        f = std::pow(A[0], b);
        fa = b * std::pow(A[0], b - 1.0);
        fb = f * la;
        faa = b * (b - 1.0) * std::pow(A[0], b - 2.0);
        fab = std::pow(A[0], b - 1.0) * (1.0 + b * la);
        fbb = f * la * la;
        break;
      }
      case Op::Atan2: {  // atan2(a, b) = angle of (b, a)
        binary = true;
        const double y = A[0], x = B[0], r2 = x * x + y * y, r4 = r2 * r2;
        f = std::atan2(y, x);
        fa = x / r2, fb = -y / r2;
        faa = -2.0 * x * y / r4, fbb = 2.0 * x * y / r4, fab = (y * y - x * x) / r4;
        break;
      }
      case Op::Min:
      case Op::Max: {
        binary = true;
        const bool first = nd.op == Op::Min ? A[0] <= B[0] : A[0] >= B[0];
        f = first ? A[0] : B[0];
        fa = first ? 1.0 : 0.0, fb = first ? 0.0 : 1.0;
        break;
      }
      default: {
        const double a = A[0];
        switch (nd.op) {
          case Op::PowConst: {
            const double p = nd.c;
            if (p == 2.0) {  // the common case, without pow()
              f = a * a, fa = 2.0 * a, faa = 2.0;
            } else if (p == 1.0) {
              f = a, fa = 1.0;
            } else if (a != 0.0 && p != 0.0) {  // one pow(): a^(p−2)
              const double q = std::pow(a, p - 2.0);
              faa = p * (p - 1.0) * q, fa = p * q * a, f = q * a * a;
            } else {
              f = std::pow(a, p);
              fa = p == 0.0 ? 0.0 : p * std::pow(a, p - 1.0);
              faa = p == 0.0 ? 0.0 : p * (p - 1.0) * std::pow(a, p - 2.0);
            }
            break;
          }
          case Op::Sin:
            f = std::sin(a), fa = std::cos(a), faa = -f;
            break;
          case Op::Cos:
            f = std::cos(a), fa = -std::sin(a), faa = -f;
            break;
          case Op::Tan: {
            f = std::tan(a);
            fa = 1.0 + f * f, faa = 2.0 * f * fa;
            break;
          }
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
          case Op::Tanh: {
            f = std::tanh(a);
            fa = 1.0 - f * f, faa = -2.0 * f * fa;
            break;
          }
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
      }
    }
    if (nd.op != Op::Add && nd.op != Op::Sub && nd.op != Op::Neg) {
      // the chain rules (E1)–(E3)
      r[0] = f;
      if (binary) {
        if (taylor) {
          r[1] = fa * A[1] + fb * B[1];
          r[2] = fa * A[2] + fb * B[2] +
                 0.5 * (faa * A[1] * A[1] + 2.0 * fab * A[1] * B[1] + fbb * B[1] * B[1]);
        }
        if (grad)
          for (int k = 0; k < nv; ++k) r[3 + k] = fa * A[3 + k] + fb * B[3 + k];
      } else {
        if (taylor) {
          r[1] = fa * A[1];
          r[2] = fa * A[2] + 0.5 * faa * A[1] * A[1];
        }
        if (grad)
          for (int k = 0; k < nv; ++k) r[3 + k] = fa * A[3 + k];
      }
    }
    if (find_bad) {
      bool ok = std::isfinite(r[0]) && (!taylor || (std::isfinite(r[1]) && std::isfinite(r[2])));
      if (grad)
        for (int k = 0; k < nv; ++k) ok = ok && std::isfinite(r[3 + k]);
      if (!ok) return i;
    }
  }
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
  sweep(s, true, taylor, false, gradient, &j);
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

}  // namespace appell
