// Dual numbers for forward-mode automatic differentiation: a + Σ_k b_k ε_k with
// ε_j ε_k = 0, N directions at a time.  The rows' derivatives take one direction
// (constraints/row_jet.hpp, Jet = DualNumber<1>), the derivatives of the dynamics eight
// (engine/formulations/recursive/derivatives.cpp).  Eigen matrices hold them, and mix them
// with doubles in sums and products.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>

namespace appell {

template <int N>
struct DualNumber {
  double v = 0.0;
  std::array<double, N> d{};
  DualNumber() = default;
  DualNumber(double x) : v(x) {}  // NOLINT: constants enter as duals
  DualNumber(double x, const std::array<double, N>& dx) : v(x), d(dx) {}
};

template <int N>
DualNumber<N> operator+(const DualNumber<N>& a, const DualNumber<N>& b) {
  DualNumber<N> r(a.v + b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] + b.d[k];
  return r;
}
template <int N>
DualNumber<N> operator-(const DualNumber<N>& a, const DualNumber<N>& b) {
  DualNumber<N> r(a.v - b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] - b.d[k];
  return r;
}
template <int N>
DualNumber<N> operator-(const DualNumber<N>& a) {
  DualNumber<N> r(-a.v);
  for (int k = 0; k < N; ++k) r.d[k] = -a.d[k];
  return r;
}
template <int N>
DualNumber<N> operator*(const DualNumber<N>& a, const DualNumber<N>& b) {
  DualNumber<N> r(a.v * b.v);
  for (int k = 0; k < N; ++k) r.d[k] = a.d[k] * b.v + a.v * b.d[k];
  return r;
}
template <int N>
DualNumber<N> operator/(const DualNumber<N>& a, const DualNumber<N>& b) {
  const double inv = 1.0 / b.v;
  DualNumber<N> r(a.v * inv);
  for (int k = 0; k < N; ++k) r.d[k] = (a.d[k] - r.v * b.d[k]) * inv;
  return r;
}
// with a double on either side (the template operators above do not convert it)
template <int N>
DualNumber<N> operator+(const DualNumber<N>& a, double b) {
  return a + DualNumber<N>(b);
}
template <int N>
DualNumber<N> operator+(double a, const DualNumber<N>& b) {
  return DualNumber<N>(a) + b;
}
template <int N>
DualNumber<N> operator-(const DualNumber<N>& a, double b) {
  return a - DualNumber<N>(b);
}
template <int N>
DualNumber<N> operator-(double a, const DualNumber<N>& b) {
  return DualNumber<N>(a) - b;
}
template <int N>
DualNumber<N> operator*(const DualNumber<N>& a, double b) {
  return a * DualNumber<N>(b);
}
template <int N>
DualNumber<N> operator*(double a, const DualNumber<N>& b) {
  return DualNumber<N>(a) * b;
}
template <int N>
DualNumber<N> operator/(const DualNumber<N>& a, double b) {
  return a / DualNumber<N>(b);
}
template <int N>
DualNumber<N> operator/(double a, const DualNumber<N>& b) {
  return DualNumber<N>(a) / b;
}
template <int N>
DualNumber<N>& operator+=(DualNumber<N>& a, const DualNumber<N>& b) {
  return a = a + b;
}
template <int N>
DualNumber<N>& operator-=(DualNumber<N>& a, const DualNumber<N>& b) {
  return a = a - b;
}
template <int N>
DualNumber<N>& operator*=(DualNumber<N>& a, const DualNumber<N>& b) {
  return a = a * b;
}
template <int N>
DualNumber<N>& operator/=(DualNumber<N>& a, const DualNumber<N>& b) {
  return a = a / b;
}
template <int N>
DualNumber<N>& operator+=(DualNumber<N>& a, double b) {
  return a = a + b;
}
template <int N>
DualNumber<N>& operator-=(DualNumber<N>& a, double b) {
  return a = a - b;
}
template <int N>
DualNumber<N>& operator*=(DualNumber<N>& a, double b) {
  return a = a * b;
}
template <int N>
DualNumber<N>& operator/=(DualNumber<N>& a, double b) {
  return a = a / b;
}
template <int N>
bool operator==(const DualNumber<N>& a, const DualNumber<N>& b) {
  return a.v == b.v && a.d == b.d;
}
template <int N>
bool operator!=(const DualNumber<N>& a, const DualNumber<N>& b) {
  return !(a == b);
}
// f(a) for f with value f(a.v) and slope f'(a.v)
template <int N>
DualNumber<N> chain(const DualNumber<N>& a, double value, double slope) {
  DualNumber<N> r(value);
  for (int k = 0; k < N; ++k) r.d[k] = slope * a.d[k];
  return r;
}
template <int N>
DualNumber<N> sin(const DualNumber<N>& a) {
  return chain(a, std::sin(a.v), std::cos(a.v));
}
template <int N>
DualNumber<N> cos(const DualNumber<N>& a) {
  return chain(a, std::cos(a.v), -std::sin(a.v));
}
template <int N>
DualNumber<N> sqrt(const DualNumber<N>& a) {
  const double s = std::sqrt(a.v);
  return chain(a, s, 0.5 / s);
}

}  // namespace appell

namespace Eigen {
template <int N>
struct NumTraits<appell::DualNumber<N>> : GenericNumTraits<appell::DualNumber<N>> {
  using Real = appell::DualNumber<N>;
  using NonInteger = appell::DualNumber<N>;
  using Nested = appell::DualNumber<N>;
  using Literal = appell::DualNumber<N>;
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
template <int N, typename Op>
struct ScalarBinaryOpTraits<appell::DualNumber<N>, double, Op> {
  using ReturnType = appell::DualNumber<N>;
};
template <int N, typename Op>
struct ScalarBinaryOpTraits<double, appell::DualNumber<N>, Op> {
  using ReturnType = appell::DualNumber<N>;
};
}  // namespace Eigen
