// Products with H⁻¹ for many right-hand sides at once (H = M + diag(armature), the tree's
// joint-space mass matrix): the solve half of the articulated-body factor that pass 2
// (inertia_bias_TipToBase) leaves in the workspace — U_i = IA_i S_i and D_i⁻¹ at each
// body's centre of mass (R7, R8) — so that the analytical derivatives
// (engine/formulations/recursive/derivatives.cpp) take the recursion's own factor and each
// right-hand side costs O(n), not a dense solve's O(n²).
//
// Passes 2' and 3 without velocities, gravity or body forces (Featherstone, "Rigid Body
// Dynamics Algorithms", 2008, §7.3), K columns of b at once, 6 rows per body, with S and U
// carried from the centres to the world origin first (O(n)), so that the sweeps shift
// nothing (a shift per body would cost every column its cross products):
//   tip to base, the bias forces p: β_i = b_i − S_iᵀ p_i (R9), p_λ += p_i + U_i D_i⁻¹ β_i (R8)
//   base to tip, the accelerations α: x_i = D_i⁻¹ (β_i − U_iᵀ α_λ), α_i = α_λ + S_i x_i
//   (R10, R11).
// A weld passes its child's bias and its parent's acceleration on as they are.
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

bool articulated_factor_at_origin(const TreeModel& tree, const RecursiveWorkspace& ws,
                                  ArticulatedSolveWork& work) {
  const int n = static_cast<int>(tree.joints.size());
  work.x.resize(n);
  work.S.resize(6, tree.nu);
  work.U.resize(6, tree.nu);
  for (int i = 0; i < n; ++i) {
    const TreeJoint& t = tree.joints[i];
    const Eigen::Map<const Eigen::MatrixXd> Dinv(ws.Dinv.data() + ws.dinv_offset[i], t.nu, t.nu);
    if (!Dinv.allFinite() || !(Dinv.diagonal().array() > 0).all()) return false;
    // S (motions, X1) and U (forces, X2) about the origin; a body's centre x̄_i is the sum of
    // the r on its path (a root's r is its x̄)
    work.x[i] = t.parent < 0 ? ws.w[i].r : Vec3(work.x[t.parent] + ws.w[i].r);
    for (int b = t.u_offset; b < t.u_offset + t.nu; ++b) {
      work.S.col(b) = SpatialMotion::from_vec(ws.S[b]).shifted(-work.x[i]).vec();
      work.U.col(b) = SpatialForce::from_vec(ws.U[b]).shifted(work.x[i]).vec();
    }
  }
  return true;
}

void articulated_solve(const TreeModel& tree, const RecursiveWorkspace& ws, RowMatrix& B,
                       ArticulatedSolveWork& work) {
  const int n = static_cast<int>(tree.joints.size());
  work.blocks.resize(6 * n, B.cols());
  std::vector<char>& held = work.held;  // else the block is zero
  held.assign(n, 0);
  auto block = [&](int i) { return work.blocks.middleRows(6 * i, 6); };
  // tip to base: β into B's rows, bias forces into the parents' blocks               (R8, R9)
  for (int i = n - 1; i >= 0; --i) {
    const TreeJoint& t = tree.joints[i];
    const int p = t.parent, o = t.u_offset;
    if (t.nu == 0) {
      if (p >= 0 && held[i]) {
        if (held[p])
          block(p) += block(i);
        else
          block(p) = block(i);
        held[p] = 1;
      }
      continue;
    }
    dispatch(t.nu, [&](auto K) {
      constexpr int k = decltype(K)::value;
      const Eigen::Map<const Eigen::Matrix<double, 6, k>> S(work.S.col(o).data()),
          U(work.U.col(o).data());
      const Eigen::Map<const Eigen::Matrix<double, k, k>> Dinv(ws.Dinv.data() + ws.dinv_offset[i]);
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
  // base to tip: x into B's rows, accelerations into the bodies' own blocks          (R10, R11)
  std::fill(held.begin(), held.end(), 0);
  for (int i = 0; i < n; ++i) {
    const TreeJoint& t = tree.joints[i];
    const int p = t.parent, o = t.u_offset;
    const bool from = p >= 0 && held[p];
    if (t.nu == 0) {
      if (from) block(i) = block(p);
      held[i] = from;
      continue;
    }
    dispatch(t.nu, [&](auto K) {
      constexpr int k = decltype(K)::value;
      const Eigen::Map<const Eigen::Matrix<double, 6, k>> S(work.S.col(o).data()),
          U(work.U.col(o).data());
      const Eigen::Map<const Eigen::Matrix<double, k, k>> Dinv(ws.Dinv.data() + ws.dinv_offset[i]);
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

}  // namespace appell
