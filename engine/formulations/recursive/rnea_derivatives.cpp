// Analytical derivatives of inverse dynamics for trees of turns, slides and welds, after
// Carpentier & Mansard, "Analytical derivatives of rigid body dynamics algorithms", RSS
// 2018 (CM18 below): the recursive Newton–Euler algorithm and its derivatives written with
// world-frame spatial quantities.  The derivation below is ours; CM18 gives the same
// structure (a forward pass of world-frame motion columns and their rates, a backward pass
// of composite quantities filling each joint's row against its ancestors).
//
// Everything is a 6-vector in the world frame about the world origin, (linear; angular):
// motion columns S_i, velocities v_i, accelerations a_i (gravity as the world's −g), and the
// spatial inertia I_i = [[m, −m ĉ], [m ĉ, J − m ĉ ĉ]] of a body of centre c and central
// inertia J.  With
//   a × b  = (a_ω × b_v + a_v × b_ω; a_ω × b_ω)        on motions
//   a ×* f = (a_ω × f_f; a_ω × f_n + a_v × f_f)         on forces (= −(a ×)ᵀ f)
// the recursion is  v_i = v_λ + S_i u_i,  a_i = a_λ + S_i u̇_i + (v_λ × S_i) u_i,
// f_i = I_i a_i + v_i ×* I_i v_i,  F_i = Σ_{k ⪰ i} f_k,  τ_i = S_i · F_i  (λ = λ(i) the
// parent, k ⪰ i: k in the subtree of i)  [CM18, RNEA].
//
// Moving q_j along its tangent moves the subtree of j rigidly by the twist S_j (S_j is
// constant in its joint frame), so the world quantities of a body k ⪰ j turn with it:
// ∂S_k = S_j × S_k, ∂I_k = S_j ×* I_k − I_k S_j ×.  Summing along the path (Jacobi's
// identity), with w_j = v_λ(j) × S_j and c_j = a_λ(j) × S_j + v_λ(j) × w_j  [CM18, forward
// pass of the RNEA derivatives]:
//   ∂v_k/∂q_j = S_j × v_k + w_j,      ∂a_k/∂q_j = S_j × a_k + c_j + w_j × v_k,
//   ∂v_k/∂u_j = S_j,                   ∂a_k/∂u_j = S_j × v_k + 2 w_j,
// and, with İ = v ×* I − I v × and Bc_i x = Σ_{k ⪰ i} (İ_k x + x ×* I_k v_k),
//   ∂F_i/∂q_j = S_j ×* F_i + Ic_i c_j + Bc_i w_j,   ∂F_i/∂u_j = 2 Ic_i w_j + Bc_i S_j
// for i ⪰ j.  Hence, for j ⪯ i (∂S_i · F_i cancels S_i · (S_j ×* F_i)):
//   ∂τ_i/∂q_j = (Ic_i S_i)·c_j + (Bc_iᵀ S_i)·w_j,   ∂τ_i/∂u_j = (Ic_i S_i)·2w_j + (Bc_iᵀ S_i)·S_j,
// and for j ≺ i (S_j does not move; F_j changes as F_i does)  [CM18, backward pass]:
//   ∂τ_j/∂q_i = S_j·(S_i ×* F_i + Ic_i c_i + Bc_i w_i),   ∂τ_j/∂u_i = S_j·(2 Ic_i w_i + Bc_i S_i),
// with M_ij = S_j·(Ic_i S_i) (the composite-rigid-body algorithm).  Each pair of a joint and
// one of its ancestors costs three 12-vector dot products: O(n · depth) in all.
//
// The poses, accelerations, subtree wrenches F_i and τ come from the Newton–Euler kernel
// (engine/assembly/rnea.hpp: centres of mass, classical accelerations), moved to the world
// origin here: v = (v̄ + x̄ × ω; ω), a = (ā − g + v̄ × ω + x̄ × α; α), F = (f; n_O).
#include "engine/formulations/recursive/rnea_derivatives.hpp"

#include "appell/tree.hpp"

namespace appell {
namespace detail {
namespace {

// a × b on motions
Vec6 cross_m(const Vec6& a, const Vec6& b) {
  Vec6 r;
  r.head<3>() = a.tail<3>().cross(b.head<3>()) + a.head<3>().cross(b.tail<3>());
  r.tail<3>() = a.tail<3>().cross(b.tail<3>());
  return r;
}
// a ×* f on forces
Vec6 cross_f(const Vec6& a, const Vec6& f) {
  Vec6 r;
  r.head<3>() = a.tail<3>().cross(f.head<3>());
  r.tail<3>() = a.tail<3>().cross(f.tail<3>()) + a.head<3>().cross(f.head<3>());
  return r;
}
Mat3 hat(const Vec3& x) {
  Mat3 h;
  h << 0, -x(2), x(1), x(2), 0, -x(0), -x(1), x(0), 0;
  return h;
}
// the matrix of a ↦ a ×* f
Mat6 cross_f_bar(const Vec6& f) {
  Mat6 H = Mat6::Zero();
  const Mat3 ff = hat(f.head<3>());
  H.block<3, 3>(0, 3) = -ff;
  H.block<3, 3>(3, 0) = -ff;
  H.block<3, 3>(3, 3) = -hat(f.tail<3>());
  return H;
}
// İ = v ×* I − I v ×, the rate of a world inertia carried by the velocity v: its centre
// moves at ċ = v_v + v_ω × c and its central inertia turns, J̇ = ω̂ J − J ω̂
Mat6 inertia_rate(const Vec6& v, double mass, const Vec3& c, const Mat3& J) {
  const Mat3 w = hat(v.tail<3>()), cx = hat(c);
  const Mat3 cdx = hat(v.head<3>() + v.tail<3>().cross(c));
  Mat6 R;
  R.block<3, 3>(0, 0).setZero();
  R.block<3, 3>(0, 3) = -mass * cdx;
  R.block<3, 3>(3, 0) = mass * cdx;
  R.block<3, 3>(3, 3) = w * J - J * w - mass * (cdx * cx + cx * cdx);
  return R;
}

}  // namespace

bool rnea_derivatives_cover(const Model& m) {
  for (const TreeJoint& t : m.tree().joints) {
    const bool one = t.nu == 1 && (t.shape == JointShape::Turn || t.shape == JointShape::Slide);
    if (!one && !(t.nu == 0 && t.nq == 0)) return false;
  }
  return true;
}

RneaDerivatives::RneaDerivatives(const Model& m, const State& s) : m_(m), rnea_(m) {
  const TreeModel& tree = m.tree();
  n_ = static_cast<int>(tree.joints.size());
  parent_.resize(n_);
  col_.resize(n_);
  armature_.resize(n_);
  S_.resize(n_);
  v_.resize(n_);
  w_.resize(n_);
  I_.resize(n_);
  Ic_.resize(n_);
  Bc_.resize(n_);
  r1_.resize(n_);
  r2_.resize(n_);
  e_.resize(n_);
  a_.resize(n_);
  c_.resize(n_);
  F_.resize(n_);
  g_.resize(n_);
  std::vector<Vec6> h(n_);  // I v
  // base to tip: the kernel's poses and twists (J1, J2), then the columns about O  [CM18,
  // forward pass]
  body_kinematics_BaseToTip(tree, s.q.data(), s.u.data(), rnea_);
  for (int i = 0; i < n_; ++i) {
    const TreeJoint& t = tree.joints[i];
    const JointPlacementT<double>& J = rnea_.joint[i];
    const BodyState& C = rnea_.body[t.body];
    parent_[i] = t.parent;
    col_[i] = t.nu == 1 ? t.u_offset : -1;
    const Vec6 vp = t.parent < 0 ? Vec6::Zero() : v_[t.parent];
    S_[i].setZero();
    if (t.nu == 1) {
      // S's column (in F) is the velocity of the child's point at the anchor and its rate
      // of turn; here seen at the world origin
      const Vec3 ang = J.QE * J.motion.S.col(0).tail<3>();
      S_[i].head<3>() = J.QE * J.motion.S.col(0).head<3>() + J.x_A.cross(ang);
      S_[i].tail<3>() = ang;
    }
    armature_[i] = t.armature;
    v_[i] << C.v + C.x.cross(C.w), C.w;  // (v̄ + x̄ × ω; ω): the twist about O
    w_[i] = cross_m(vp, S_[i]);
    const Body& b = m.bodies()[t.body];
    const Mat3 cx = hat(C.x);
    const Mat3 Jc = b.rigid() ? Mat3(C.Q * b.inertia * C.Q.transpose()) : Mat3(Mat3::Zero());
    Mat6& I = I_[i];
    I.block<3, 3>(0, 0) = b.mass * Mat3::Identity();
    I.block<3, 3>(0, 3) = -b.mass * cx;
    I.block<3, 3>(3, 0) = b.mass * cx;
    I.block<3, 3>(3, 3) = Jc - b.mass * cx * cx;
    h[i] = I * v_[i];
    Ic_[i] = I;
    Bc_[i] = inertia_rate(v_[i], b.mass, C.x, Jc);
  }
  // tip to base: the subtrees' Ic, Σ İ and momenta; then Bc = Σ İ + (· ×* Σ h)
  for (int i = n_ - 1; i >= 0; --i) {
    const int p = parent_[i];
    if (p >= 0) {
      Ic_[p] += Ic_[i];
      Bc_[p] += Bc_[i];
      h[p] += h[i];
    }
    Bc_[i] += cross_f_bar(h[i]);
    r1_[i] = Ic_[i] * S_[i];
    r2_[i] = Bc_[i].transpose() * S_[i];
    e_[i] = 2.0 * Ic_[i] * w_[i] + Bc_[i] * S_[i];
  }
}

void RneaDerivatives::accelerations(const Eigen::VectorXd& udot, Eigen::VectorXd& tau) {
  const TreeModel& tree = m_.tree();
  // the kernel's accelerations, wrenches with gravity and subtree sums (N1–N5): F_i, τ
  rnea_accelerations_BaseToTip(tree, udot.data(), rnea_);
  rnea_wrenches<double>(m_, nullptr, rnea_);
  tau.setZero(tree.nu);
  rnea_forces_TipToBase(tree, rnea_.joint, rnea_.F, tau.data());
  Vec6 a0 = Vec6::Zero();
  a0.head<3>() = -m_.gravity();
  const Vec6 zero = Vec6::Zero();
  for (int i = 0; i < n_; ++i) {
    const int b = tree.joints[i].body;
    const BodyState& C = rnea_.body[b];
    const SpatialMotion& A = rnea_.a[b];
    // the spatial acceleration about O, d/dt (v̄ + x̄ × ω) = ā + v̄ × ω + x̄ × α, less g
    a_[i] << A.linear - m_.gravity() + C.v.cross(C.w) + C.x.cross(A.angular), A.angular;
    F_[i] << rnea_.F[b].force, rnea_.F[b].moment;
    const int p = parent_[i];
    c_[i] = cross_m(p < 0 ? a0 : a_[p], S_[i]) + cross_m(p < 0 ? zero : v_[p], w_[i]);
  }
  for (int i = n_ - 1; i >= 0; --i) g_[i] = cross_f(S_[i], F_[i]) + Ic_[i] * c_[i] + Bc_[i] * w_[i];
}

void RneaDerivatives::tau(const Eigen::VectorXd& udot, Eigen::VectorXd& tau) {
  accelerations(udot, tau);
}

void RneaDerivatives::derivatives(const Eigen::VectorXd& udot, Eigen::VectorXd& tau,
                                  Eigen::MatrixXd& dq, Eigen::MatrixXd& du, Eigen::MatrixXd* M) {
  accelerations(udot, tau);
  const int nu = m_.tree().nu;
  dq.setZero(nu, nu);
  du.setZero(nu, nu);
  if (M) M->setZero(nu, nu);
  // packed so that each pair costs three dot products: row i, column j ⪯ i from
  // (Ic_i S_i; Bc_iᵀ S_i)·(c_j; w_j) and ·(2 w_j; S_j); row j, column i from S_j·(g_i, e_i)
  using Vec12 = Eigen::Matrix<double, 12, 1>;
  std::vector<Vec12> row(n_), qcol(n_), ucol(n_);
  std::vector<Eigen::Matrix<double, 6, 2>> ge(n_);
  for (int i = 0; i < n_; ++i) {
    row[i] << r1_[i], r2_[i];
    qcol[i] << c_[i], w_[i];
    ucol[i] << 2.0 * w_[i], S_[i];
    ge[i] << g_[i], e_[i];
  }
  // [CM18, backward pass]
  for (int i = 0; i < n_; ++i) {
    const int ci = col_[i];
    if (ci < 0) continue;
    for (int j = i; j >= 0; j = parent_[j]) {
      const int cj = col_[j];
      if (cj < 0) continue;
      dq(ci, cj) = row[i].dot(qcol[j]);
      du(ci, cj) = row[i].dot(ucol[j]);
      if (M) (*M)(ci, cj) = (*M)(cj, ci) = r1_[i].dot(S_[j]);
      if (j == i) continue;
      const Eigen::Matrix<double, 1, 2> up = S_[j].transpose() * ge[i];
      dq(cj, ci) = up(0);
      du(cj, ci) = up(1);
    }
  }
}

}  // namespace detail
}  // namespace appell
