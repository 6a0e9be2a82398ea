// G = J M⁻¹ Jᵀ of a small tree in its joint space (engine/contact/delassus.hpp).
//
// The recursion's way (tree_delassus) costs two passes over the rows' subtrees per row:
// for a robot on a floating base every row's subtree is the whole robot (the standing
// quadruped: 12 rows × 26 body steps, 52,000 instructions a step).  On a tree of few
// velocities the mass matrix is cheaper: the composite-rigid-body algorithm (Featherstone,
// Rigid Body Dynamics Algorithms, 2008, §6.2) forms M in one pass, its Cholesky factor
// costs nu³/3, and the rows' columns M⁻¹ Jᵀ and G = J M⁻¹ Jᵀ follow by products.
//
// Every quantity is referred to the world origin O: a joint column S (the child's centre
// velocity and angular velocity per unit rate, as the kinematics give it) becomes the twist
// (v_O, ω) = (S_v − S_ω × x_c, S_ω), a body's inertia the 6 × 6 map from (v_O, ω) to its
// momentum (p, L_O), p = m (v_O − c × ω), L_O = m c × v_O + (J − m [c]×[c]×) ω, and a row's
// wrench (f, τ about the body's centre x_b) the pair (f, τ + x_b × f); a twist and a wrench
// pair by their dot product.  Composite inertias then add without transforms.
#include <cmath>

#include "engine/contact/delassus.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

bool joint_space_applies(const Model& m, const Data& d) {
  const TreeModel& tree = m.tree();
  if (tree.nrows_extra > 0 || !d.composite.empty() || tree.nu > kJointSpaceVelocities) return false;
  for (const Body& b : m.bodies())
    if (!b.rigid()) return false;
  return true;
}

bool joint_space_delassus(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                          const std::vector<TwistRow>& rows, const std::vector<int>& island_start,
                          std::vector<IslandMatrix>& islands, Eigen::MatrixXd& response,
                          ResponseSupport& support, Eigen::VectorXd* tree_diagonal,
                          JointSpaceScratch& w) {
  const TreeModel& tree = m.tree();
  const int nj = static_cast<int>(tree.joints.size());
  const int nu = tree.nu;
  const int n = static_cast<int>(rows.size());
  // the joint columns about O
  w.S.resize(nu);
  for (const TreeJoint& t : tree.joints) {
    const Vec3& x = d.body[t.body].x;
    for (int c = t.u_offset; c < t.u_offset + t.nu; ++c) {
      const Vec6& S = ws.S[c];
      w.S[c].head<3>() = S.head<3>() - S.tail<3>().cross(x);
      w.S[c].tail<3>() = S.tail<3>();
    }
  }
  // the composite inertias about O, tip to base
  w.I.resize(nj);
  for (int i = 0; i < nj; ++i) {
    const int b = tree.joints[i].body;
    const double mass = m.bodies()[b].mass;
    const Mat3 C = skew(d.body[b].x);
    Mat6& I = w.I[i];
    I.topLeftCorner<3, 3>() = mass * Mat3::Identity();
    I.topRightCorner<3, 3>() = -mass * C;
    I.bottomLeftCorner<3, 3>() = mass * C;
    I.bottomRightCorner<3, 3>() = d.J[b] - mass * C * C;
  }
  for (int i = nj - 1; i >= 0; --i)
    if (tree.joints[i].parent >= 0) w.I[tree.joints[i].parent] += w.I[i];
  // M: a joint's columns against its own and its ancestors'                  [RBDA §6.2]
  Eigen::MatrixXd& M = w.M;
  M.setZero(nu, nu);  // (joints on different branches: zero)
  for (int i = 0; i < nj; ++i) {
    const TreeJoint& t = tree.joints[i];
    for (int a = t.u_offset; a < t.u_offset + t.nu; ++a) {
      const Vec6 F = w.I[i] * w.S[a];
      for (int c = t.u_offset; c <= a; ++c) M(a, c) = M(c, a) = w.S[c].dot(F);
      for (int j = t.parent; j >= 0; j = tree.joints[j].parent) {
        const TreeJoint& p = tree.joints[j];
        for (int c = p.u_offset; c < p.u_offset + p.nu; ++c) M(a, c) = M(c, a) = w.S[c].dot(F);
      }
    }
    for (int a = t.u_offset; a < t.u_offset + t.nu; ++a) M(a, a) += t.armature;
  }
  // M = Lᵀ L, L lower triangular with M's own pattern (no fill-in: a velocity couples only
  // its ancestors), by Featherstone's LTL factorization; lambda: each velocity's parent
  // velocity (the joint's previous one, or its parent joint's last), −1 at a root
  std::vector<int>& lambda = w.lambda;
  lambda.resize(nu);
  for (const TreeJoint& t : tree.joints)
    for (int c = t.u_offset; c < t.u_offset + t.nu; ++c)
      lambda[c] = c > t.u_offset  ? c - 1
                  : t.parent >= 0 ? tree.joints[t.parent].u_offset + tree.joints[t.parent].nu - 1
                                  : -1;
  for (int k = nu - 1; k >= 0; --k) {  //                                    [RBDA Table 6.3]
    if (!(M(k, k) > 0)) return false;
    M(k, k) = std::sqrt(M(k, k));
    for (int i = lambda[k]; i >= 0; i = lambda[i]) M(k, i) /= M(k, k);
    for (int i = lambda[k]; i >= 0; i = lambda[i])
      for (int j = i; j >= 0; j = lambda[j]) M(i, j) -= M(k, i) * M(k, j);
  }
  // Jᵀ: each row's wrench on the columns of its bodies' paths to the root
  auto& Y = w.Y;
  Y.setZero(nu, n);
  for (int k = 0; k < n; ++k)
    for (int s = 0; s < 2; ++s) {
      const int b = rows[k].body[s];
      if (b == kWorld) continue;
      Vec6 f;
      f.head<3>() = rows[k].term[s].force;
      f.tail<3>() = rows[k].term[s].moment + d.body[b].x.cross(rows[k].term[s].force);
      for (int j = tree.tree_index[b]; j >= 0; j = tree.joints[j].parent) {
        const TreeJoint& p = tree.joints[j];
        for (int c = p.u_offset; c < p.u_offset + p.nu; ++c) Y(c, k) += w.S[c].dot(f);
      }
    }
  // Y = L⁻ᵀ Jᵀ (tip to base), G = Yᵀ Y by island, and the responses M⁻¹ Jᵀ = L⁻¹ Y (base
  // to tip), every column whole; a step of either elimination is one row operation on
  // all the rows' columns                                               [RBDA Table 6.4]
  const auto axpy = [n](double* to, double a, const double* x) {
    for (int c = 0; c < n; ++c) to[c] -= a * x[c];
  };
  const auto scale = [n](double* to, double a) {
    for (int c = 0; c < n; ++c) to[c] *= a;
  };
  for (int k = nu - 1; k >= 0; --k) {
    double* yk = Y.data() + k * n;
    scale(yk, 1.0 / M(k, k));
    for (int i = lambda[k]; i >= 0; i = lambda[i]) axpy(Y.data() + i * n, M(k, i), yk);
  }
  auto& X = w.X;
  X = Y;
  for (int k = 0; k < nu; ++k) {
    double* xk = X.data() + k * n;
    for (int i = lambda[k]; i >= 0; i = lambda[i]) axpy(xk, M(k, i), X.data() + i * n);
    scale(xk, 1.0 / M(k, k));
  }
  response = X;
  support.dense = true;
  support.values.clear();
  for (size_t i = 0; i < islands.size(); ++i) {
    const int k0 = island_start[i];
    const int len = (i + 1 < island_start.size() ? island_start[i + 1] : n) - k0;
    IslandMatrix& B = islands[i];
    B.sparse = false;
    B.factored = false;
    B.dense.resize(len, len);
    B.dense.noalias() = Y.middleCols(k0, len).transpose() * Y.middleCols(k0, len);
  }
  if (tree_diagonal) *tree_diagonal = Y.colwise().squaredNorm().transpose();
  return true;
}

}  // namespace appell
