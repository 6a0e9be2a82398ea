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
#include <algorithm>
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
  // each velocity's row of Y is nonzero only in the columns of the rows on bodies below it
  // (a leg's velocity: its foot's rows), within [first, end): so are its rows of L⁻ᵀ Jᵀ,
  // its ancestors' ranges holding its own (a row marks its bodies' whole paths)
  std::vector<int>&first = w.first, &end = w.end;
  first.assign(nu, n);
  end.assign(nu, 0);
  for (int k = 0; k < n; ++k)
    for (int s = 0; s < 2; ++s) {
      const int b = rows[k].body[s];
      if (b == kWorld) continue;
      Vec6 f;
      f.head<3>() = rows[k].term[s].force;
      f.tail<3>() = rows[k].term[s].moment + d.body[b].x.cross(rows[k].term[s].force);
      for (int j = tree.tree_index[b]; j >= 0; j = tree.joints[j].parent) {
        const TreeJoint& p = tree.joints[j];
        for (int c = p.u_offset; c < p.u_offset + p.nu; ++c) {
          Y(c, k) += w.S[c].dot(f);
          first[c] = std::min(first[c], k);
          end[c] = k + 1;
        }
      }
    }
  // Y = L⁻ᵀ Jᵀ (tip to base) on each velocity's columns, G = Yᵀ Y by island, and the
  // responses M⁻¹ Jᵀ = L⁻¹ Y (base to tip: there an ancestor's whole row mixes in); a step
  // of either elimination is one row operation on the rows' columns    [RBDA Table 6.4]
  const auto axpy = [](double* to, double a, const double* x, int count) {
    for (int c = 0; c < count; ++c) to[c] -= a * x[c];
  };
  const auto scale = [](double* to, double a, int count) {
    for (int c = 0; c < count; ++c) to[c] *= a;
  };
  for (int k = nu - 1; k >= 0; --k) {
    const int c0 = first[k], count = end[k] - first[k];
    if (count <= 0) continue;  // no row moves it: its row of Y stays zero
    double* yk = Y.data() + k * n + c0;
    scale(yk, 1.0 / M(k, k), count);
    for (int i = lambda[k]; i >= 0; i = lambda[i]) axpy(Y.data() + i * n + c0, M(k, i), yk, count);
  }
  auto& X = w.X;
  X = Y;
  for (int k = 0; k < nu; ++k) {
    double* xk = X.data() + k * n;
    for (int i = lambda[k]; i >= 0; i = lambda[i]) axpy(xk, M(k, i), X.data() + i * n, n);
    scale(xk, 1.0 / M(k, k), n);
  }
  response = X;
  support.dense = true;
  support.values.clear();
  if (tree_diagonal) tree_diagonal->resize(n);
  for (size_t i = 0; i < islands.size(); ++i) {
    const int k0 = island_start[i];
    const int len = (i + 1 < island_start.size() ? island_start[i + 1] : n) - k0;
    IslandMatrix& B = islands[i];
    B.sparse = false;
    B.factored = false;
    // the lower triangle by one rank-one update per velocity, on its columns alone (a
    // leg's velocity: its foot's 3 × 3 block), then mirrored
    B.dense.setZero(len, len);
    double* g = B.dense.data();
    for (int c = 0; c < nu; ++c) {
      const int c0 = std::max(first[c], k0) - k0, c1 = std::min(end[c], k0 + len) - k0;
      const double* y = Y.data() + c * n + k0;
      for (int j = c0; j < c1; ++j) {
        double* gj = g + j * len;
        for (int r = j; r < c1; ++r) gj[r] += y[r] * y[j];
      }
    }
    for (int j = 0; j < len; ++j)
      for (int r = j + 1; r < len; ++r) g[r * len + j] = g[j * len + r];
    if (tree_diagonal) tree_diagonal->segment(k0, len) = B.dense.diagonal();
  }
  return true;
}

}  // namespace appell
