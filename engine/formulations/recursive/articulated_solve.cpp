// Products with M⁻¹ for the analytical derivatives (rnea_derivatives.hpp): the
// articulated-body factorisation of the joint-space mass matrix in world-frame spatial
// quantities (Featherstone, "Rigid Body Dynamics Algorithms", 2008, §7.3, the ABA with
// velocities and gravity left out), so that each right-hand side costs O(n) instead of the
// O(n²) of a dense triangular solve: ∂u̇/∂(q, u) = −M⁻¹ ∂τ/∂(q, u) and M⁻¹ in O(n²) in all.
//
// Tip to base, the articulated inertia IA_i = I_i + Σ_children (IA_c − U_c U_cᵀ / D_c) with
// U = IA S, D = S·U + armature.  For M x = b: tip to base the bias forces p (p_λ += p_i +
// U_i β_i / D_i with β_i = b_i − S_i·p_i), then base to tip the accelerations
// x_i = (β_i − U_i·α_λ) / D_i, α_i = α_λ + S_i x_i.  A fixed joint passes its child's
// inertia and bias on, and its parent's acceleration down, unchanged.
#include "engine/formulations/recursive/rnea_derivatives.hpp"

namespace appell {
namespace detail {

bool RneaDerivatives::factor() {
  std::vector<Mat6> IA(I_);
  U_.assign(n_, Vec6::Zero());
  D_.assign(n_, 0.0);
  for (int i = n_ - 1; i >= 0; --i) {
    if (col_[i] >= 0) {
      U_[i] = IA[i] * S_[i];
      D_[i] = S_[i].dot(U_[i]) + armature_[i];
      if (!(D_[i] > 0)) return false;
      IA[i] -= U_[i] * U_[i].transpose() / D_[i];
    }
    if (parent_[i] >= 0) IA[parent_[i]] += IA[i];
  }
  return true;
}

void RneaDerivatives::solve(RowMatrix& B) {
  const Eigen::Index K = B.cols();
  work_.resize(6 * n_, K);
  // whether tree joint i's block holds anything yet (else it is zero)
  std::vector<char> held(n_, 0);
  auto block = [&](int i) { return work_.middleRows(6 * i, 6); };
  // tip to base: β into B's rows, bias forces into the parents' blocks
  for (int i = n_ - 1; i >= 0; --i) {
    const int p = parent_[i], c = col_[i];
    if (c >= 0) {
      if (held[i])
        for (int r = 0; r < 6; ++r) B.row(c) -= S_[i](r) * work_.row(6 * i + r);
      if (p < 0) continue;
      const Vec6 k = U_[i] / D_[i];
      for (int r = 0; r < 6; ++r) {
        auto to = work_.row(6 * p + r);
        if (held[p] && held[i])
          to += work_.row(6 * i + r) + k(r) * B.row(c);
        else if (held[p])
          to += k(r) * B.row(c);
        else if (held[i])
          to = work_.row(6 * i + r) + k(r) * B.row(c);
        else
          to = k(r) * B.row(c);
      }
      held[p] = 1;
    } else if (p >= 0 && held[i]) {
      if (held[p])
        block(p) += block(i);
      else
        block(p) = block(i);
      held[p] = 1;
    }
  }
  // base to tip: x into B's rows, accelerations into the joints' own blocks
  std::fill(held.begin(), held.end(), 0);
  for (int i = 0; i < n_; ++i) {
    const int p = parent_[i], c = col_[i];
    const bool from = p >= 0 && held[p];
    if (c >= 0) {
      if (from)
        for (int r = 0; r < 6; ++r) B.row(c) -= U_[i](r) * work_.row(6 * p + r);
      B.row(c) /= D_[i];
      for (int r = 0; r < 6; ++r) {
        if (from)
          work_.row(6 * i + r) = work_.row(6 * p + r) + S_[i](r) * B.row(c);
        else
          work_.row(6 * i + r) = S_[i](r) * B.row(c);
      }
      held[i] = 1;
    } else if (from) {
      block(i) = block(p);
      held[i] = 1;
    }
  }
}

}  // namespace detail
}  // namespace appell
