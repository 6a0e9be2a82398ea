// One joint's step of the articulated-body factor, for the recursion's pass 2
// (articulated_TipToBase.cpp, IA at each body's centre of mass), whose factor every product
// with H⁻¹ then reads (the recursion's sweeps, the Delassus operator's responses, the
// analytical derivatives' articulated_solve.cpp).
// Featherstone, "Rigid Body Dynamics Algorithms", 2008 (RBDA), Table 7.1, in the numbering
// of docs/recursive.md:
//   U = IA S                                                                         (R7)
//   D = Sᵀ U + a 1  (a: the joint's armature, the rotors' inertia on M's diagonal)
//   Ia = IA − U D⁻¹ Uᵀ, the inertia the parent sees (before the shift to its frame)   (R8)
// The step needs IA and S in one frame about one point; the shift to the parent is the
// caller's (R5).
// Internal to engine/formulations/recursive/.
#pragma once

#include <Eigen/Core>
#include <Eigen/LU>
#include <cmath>

#include "appell/spatial.hpp"

namespace appell {

// The inverse of a symmetric positive definite K × K matrix (K of 5 or 6: a free joint's
// D) through its Cholesky factor D = L Lᵀ, D⁻¹ = L⁻ᵀ L⁻¹, with fixed-size loops (Eigen's
// solve against the identity runs its blocked triangular solver, sized at run time: a
// tenth of a one-body step)
template <int K>
inline Eigen::Matrix<double, K, K> spd_inverse(const Eigen::Matrix<double, K, K>& D) {
  Eigen::Matrix<double, K, K> L = Eigen::Matrix<double, K, K>::Zero();
  for (int j = 0; j < K; ++j) {
    double d = D(j, j);
    for (int k = 0; k < j; ++k) d -= L(j, k) * L(j, k);
    L(j, j) = std::sqrt(d);
    for (int i = j + 1; i < K; ++i) {
      double v = D(i, j);
      for (int k = 0; k < j; ++k) v -= L(i, k) * L(j, k);
      L(i, j) = v / L(j, j);
    }
  }
  Eigen::Matrix<double, K, K> Li = Eigen::Matrix<double, K, K>::Zero();  // L⁻¹
  for (int j = 0; j < K; ++j) {
    Li(j, j) = 1.0 / L(j, j);
    for (int i = j + 1; i < K; ++i) {
      double v = 0.0;
      for (int k = j; k < i; ++k) v -= L(i, k) * Li(k, j);
      Li(i, j) = v / L(i, i);
    }
  }
  return Li.transpose() * Li;
}

// (R7, R8) of a joint with K quasi-velocities: U and D⁻¹ into the caller's blocks (Eigen
// maps or matrices, 6 × K and K × K), and Ia when it is asked for (a root's goes nowhere).
// O(K) 6 × 6 products.
template <int K, class SBlock, class UBlock, class DBlock>
inline void articulated_step(const Mat6& IA, const SBlock& S, double armature, UBlock&& U,
                             DBlock&& Dinv, Mat6* Ia) {
  const Eigen::Matrix<double, 6, K> IS = IA * S;  // (R7)
  Eigen::Matrix<double, K, K> D = S.transpose() * IS;
  D.diagonal().array() += armature;
  Eigen::Matrix<double, K, K> Di;
  if constexpr (K <= 4) {
    Di = D.inverse();
  } else {
    Di = spd_inverse<K>(D);
  }
  U = IS;
  Dinv = Di;
  if (Ia) Ia->noalias() = IA - IS * Di * IS.transpose();  //                         (R8)
}

}  // namespace appell
