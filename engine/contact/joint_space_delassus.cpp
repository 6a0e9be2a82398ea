// G = J M⁻¹ Jᵀ of a small tree in its joint space (engine/contact/delassus.hpp).
//
// The recursion's way (tree_delassus) costs two passes over the rows' subtrees per row:
// for a robot on a floating base every row's subtree is the whole robot (the standing
// quadruped: 12 rows × 26 body steps, 52,000 instructions a step).  On a tree of few
// velocities the mass matrix is cheaper: the composite-rigid-body algorithm (Featherstone,
// Rigid Body Dynamics Algorithms, 2008, §6.2) forms M in one pass, its factor M = Lᵀ L
// has no fill-in, G = Yᵀ Y with Y = L⁻ᵀ Jᵀ, and a response M⁻¹ Jᵀ λ = L⁻¹ (Y λ) is solved
// when applied (add_joint_space_response), M⁻¹ Jᵀ never formed.
//
// Every quantity is referred to the world origin O: a joint column S (the child's centre
// velocity and angular velocity per unit rate, as the kinematics give it) becomes the twist
// (v_O, ω) = (S_v − S_ω × x_c, S_ω), a body's inertia the 6 × 6 map from (v_O, ω) to its
// momentum (p, L_O), p = m (v_O − c × ω), L_O = m c × v_O + (J − m [c]×[c]×) ω, and a row's
// wrench (f, τ about the body's centre x_b) the pair (f, τ + x_b × f); a twist and a wrench
// pair by their dot product.  Composite inertias then add without transforms.
#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/contact/delassus.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

namespace {

// visit(lo, hi) for each run [lo, hi) of velocity k's ancestors, the nearest first: its own
// run below it, then each run that ends at the parent of the last one's first velocity
template <class Visit>
void for_ancestor_runs(const JointSpaceResponse& f, int k, const Visit& visit) {
  int lo = f.run[k], hi = k;
  for (;;) {
    if (lo < hi) visit(lo, hi);
    const int p = f.parent[lo];
    if (p < 0) return;
    lo = f.run[p];
    hi = p + 1;
  }
}

// x ← L⁻¹ x, base to tip (M = Lᵀ L): a velocity's entry after its ancestors'
void solve_lower(const JointSpaceResponse& f, Eigen::VectorXd& x) {
  const int nu = static_cast<int>(f.L.rows());
  for (int k = 0; k < nu; ++k) {
    double v = x(k);
    const double* lk = f.L.data() + k * nu;
    for_ancestor_runs(f, k, [&](int lo, int hi) {
      for (int i = lo; i < hi; ++i) v -= lk[i] * x(i);
    });
    x(k) = v * f.inverse_diagonal(k);
  }
}

// g += Σ_k y_k y_kᵀ on the columns and rows [c0, c1) of the len × len g, y_k the K rows
// of Y from y on, `stride` apart
template <int K>
void add_rank_update(double* g, int len, const double* y, int stride, int c0, int c1) {
  for (int j = c0; j < c1; ++j) {
    double yj[K];
    for (int k = 0; k < K; ++k) yj[k] = y[k * stride + j];
    double* gj = g + j * len;
    for (int r = c0; r < c1; ++r) {
      double sum = 0.0;
      for (int k = 0; k < K; ++k) sum += y[k * stride + r] * yj[k];
      gj[r] += sum;
    }
  }
}

// the joint columns about O
void joint_columns_about_origin(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                                JointSpaceScratch& w) {
  const TreeModel& tree = m.tree();
  w.S.resize(tree.nu);
  for (const TreeJoint& t : tree.joints) {
    const Vec3& x = d.body[t.body].x;
    for (int c = t.u_offset; c < t.u_offset + t.nu; ++c) {
      const Vec6& S = ws.S[c];
      w.S[c].head<3>() = S.head<3>() - S.tail<3>().cross(x);
      w.S[c].tail<3>() = S.tail<3>();
    }
  }
}

// M's lower triangle by composite rigid bodies (the rest of it, joints on different
// branches, is zero and never read)                                      [RBDA §6.2]
void joint_space_mass_matrix(const Model& m, const Data& d, JointSpaceScratch& w,
                             JointSpaceResponse& f) {
  const TreeModel& tree = m.tree();
  const int nj = static_cast<int>(tree.joints.size());
  // the composite inertias about O, tip to base: a body's mass m, first moment h = m x and
  // J_O = J + m (|x|² 1 − x xᵀ), the 6 × 6 map [m 1, −h×; h×, J_O]; they add as they are
  w.I.resize(nj);
  for (int i = 0; i < nj; ++i) {
    const int b = tree.joints[i].body;
    const double mass = m.bodies()[b].mass;
    const Vec3& x = d.body[b].x;
    InertiaAboutOrigin& I = w.I[i];
    I.mass = mass;
    I.h = mass * x;
    I.J = d.J[b] - I.h * x.transpose();
    I.J.diagonal().array() += I.h.dot(x);
  }
  for (int i = nj - 1; i >= 0; --i)
    if (const int p = tree.joints[i].parent; p >= 0) {
      w.I[p].mass += w.I[i].mass;
      w.I[p].h += w.I[i].h;
      w.I[p].J += w.I[i].J;
    }
  // a joint's columns against its own and its ancestors'
  auto& M = f.L;
  M.resize(tree.nu, tree.nu);
  for (int i = 0; i < nj; ++i) {
    const TreeJoint& t = tree.joints[i];
    const InertiaAboutOrigin& I = w.I[i];
    for (int a = t.u_offset; a < t.u_offset + t.nu; ++a) {
      const Vec3 v = w.S[a].head<3>(), om = w.S[a].tail<3>();
      Vec6 F;  // the composite's momentum at the unit rate of velocity a
      F.head<3>() = I.mass * v - I.h.cross(om);
      F.tail<3>() = I.h.cross(v) + I.J * om;
      for (int c = t.u_offset; c <= a; ++c) M(a, c) = w.S[c].dot(F);
      for (int j = t.parent; j >= 0; j = tree.joints[j].parent) {
        const TreeJoint& p = tree.joints[j];
        for (int c = p.u_offset; c < p.u_offset + p.nu; ++c) M(a, c) = w.S[c].dot(F);
      }
      M(a, a) += t.armature;
    }
  }
}

// M = Lᵀ L in place, L lower triangular with M's own pattern (no fill-in: a velocity
// couples only its ancestors), by Featherstone's LTL factorization     [RBDA Table 6.3];
// false when M is not positive definite to it
bool factor_joint_space(const TreeModel& tree, JointSpaceResponse& f) {
  const int nu = tree.nu;
  // each velocity's parent velocity: the joint's previous one, or its parent joint's last
  std::vector<int>&parent = f.parent, &run = f.run;
  parent.resize(nu);
  run.resize(nu);
  for (const TreeJoint& t : tree.joints)
    for (int c = t.u_offset; c < t.u_offset + t.nu; ++c) {
      parent[c] = c > t.u_offset  ? c - 1
                  : t.parent >= 0 ? tree.joints[t.parent].u_offset + tree.joints[t.parent].nu - 1
                                  : -1;
      run[c] = c > 0 && parent[c] == c - 1 ? run[c - 1] : c;
    }
  auto& M = f.L;
  f.inverse_diagonal.resize(nu);
  for (int k = nu - 1; k >= 0; --k) {
    if (!(M(k, k) > 0)) return false;
    const double lkk = std::sqrt(M(k, k)), inverse = 1.0 / lkk;
    M(k, k) = lkk;
    f.inverse_diagonal(k) = inverse;
    double* rk = M.data() + k * nu;
    for_ancestor_runs(f, k, [&](int lo, int hi) {
      for (int i = lo; i < hi; ++i) rk[i] *= inverse;
    });
    for_ancestor_runs(f, k, [&](int lo, int hi) {
      for (int i = lo; i < hi; ++i) {
        double* ri = M.data() + i * nu;
        const double a = rk[i];
        ri[i] -= a * rk[i];
        for_ancestor_runs(f, i, [&](int lo2, int hi2) {
          for (int j = lo2; j < hi2; ++j) ri[j] -= a * rk[j];
        });
      }
    });
  }
  return true;
}

// Jᵀ: each row's wrench on the columns of its bodies' paths to the root.  Each velocity's
// row of Y is nonzero only in the columns of the rows on bodies below it (a leg's
// velocity: its foot's rows), within [first, end): so are its rows of L⁻ᵀ Jᵀ, its
// ancestors' ranges holding its own (a row marks its bodies' whole paths)
void joint_space_rows(const Model& m, const Data& d, const std::vector<TwistRow>& rows,
                      const JointSpaceScratch& w, JointSpaceResponse& f) {
  const TreeModel& tree = m.tree();
  const int nu = tree.nu, n = static_cast<int>(rows.size());
  auto& Y = f.Y;
  Y.setZero(nu, n);
  f.first.assign(nu, n);
  f.end.assign(nu, 0);
  for (int k = 0; k < n; ++k)
    for (int s = 0; s < 2; ++s) {
      const int b = rows[k].body[s];
      if (b == kWorld) continue;
      Vec6 wrench;
      wrench.head<3>() = rows[k].term[s].force;
      wrench.tail<3>() = rows[k].term[s].moment + d.body[b].x.cross(rows[k].term[s].force);
      for (int j = tree.tree_index[b]; j >= 0; j = tree.joints[j].parent) {
        const TreeJoint& p = tree.joints[j];
        for (int c = p.u_offset; c < p.u_offset + p.nu; ++c) {
          Y(c, k) += w.S[c].dot(wrench);
          f.first[c] = std::min(f.first[c], k);
          f.end[c] = k + 1;
        }
      }
    }
}

// Y = L⁻ᵀ Jᵀ, tip to base, on each velocity's columns: a step of the elimination is one
// row operation on the rows' columns                                   [RBDA Table 6.4]
void eliminate_joint_space_rows(JointSpaceResponse& f) {
  auto& Y = f.Y;
  const int nu = static_cast<int>(Y.rows()), n = static_cast<int>(Y.cols());
  for (int k = nu - 1; k >= 0; --k) {
    const int c0 = f.first[k], count = f.end[k] - f.first[k];
    if (count <= 0) continue;  // no row moves it: its row of Y stays zero
    double* yk = Y.data() + k * n + c0;
    const double pivot = f.inverse_diagonal(k);
    for (int c = 0; c < count; ++c) yk[c] *= pivot;
    const double* rk = f.L.data() + k * nu;
    for_ancestor_runs(f, k, [&](int lo, int hi) {
      for (int i = lo; i < hi; ++i) {
        double* yi = Y.data() + i * n + c0;
        const double a = rk[i];
        for (int c = 0; c < count; ++c) yi[c] -= a * yk[c];
      }
    });
  }
}

// each island's block of G = Yᵀ Y = Σ y_c y_cᵀ over the velocities' rows of Y, each on
// its own columns (a leg's velocity: its foot's 3 × 3 block), up to three velocities of
// the same columns (a joint's) in one update: a column of G is then loaded and stored
// once for three
void joint_space_blocks(const JointSpaceResponse& f, const std::vector<int>& island_start,
                        std::vector<IslandMatrix>& islands, Eigen::VectorXd* tree_diagonal) {
  const int nu = static_cast<int>(f.Y.rows()), n = static_cast<int>(f.Y.cols());
  if (tree_diagonal) tree_diagonal->resize(n);
  for (size_t i = 0; i < islands.size(); ++i) {
    const int k0 = island_start[i];
    const int len = (i + 1 < island_start.size() ? island_start[i + 1] : n) - k0;
    IslandMatrix& B = islands[i];
    B.sparse = false;
    B.factored = false;
    B.dense.setZero(len, len);
    double* g = B.dense.data();
    const auto columns = [&](int c) {
      return std::pair<int, int>(std::max(f.first[c], k0) - k0, std::min(f.end[c], k0 + len) - k0);
    };
    for (int c = 0; c < nu;) {
      const std::pair<int, int> span = columns(c);
      int e = c + 1;
      while (e < nu && e - c < 3 && columns(e) == span) ++e;
      const double* y = f.Y.data() + c * n + k0;
      if (span.second > span.first) {
        if (e - c == 3)
          add_rank_update<3>(g, len, y, n, span.first, span.second);
        else if (e - c == 2)
          add_rank_update<2>(g, len, y, n, span.first, span.second);
        else
          add_rank_update<1>(g, len, y, n, span.first, span.second);
      }
      c = e;
    }
    if (tree_diagonal) tree_diagonal->segment(k0, len) = B.dense.diagonal();
  }
}

}  // namespace

bool joint_space_applies(const Model& m, const Data& d) {
  const TreeModel& tree = m.tree();
  if (tree.nrows_extra > 0 || !d.composite.empty() || tree.nu > kJointSpaceVelocities) return false;
  for (const TreeJoint& t : tree.joints)
    if (t.type == &particle_joint()) return false;
  return true;
}

bool joint_space_delassus(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                          const std::vector<TwistRow>& rows, const std::vector<int>& island_start,
                          std::vector<IslandMatrix>& islands, ResponseSupport& support,
                          Eigen::VectorXd* tree_diagonal, JointSpaceScratch& w) {
  JointSpaceResponse& f = support.factors;
  if (!f.fresh && !joint_space_factor(m, d, ws, w, f)) return false;
  f.fresh = false;
  joint_space_rows(m, d, rows, w, f);
  eliminate_joint_space_rows(f);
  support.dense = false;
  support.joint_space = true;
  support.values.clear();
  joint_space_blocks(f, island_start, islands, tree_diagonal);
  return true;
}

bool joint_space_factor(const Model& m, const Data& d, const RecursiveWorkspace& ws,
                        JointSpaceScratch& w, JointSpaceResponse& f) {
  joint_columns_about_origin(m, d, ws, w);
  joint_space_mass_matrix(m, d, w, f);
  f.fresh = factor_joint_space(m.tree(), f);
  return f.fresh;
}

void solve_joint_space(const JointSpaceResponse& f, Eigen::VectorXd& x) {
  const int nu = static_cast<int>(f.L.rows());
  for (int k = nu - 1; k >= 0; --k) {  // Lᵀ y = x: y_k, then out of its ancestors' rows
    x(k) *= f.inverse_diagonal(k);
    const double* lk = f.L.data() + k * nu;
    for_ancestor_runs(f, k, [&](int lo, int hi) {
      for (int i = lo; i < hi; ++i) x(i) -= lk[i] * x(k);
    });
  }
  solve_lower(f, x);
}

void add_joint_space_response(const JointSpaceResponse& f, const Eigen::VectorXd& lambda,
                              Eigen::VectorXd& du) {
  const int nu = static_cast<int>(f.L.rows());
  const int n = static_cast<int>(f.Y.cols());
  Eigen::VectorXd& x = f.work;
  x.resize(nu);
  // Y λ, each velocity on its own columns; then L x = Y λ
  for (int k = 0; k < nu; ++k) {
    double v = 0.0;
    const double* y = f.Y.data() + k * n;
    for (int c = f.first[k]; c < f.end[k]; ++c) v += y[c] * lambda(c);
    x(k) = v;
  }
  solve_lower(f, x);
  du += x;
}

}  // namespace appell
