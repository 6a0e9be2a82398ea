// Pass 3, base to tip: accelerations a_i and joint quasi-accelerations u̇_i (R10, R11).
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

// u̇ = D⁻¹ (uu − Uᵀ a) and a += S u̇ (R10, R11)
template <int K>
inline void project_acceleration(const TreeModel& tree, RecursiveWorkspace& ws, int i) {
  JointBlocks<K> j = blocks<K>(tree, ws, i);
  TreeBodyWork& w = ws.w[i];
  const Eigen::Matrix<double, K, 1> ud =
      j.Dinv * (j.uu - j.U.template topRows<3>().transpose() * w.a.linear -
                j.U.template bottomRows<3>().transpose() * w.a.angular);
  j.udot = ud;
  w.a.linear.noalias() += j.S.template topRows<3>() * ud;
  w.a.angular.noalias() += j.S.template bottomRows<3>() * ud;
}

}  // namespace

void accelerations_BaseToTip(const TreeModel& tree, RecursiveWorkspace& ws, bool with_c, int begin,
                             int end) {
  const int n = end < 0 ? static_cast<int>(ws.w.size()) : end;
  for (int i = begin; i < n; ++i) {
    TreeBodyWork& w = ws.w[i];
    const int p = tree.joints[i].parent;
    if (p >= 0)
      w.a = ws.w[p].a.shifted(w.r);  // X a_p (R2)
    else
      w.a.setZero();
    if (with_c) w.a += w.c;
    dispatch(tree.joints[i].nu,
             [&](auto K) { project_acceleration<decltype(K)::value>(tree, ws, i); });
  }
}

}  // namespace appell
