// The Gibbs–Appell equations of a regular Lagrangian in the user's quasi-velocities.
// Ref: [L96] eqs. (5.1), (5.4); [UK98] eqs. (13), (35)–(37).
//
// The Gibbs function of L [L96 (5.1), in natural coordinates]
//   G_L = ½ g_ij a^i a^j + (∂²L/∂v^i∂q^j v^j + ∂²L/∂v^i∂t − ∂L/∂q^i) a^i + (terms free of a)
// restricted to the accelerations of the constraint set, a = q̈ = Y ν̇ + Z (quasi_velocity_map.cpp
// (Q3)), is a quadratic in ν̇:
//   G_L|D = ½ ν̇ᵀ (Yᵀ M Y) ν̇ + ν̇ᵀ Yᵀ (M Z − f + Q) + const
// (the bracket of (5.1) is Q − f by (T1)), and the constrained Gibbs–Appell equations
// ∂(G_L|D)/∂ν̇^a = B_a^i Q_i [L96 (5.4), B = Y, F = Q] read
//   H ν̇ = F_ν,   H = Yᵀ M Y,   F_ν = Yᵀ (f − M Z)                                 (G1)
// with f of lagrangian_terms.cpp (T1).  H is the Gibbs function's Hessian in ν̇ (the mass
// matrix in the user's ν); it is positive definite when M is and Y has full column rank,
// so (G1) is solved by Cholesky.  Then q̈ = Y ν̇ + Z.  Cost: O(n² k + k³) after the terms.
#include <stdexcept>
#include <string>

#include "appell/lagrangian.hpp"
#include "engine/lagrangian/sweep.hpp"

namespace appell {

LagrangianStatus gibbs_appell_nu(const LagrangianSystem& s, LagrangianData& d) {
  if (d.Y.cols() != s.dof() || d.M.rows() != s.n())
    throw std::invalid_argument("gibbs_appell_nu(): the data holds " + std::to_string(d.Y.cols()) +
                                " quasi-velocities, expected " + std::to_string(s.dof()) +
                                " (a LagrangianData of another system)");
  return gibbs_appell_nu(d);
}

LagrangianStatus gibbs_appell_nu(LagrangianData& d) {
  LagrangianData::Buffers& b = *d.buffers;
  // (G1): the Hessian and the forces in ν
  b.MY.noalias() = d.M * d.Y;
  d.H.noalias() = d.Y.transpose() * b.MY;
  b.tmp = d.f;
  b.tmp.noalias() -= d.M * d.Z;
  d.F_nu.noalias() = d.Y.transpose() * b.tmp;
  b.H_llt.compute(d.H);
  if (b.H_llt.info() != Eigen::Success) {
    d.message = "the Gibbs function's Hessian Yᵀ M Y is not positive definite";
    return LagrangianStatus::NotRegular;
  }
  d.nudot = b.H_llt.solve(d.F_nu);
  // the accelerations, (Q3)
  d.qdd = d.Z;
  d.qdd.noalias() += d.Y * d.nudot;
  return LagrangianStatus::Ok;
}

}  // namespace appell
