// Pass 2, tip to base: articulated inertias IA_i and biases pA_i (R4–R9); pass 2', the
// biases alone (with_c: of the applied forces, τ included; without: the response to
// extra-row forces, R12).  docs/recursive.md.
#include <Eigen/Cholesky>

#include "engine/formulations/recursive/articulated_step.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

// IA_p += Xᵀ Ia X, block by block: Ia = [A B; Bᵀ C], R = r× (R5):
//   B' = B − A R,   C' = C + R B' − Bᵀ R = C + (R B) + (R B)ᵀ − R A R
// with the products by R written as cross products (a row of A R is a_i × r, a column of
// R B is r × b_j), and C' symmetric.
inline void add_shifted_inertia(const Vec3& r, const Mat6& Ia, Mat6& IA_p) {
  const Mat3 A = Ia.topLeftCorner<3, 3>();
  const Mat3 B = Ia.topRightCorner<3, 3>();
  Mat3 AR, RB;
  for (int i = 0; i < 3; ++i) AR.row(i) = Vec3(A.row(i).transpose()).cross(r).transpose();
  for (int j = 0; j < 3; ++j) RB.col(j) = r.cross(Vec3(B.col(j)));
  Mat3 RAR;  // R (A R): columns r × (A R)_j
  for (int j = 0; j < 3; ++j) RAR.col(j) = r.cross(Vec3(AR.col(j)));
  const Mat3 Bp = B - AR;
  IA_p.topLeftCorner<3, 3>() += A;
  IA_p.topRightCorner<3, 3>() += Bp;
  IA_p.bottomLeftCorner<3, 3>() += Bp.transpose();
  IA_p.bottomRightCorner<3, 3>() += Ia.bottomRightCorner<3, 3>() + RB + RB.transpose() - RAR;
}

// U, D⁻¹ and, for a joint with a parent, the condensed Ia (R7, R8) of a joint with K
// quasi-velocities (articulated_step.hpp); a root's Ia is handed to no one
template <int K>
inline void project_inertia(const TreeModel& tree, RecursiveWorkspace& ws, int i, Mat6* Ia) {
  JointBlocks<K> j = blocks<K>(tree, ws, i);
  const TreeBodyWork& w = ws.w[i];
  if constexpr (K == 6) {
    // a body free on its own: S = 1 and IA = diag(m 1, J) at its centre, so U = IA and D⁻¹
    // = diag(1/(m + a), (J + a 1)⁻¹) block by block (a: the armature), with no 6 × 6 products
    const double mass = w.IA(0, 0), a = tree.joints[i].armature;
    if (!Ia && identity_motion(tree.joints[i]) &&
        w.IA.template topRightCorner<3, 3>().isZero(0.0) &&
        w.IA.template bottomLeftCorner<3, 3>().isZero(0.0) &&
        w.IA.template topLeftCorner<3, 3>().isApprox(mass * Mat3::Identity(), 0.0)) {
      j.U = w.IA;
      j.Dinv.setZero();
      j.Dinv.template topLeftCorner<3, 3>().diagonal().setConstant(1.0 / (mass + a));
      j.Dinv.template bottomRightCorner<3, 3>() =
          (w.IA.template bottomRightCorner<3, 3>() + a * Mat3::Identity()).inverse();
      return;
    }
  }
  // D = Sᵀ IA S + a 1: the rotor inertia (armature) adds to the joint-space diagonal
  articulated_step<K>(w.IA, j.S, tree.joints[i].armature, j.U, j.Dinv, Ia);  //    (R7, R8)
}

// uu = τ − Sᵀ pA (R9, τ from generalized_forces, or 0);  returns pa = pA + U D⁻¹ uu
// (+ Ia c), the bias the parent sees (R8)
template <int K>
inline SpatialForce project_bias(const TreeModel& tree, RecursiveWorkspace& ws, int i, bool with_c,
                                 bool with_tau) {
  JointBlocks<K> j = blocks<K>(tree, ws, i);
  const TreeBodyWork& w = ws.w[i];
  Eigen::Matrix<double, K, 1> uu = -(j.S.template topRows<3>().transpose() * w.pA.force +
                                     j.S.template bottomRows<3>().transpose() * w.pA.moment);
  if (with_tau && ws.joint_tau[i])
    uu += Eigen::Map<const Eigen::Matrix<double, K, 1>>(ws.tau.data() + tree.joints[i].u_offset);
  j.uu = uu;
  const Vec6 x = j.U * (j.Dinv * uu);
  SpatialForce pa(w.pA.force + x.head<3>(), w.pA.moment + x.tail<3>());
  if (with_c) pa += w.Iac;
  return pa;
}

}  // namespace

void inertia_bias_TipToBase(const TreeModel& tree, RecursiveWorkspace& ws) {
  const int n = static_cast<int>(ws.w.size());
  for (int i = 0; i < n; ++i) ws.w[i].pA = -ws.w[i].f;
  for (int i = n - 1; i >= 0; --i) {
    TreeBodyWork& w = ws.w[i];
    Mat6 Ia;
    SpatialForce pa;
    const int nu = tree.joints[i].nu;
    const int p = tree.joints[i].parent;
    if (nu == 0) {  // a weld passes both on as they are
      Ia = w.IA;
      pa = w.pA;
    } else {  // project the articulated inertia and the bias onto the joint    (R7–R9)
      dispatch(nu, [&](auto K) {
        constexpr int k = decltype(K)::value;
        project_inertia<k>(tree, ws, i, p >= 0 ? &Ia : nullptr);
        pa = project_bias<k>(tree, ws, i, false, true);
      });
    }
    if (p < 0) {  // a root: its condensed inertia and bias go nowhere
      w.Iac = SpatialForce();
      continue;
    }
    w.Ia = Ia;
    w.Iac = Ia * w.c;
    pa += w.Iac;  // (R8)
    // hand the condensed inertia and bias to the parent                       (R4, R5)
    add_shifted_inertia(w.r, Ia, ws.w[p].IA);
    ws.w[p].pA += pa.shifted(w.r);
  }
  ws.articulated = true;
}

void bias_TipToBase(const TreeModel& tree, RecursiveWorkspace& ws, bool with_c, int begin,
                    int end) {
  const int n = end < 0 ? static_cast<int>(ws.w.size()) : end;
  for (int i = begin; i < n; ++i) ws.w[i].pA = -ws.w[i].f;
  for (int i = n - 1; i >= begin; --i) {
    TreeBodyWork& w = ws.w[i];
    const int nu = tree.joints[i].nu;
    SpatialForce pa = w.pA;
    if (nu == 0 && with_c) pa += w.Iac;
    dispatch(nu,
             [&](auto K) { pa = project_bias<decltype(K)::value>(tree, ws, i, with_c, with_c); });
    const int p = tree.joints[i].parent;
    if (p >= 0) ws.w[p].pA += pa.shifted(w.r);  // (R4)
  }
}

}  // namespace appell
