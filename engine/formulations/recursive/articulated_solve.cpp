// Products with M⁻¹ for the analytical derivatives (rnea_derivatives.hpp): the
// articulated-body factorisation of the joint-space mass matrix in world-frame spatial
// quantities (Featherstone, "Rigid Body Dynamics Algorithms", 2008, §7.3, the ABA with
// velocities and gravity left out), so that each right-hand side costs O(n) instead of the
// O(n²) of a dense triangular solve: ∂u̇/∂(q, u) = −M⁻¹ ∂τ/∂(q, u) and M⁻¹ in O(n²) in all.
//
// Tip to base, the articulated inertia IA_i = I_i + Σ_children Ia_c by the recursion's own
// joint step (articulated_step.hpp, R7–R8: U = IA S, D = Sᵀ U + armature, Ia = IA − U D⁻¹
// Uᵀ), with no shift: every IA is about the world origin.  For M x = b, with K columns of b
// at once: tip to base the bias forces p (β_i = b_i − S_iᵀ p_i, p_λ += p_i + U_i D_i⁻¹ β_i,
// R8–R9), then base to tip the accelerations x_i = D_i⁻¹ (β_i − U_iᵀ α_λ), α_i = α_λ + S_i x_i
// (R10–R11).  A fixed joint passes its child's inertia and bias on, and its parent's
// acceleration down, unchanged.
#include "engine/formulations/recursive/articulated_step.hpp"
#include "engine/formulations/recursive/rnea_derivatives.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {
namespace detail {

bool RneaDerivatives::factor() {
  std::vector<Mat6> IA(I_);
  U_.setZero(6, S_.cols());
  dinv_.resize(n_);
  int nd = 0;
  for (int i = 0; i < n_; ++i) dinv_[i] = nd, nd += ncol_[i] * ncol_[i];
  Dinv_.assign(nd, 0.0);
  for (int i = n_ - 1; i >= 0; --i) {
    const int p = parent_[i], o = col_[i];
    Mat6 Ia = IA[i];  // a weld hands its child's inertia on as it is
    bool ok = true;
    dispatch(ncol_[i], [&](auto K) {
      constexpr int k = decltype(K)::value;
      Eigen::Map<Eigen::Matrix<double, k, k>> Dinv(Dinv_.data() + dinv_[i]);
      articulated_step<k>(IA[i], S_.middleCols<k>(o), armature_[i], U_.middleCols<k>(o), Dinv,
                          &Ia);  //                                               (R7, R8)
      ok = Dinv.allFinite() && (Dinv.diagonal().array() > 0).all();
    });
    if (!ok) return false;
    if (p >= 0) IA[p] += Ia;
  }
  return true;
}

void RneaDerivatives::solve(RowMatrix& B) {
  const Eigen::Index ncols = B.cols();
  work_.resize(6 * n_, ncols);
  // whether tree joint i's block holds anything yet (else it is zero)
  std::vector<char> held(n_, 0);
  auto block = [&](int i) { return work_.middleRows(6 * i, 6); };
  // tip to base: β into B's rows, bias forces into the parents' blocks                (R8, R9)
  for (int i = n_ - 1; i >= 0; --i) {
    const int p = parent_[i], o = col_[i];
    if (ncol_[i] == 0) {
      if (p >= 0 && held[i]) {
        if (held[p])
          block(p) += block(i);
        else
          block(p) = block(i);
        held[p] = 1;
      }
      continue;
    }
    dispatch(ncol_[i], [&](auto K) {
      constexpr int k = decltype(K)::value;
      const Eigen::Map<const Eigen::Matrix<double, 6, k>> S(S_.col(o).data()), U(U_.col(o).data());
      const Eigen::Map<const Eigen::Matrix<double, k, k>> Dinv(Dinv_.data() + dinv_[i]);
      auto beta = B.middleRows(o, k);
      if (held[i]) beta.noalias() -= S.transpose() * block(i);
      if (p < 0) return;
      const Eigen::Matrix<double, 6, k> UD = U * Dinv;
      if (held[p]) {
        if (held[i]) block(p) += block(i);
        block(p).noalias() += UD * beta;
      } else {
        block(p).noalias() = UD * beta;
        if (held[i]) block(p) += block(i);
      }
      held[p] = 1;
    });
  }
  // base to tip: x into B's rows, accelerations into the joints' own blocks          (R10, R11)
  std::fill(held.begin(), held.end(), 0);
  for (int i = 0; i < n_; ++i) {
    const int p = parent_[i], o = col_[i];
    const bool from = p >= 0 && held[p];
    if (ncol_[i] == 0) {
      if (from) {
        block(i) = block(p);
        held[i] = 1;
      }
      continue;
    }
    dispatch(ncol_[i], [&](auto K) {
      constexpr int k = decltype(K)::value;
      const Eigen::Map<const Eigen::Matrix<double, 6, k>> S(S_.col(o).data()), U(U_.col(o).data());
      const Eigen::Map<const Eigen::Matrix<double, k, k>> Dinv(Dinv_.data() + dinv_[i]);
      auto x = B.middleRows(o, k);
      if (from) x.noalias() -= U.transpose() * block(p);
      x = (Dinv * x).eval();
      if (from) {
        block(i) = block(p);
        block(i).noalias() += S * x;
      } else {
        block(i).noalias() = S * x;
      }
    });
    held[i] = 1;
  }
}

}  // namespace detail
}  // namespace appell
