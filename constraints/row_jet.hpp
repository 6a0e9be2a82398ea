// Rows with their exact directional derivatives (Constraint::evaluate_tangent).
//
// The row kernels (constraints/kernels.hpp) and the built-in constraints are templates over
// the state view they read and the span they write.  With the views of this file they run
// on jets: numbers a + b ε with ε² = 0, whose ε parts carry the derivative along one
// tangent of the state (forward-mode automatic differentiation).  The same code thus gives
// the rows in doubles and, here, their derivatives: no formula is written twice.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "appell/constraint.hpp"
#include "bodies/dual_number.hpp"

namespace appell {

// a value and its derivative along one direction
using Jet = DualNumber<1>;

// the value of a scalar, a vector or a matrix (itself for doubles)
inline double value(double x) {
  return x;
}
inline double value(const Jet& x) {
  return x.v;
}
template <int R, int C>
const Eigen::Matrix<double, R, C>& value(const Eigen::Matrix<double, R, C>& m) {
  return m;
}
template <int R, int C>
Eigen::Matrix<double, R, C> value(const Eigen::Matrix<Jet, R, C>& m) {
  Eigen::Matrix<double, R, C> out;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) out(i, j) = m(i, j).v;
  return out;
}

// the derivative parts of a jet matrix
template <int R, int C>
Eigen::Matrix<double, R, C> slope(const Eigen::Matrix<Jet, R, C>& m) {
  Eigen::Matrix<double, R, C> out;
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) out(i, j) = m(i, j).d[0];
  return out;
}

}  // namespace appell

namespace appell {

using Vec3J = Eigen::Matrix<Jet, 3, 1>;
using Mat3J = Eigen::Matrix<Jet, 3, 3>;

// The scalar a state view holds: double for StateView, Jet for JetStateView.
template <class View>
using ScalarOf = typename std::decay_t<decltype(std::declval<const View&>().body(0).x)>::Scalar;

// BodyState in jets
struct JetBodyState {
  Vec3J x = Vec3J::Zero();
  Mat3J Q = Mat3J::Identity();
  Vec3J v = Vec3J::Zero();
  Vec3J w = Vec3J::Zero();
  Vec3J offset(const Vec3& X) const { return Q * X; }
};

// The state `in` moving along `tangent` (each body's dx̄, dQ, dv̄, dω; the world is fixed).
struct JetStateView {
  const StateView* in = nullptr;
  const StateView* tangent = nullptr;
  double t = 0.0;
  JetBodyState body(int b) const {
    JetBodyState s;
    if (b == kWorld) return s;
    const BodyState &a = in->body(b), &da = tangent->body(b);
    for (int i = 0; i < 3; ++i) {
      s.x(i) = Jet(a.x(i), {da.x(i)});
      s.v(i) = Jet(a.v(i), {da.v(i)});
      s.w(i) = Jet(a.w(i), {da.w(i)});
      for (int j = 0; j < 3; ++j) s.Q(i, j) = Jet(a.Q(i, j), {da.Q(i, j)});
    }
    return s;
  }
};

// JointMotion in jets (JointType::motion_tangent)
struct JetMotion {
  Mat3J R = Mat3J::Identity();
  Vec3J d = Vec3J::Zero();
  Eigen::Matrix<Jet, 6, 6> S = Eigen::Matrix<Jet, 6, 6>::Zero();
  Eigen::Matrix<Jet, 6, 1> c = Eigen::Matrix<Jet, 6, 1>::Zero();
};

// SpatialForce and RowSpan in jets: the same spatial vocabulary over Jet
using JetRowTerm = SpatialForceT<Jet>;
using JetRowSpan = RowSpanT<Jet>;

// Runs rows(view, span) — a generic callable the constraint evaluates its rows with — on
// jets along `tangent`: the rows into `out` (as evaluate() writes them) and their
// derivatives into `dout` (lin, ang, b and the velocity residual π; the position residual
// is not differentiated and dout.position is left as it is).  Returns true.
template <class Rows>
bool rows_along(const StateView& in, const StateView& tangent, int nrows, const RowSpan& out,
                const RowSpan& dout, Rows&& rows) {
  std::vector<JetRowTerm> terms(static_cast<size_t>(nrows) * out.nbodies);
  std::vector<Jet> b(nrows), velocity(nrows), position(nrows);
  const JetRowSpan span{terms.data(), b.data(), velocity.data(), position.data(), out.nbodies};
  rows(JetStateView{&in, &tangent, in.t}, span);
  for (int i = 0; i < nrows; ++i) {
    for (int j = 0; j < out.nbodies; ++j) {
      const JetRowTerm& t = span.term(i, j);
      for (int k = 0; k < 3; ++k) {
        out.term(i, j).force(k) = t.force(k).v;
        out.term(i, j).moment(k) = t.moment(k).v;
        dout.term(i, j).force(k) = t.force(k).d[0];
        dout.term(i, j).moment(k) = t.moment(k).d[0];
      }
    }
    out.b[i] = b[i].v;
    out.velocity[i] = velocity[i].v;
    out.position[i] = position[i].v;
    dout.b[i] = b[i].d[0];
    dout.velocity[i] = velocity[i].d[0];
  }
  return true;
}

}  // namespace appell
