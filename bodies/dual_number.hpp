// Dual numbers for forward-mode automatic differentiation: a + Σ_k b_k ε_k with
// ε_j ε_k = 0, N directions at a time.  The rows' derivatives take one direction
// (constraints/row_jet.hpp, Jet = DualNumber<1>), the derivatives of the dynamics eight
// (engine/formulations/recursive/derivatives.cpp).  Eigen matrices hold them, and mix them
// with doubles in sums and products.
//
// The parts are of type T, double by default; a dual of duals, DualNumber<N, DualNumber<K>>,
// carries second derivatives: seeding the outer directions ε with e_i and the inner ones δ
// with e_j, the ε δ part of f is ∂²f/∂x_i∂x_j (the Lagrangian systems' ∂²L/∂q̇², ∂²L/∂q̇∂q,
// engine/lagrangian/lagrangian_terms.cpp).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <type_traits>

namespace appell {

template <int N, typename T = double>
struct DualNumber {
  using Scalar = T;
  T v = T(0.0);
  std::array<T, N> d{};
  DualNumber() = default;
  DualNumber(double x) : v(x) {}  // NOLINT: constants enter as duals
  template <typename U = T, typename = std::enable_if_t<!std::is_same<U, double>::value>>
  DualNumber(const T& x) : v(x) {}  // NOLINT: inner duals enter as constants of the outer
  DualNumber(const T& x, const std::array<T, N>& dx) : v(x), d(dx) {}
};

// the value of a (nested) dual with every derivative dropped, for comparisons
inline double primal(double x) {
  return x;
}
template <int N, typename T>
double primal(const DualNumber<N, T>& a) {
  return primal(a.v);
}

template <int N, typename T>
DualNumber<N, T> operator+(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  DualNumber<N, T> r(a.v + b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] + b.d[k];
  return r;
}
template <int N, typename T>
DualNumber<N, T> operator-(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  DualNumber<N, T> r(a.v - b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] - b.d[k];
  return r;
}
template <int N, typename T>
DualNumber<N, T> operator-(const DualNumber<N, T>& a) {
  DualNumber<N, T> r(-a.v);
  for (int k = 0; k < N; ++k) r.d[k] = -a.d[k];
  return r;
}
template <int N, typename T>
DualNumber<N, T> operator*(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  DualNumber<N, T> r(a.v * b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
  return r;
}
template <int N, typename T>
DualNumber<N, T> operator/(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  const T inv = 1.0 / b.v;
  DualNumber<N, T> r(a.v * inv);
  for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) * inv;
  return r;
}
// with a double on either side (the template operators above do not convert it)
template <int N, typename T>
DualNumber<N, T> operator+(const DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a + DualNumber<N, T>(b);
}
template <int N, typename T>
DualNumber<N, T> operator+(const typename DualNumber<N, T>::Scalar& a, const DualNumber<N, T>& b) {
  return DualNumber<N, T>(a) + b;
}
template <int N, typename T>
DualNumber<N, T> operator-(const DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a - DualNumber<N, T>(b);
}
template <int N, typename T>
DualNumber<N, T> operator-(const typename DualNumber<N, T>::Scalar& a, const DualNumber<N, T>& b) {
  return DualNumber<N, T>(a) - b;
}
template <int N, typename T>
DualNumber<N, T> operator*(const DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a * DualNumber<N, T>(b);
}
template <int N, typename T>
DualNumber<N, T> operator*(const typename DualNumber<N, T>::Scalar& a, const DualNumber<N, T>& b) {
  return DualNumber<N, T>(a) * b;
}
template <int N, typename T>
DualNumber<N, T> operator/(const DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a / DualNumber<N, T>(b);
}
template <int N, typename T>
DualNumber<N, T> operator/(const typename DualNumber<N, T>::Scalar& a, const DualNumber<N, T>& b) {
  return DualNumber<N, T>(a) / b;
}
template <int N, typename T>
DualNumber<N, T>& operator+=(DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  return a = a + b;
}
template <int N, typename T>
DualNumber<N, T>& operator-=(DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  return a = a - b;
}
template <int N, typename T>
DualNumber<N, T>& operator*=(DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  return a = a * b;
}
template <int N, typename T>
DualNumber<N, T>& operator/=(DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  return a = a / b;
}
template <int N, typename T>
DualNumber<N, T>& operator+=(DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a = a + b;
}
template <int N, typename T>
DualNumber<N, T>& operator-=(DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a = a - b;
}
template <int N, typename T>
DualNumber<N, T>& operator*=(DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a = a * b;
}
template <int N, typename T>
DualNumber<N, T>& operator/=(DualNumber<N, T>& a, const typename DualNumber<N, T>::Scalar& b) {
  return a = a / b;
}
template <int N, typename T>
bool operator==(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  return a.v == b.v && a.d == b.d;
}
template <int N, typename T>
bool operator!=(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  return !(a == b);
}
// f(a) for f with value f(a.v) and slope f'(a.v) (both of the parts' type T)
template <int N, typename T>
DualNumber<N, T> chain(const DualNumber<N, T>& a, const T& value, const T& slope) {
  DualNumber<N, T> r(value);
  for (int k = 0; k < N; ++k) r.d[k] = slope * a.d[k];
  return r;
}
// The elementary functions.  Each calls itself on the parts (std:: for double), so
// that nested duals carry their second derivatives.
template <int N, typename T>
DualNumber<N, T> sin(const DualNumber<N, T>& a) {
  using std::cos, std::sin;
  return chain(a, T(sin(a.v)), T(cos(a.v)));
}
template <int N, typename T>
DualNumber<N, T> cos(const DualNumber<N, T>& a) {
  using std::cos, std::sin;
  return chain(a, T(cos(a.v)), T(-sin(a.v)));
}
template <int N, typename T>
DualNumber<N, T> tan(const DualNumber<N, T>& a) {
  using std::tan;
  const T f = tan(a.v);
  return chain(a, f, T(1.0 + f * f));
}
template <int N, typename T>
DualNumber<N, T> sqrt(const DualNumber<N, T>& a) {
  using std::sqrt;
  const T s = sqrt(a.v);
  return chain(a, s, T(0.5 / s));
}
template <int N, typename T>
DualNumber<N, T> asin(const DualNumber<N, T>& a) {
  using std::asin, std::sqrt;
  return chain(a, T(asin(a.v)), T(1.0 / sqrt(1.0 - a.v * a.v)));
}
template <int N, typename T>
DualNumber<N, T> acos(const DualNumber<N, T>& a) {
  using std::acos, std::sqrt;
  return chain(a, T(acos(a.v)), T(-1.0 / sqrt(1.0 - a.v * a.v)));
}
template <int N, typename T>
DualNumber<N, T> atan(const DualNumber<N, T>& a) {
  using std::atan;
  return chain(a, T(atan(a.v)), T(1.0 / (1.0 + a.v * a.v)));
}
template <int N, typename T>
DualNumber<N, T> sinh(const DualNumber<N, T>& a) {
  using std::cosh, std::sinh;
  return chain(a, T(sinh(a.v)), T(cosh(a.v)));
}
template <int N, typename T>
DualNumber<N, T> cosh(const DualNumber<N, T>& a) {
  using std::cosh, std::sinh;
  return chain(a, T(cosh(a.v)), T(sinh(a.v)));
}
template <int N, typename T>
DualNumber<N, T> tanh(const DualNumber<N, T>& a) {
  using std::tanh;
  const T f = tanh(a.v);
  return chain(a, f, T(1.0 - f * f));
}
template <int N, typename T>
DualNumber<N, T> exp(const DualNumber<N, T>& a) {
  using std::exp;
  const T f = exp(a.v);
  return chain(a, f, f);
}
template <int N, typename T>
DualNumber<N, T> log(const DualNumber<N, T>& a) {
  using std::log;
  return chain(a, T(log(a.v)), T(1.0 / a.v));
}
template <int N, typename T>
DualNumber<N, T> abs(const DualNumber<N, T>& a) {
  const double s = primal(a);
  return s > 0 ? a : (s < 0 ? -a : DualNumber<N, T>(0.0));  // slope 0 at 0, as the tape's
}
// a^c for a constant c (negative a allowed)
template <int N, typename T>
DualNumber<N, T> pow(const DualNumber<N, T>& a, double c) {
  using std::pow;
  if (c == 0.0) return DualNumber<N, T>(1.0);
  return chain(a, T(pow(a.v, c)), T(c * pow(a.v, c - 1.0)));
}
// a^b = exp(b log a), a > 0
template <int N, typename T>
DualNumber<N, T> pow(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  return exp(b * log(a));
}
// the angle of (b, a)
template <int N, typename T>
DualNumber<N, T> atan2(const DualNumber<N, T>& a, const DualNumber<N, T>& b) {
  using std::atan2;
  const T r2 = a.v * a.v + b.v * b.v;
  DualNumber<N, T> r(atan2(a.v, b.v));
  for (int k = 0; k < N; ++k) r.d[k] = (b.v * a.d[k] - a.v * b.d[k]) / r2;
  return r;
}

}  // namespace appell

namespace Eigen {
template <int N, typename T>
struct NumTraits<appell::DualNumber<N, T>> : GenericNumTraits<appell::DualNumber<N, T>> {
  using Real = appell::DualNumber<N, T>;
  using NonInteger = appell::DualNumber<N, T>;
  using Nested = appell::DualNumber<N, T>;
  using Literal = appell::DualNumber<N, T>;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = N + 1,
    AddCost = N + 1,
    MulCost = 2 * N + 1
  };
};
// duals and doubles mix in products and sums (a constant body vector times a dual rotation)
template <int N, typename T, typename Op>
struct ScalarBinaryOpTraits<appell::DualNumber<N, T>, double, Op> {
  using ReturnType = appell::DualNumber<N, T>;
};
template <int N, typename T, typename Op>
struct ScalarBinaryOpTraits<double, appell::DualNumber<N, T>, Op> {
  using ReturnType = appell::DualNumber<N, T>;
};
}  // namespace Eigen
