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
  Eigen::MatrixXd& Jt = w.Jt;
  Jt.setZero(nu, n);
  for (int k = 0; k < n; ++k)
    for (int s = 0; s < 2; ++s) {
      const int b = rows[k].body[s];
      if (b == kWorld) continue;
      Vec6 f;
      f.head<3>() = rows[k].term[s].force;
      f.tail<3>() = rows[k].term[s].moment + d.body[b].x.cross(rows[k].term[s].force);
      for (int j = tree.tree_index[b]; j >= 0; j = tree.joints[j].parent) {
        const TreeJoint& p = tree.joints[j];
        for (int c = p.u_offset; c < p.u_offset + p.nu; ++c) Jt(c, k) += w.S[c].dot(f);
      }
    }
  // Y = L⁻ᵀ Jᵀ (column by column, tip to base), G = Yᵀ Y by island, and the responses
  // M⁻¹ Jᵀ = L⁻¹ Y (base to tip), every column whole                   [RBDA Table 6.4]
  Eigen::MatrixXd& Y = w.Y;
  Y = Jt;
  for (int r = 0; r < n; ++r) {
    double* y = Y.col(r).data();
    for (int k = nu - 1; k >= 0; --k) {
      y[k] /= M(k, k);
      for (int i = lambda[k]; i >= 0; i = lambda[i]) y[i] -= M(k, i) * y[k];
    }
  }
  if (response.rows() != nu || response.cols() != n) response.resize(nu, n);
  response = Y;
  for (int r = 0; r < n; ++r) {
    double* x = response.col(r).data();
    for (int k = 0; k < nu; ++k) {
      for (int i = lambda[k]; i >= 0; i = lambda[i]) x[k] -= M(k, i) * x[i];
      x[k] /= M(k, k);
    }
  }
  support.dense = true;
  support.values.clear();
  for (size_t i = 0; i < islands.size(); ++i) {
    const int k0 = island_start[i];
    const int len = (i + 1 < island_start.size() ? island_start[i + 1] : n) - k0;
    IslandMatrix& B = islands[i];
    B.sparse = false;
    B.factored = false;
    B.dense.resize(len, len);
    for (int j = 0; j < len; ++j)
      for (int c = 0; c <= j; ++c) B.dense(j, c) = B.dense(c, j) = Y.col(k0 + j).dot(Y.col(k0 + c));
  }
  if (tree_diagonal) {
    tree_diagonal->resize(n);
    for (int k = 0; k < n; ++k) (*tree_diagonal)(k) = Y.col(k).squaredNorm();
  }
  return true;
}

}  // namespace appell
