// Forward-mode automatic differentiation of the recursive Newton–Euler passes
// (derivatives_ad.cpp): the columns of τ along the tangent directions of q, u and u̇, for
// trees with extra rows and for the tests, which hold the analytical derivatives
// (rnea_derivatives.cpp) against them.  Private to the library (derivatives.cpp).
#pragma once

#include <Eigen/Core>

#include "appell/model.hpp"

namespace appell {
namespace derivative_detail {

// With the extra rows (loops, constraints: tree.extra) in the passes: τ becomes ID − Aᵀλ.
struct RowColumns {
  Eigen::VectorXd lambda;   // in: λ on the extra rows                 (m)
  Eigen::VectorXd r, pi;    // out: A u̇ − b and π at the point         (m)
  Eigen::MatrixXd dr, dpi;  // out: their columns [j_begin, j_end)      (m × 3 nu)
};

// Columns [j_begin, j_end) of the 3 nu directions (q along the tangent, u, u̇) of the
// recursion's τ (without the joint-space forces, with the armature) at (s, udot), into cols
// (nu × 3 nu), and τ itself into tau_out.  u̇ enters the passes linearly, so its columns
// are M.  With `rows`, the extra rows join the passes and rows gets the rows' residuals and
// their columns.  Eight directions a pass.
void ad_columns(const Model& m, const State& s, const Eigen::VectorXd& udot, int j_begin, int j_end,
                Eigen::VectorXd& tau_out, Eigen::MatrixXd& cols, RowColumns* rows = nullptr);

}  // namespace derivative_detail
}  // namespace appell
