// Analytical derivatives of inverse dynamics for trees of every joint type, after Carpentier
// & Mansard, "Analytical derivatives of rigid body dynamics algorithms", RSS 2018 (CM18
// below): the recursive Newton–Euler algorithm and its derivatives written with world-frame
// spatial quantities.  The derivation below is ours; CM18 gives the same structure (a
// forward pass of world-frame motion columns and their rates, a backward pass of composite
// quantities filling each joint's rows against its ancestors).
//
// Every motion (SpatialMotion: motion columns S_b, one per quasi-velocity b, velocities v_i,
// accelerations a_i with gravity as the world's −g) and every force (SpatialForce) is in the
// world frame about the world origin, as is the spatial inertia I_i = [[m, −m ĉ], [m ĉ,
// J − m ĉ ĉ]] of a body of centre c and central inertia J (a 6 × 6 map from motions to
// forces).  With the spatial cross products a × b and a ×* f (appell/spatial.hpp, X3, X4),
// joint j (child body j, parent λ) gives its child the twist V_j = Σ_{b ∈ j} S_b u_b and
// the recursion is  v_j = v_λ + V_j,  a_j = a_λ + v_λ × V_j + A_j,  f_j = I_j a_j +
// v_j ×* I_j v_j,  F_j = Σ_{k ⪰ j} f_k,  τ_b = S_b · F_j  (k ⪰ j: k in the subtree of j)
// [CM18, RNEA].  The joint's own terms come from its type (appell/joint_type.hpp, J1–J3):
// with X the map from F's axes at the anchor x_A to the world about O,
//   S_b = X S(q)_b,   A_j = X (S u̇ + Ṡu) + (QE ḋ × QE ω_rel; 0)                     (D1)
// the last term being the anchor's slide relative to F, (ḋ; ω_rel) = S u.
//
// Moving q along its tangent b (q̇ = N(q) e_b, J4) turns the child of j and its subtree
// rigidly by the twist S_b (that is what S is), so the world quantities of a body k ≻ j turn
// with it: ∂S_c = S_b × S_c for c of a joint below j, ∂I_k = S_b ×* I_k − I_k S_b ×.  The
// joint's own S, V_j and A_j move with q_j as its type says: Ŝ_ab = ∂S_a/∂q_b, V̂_b =
// ∂V_j/∂q_b = Σ_a Ŝ_ab u_a, Â_b = ∂A_j/∂q_b and Ĉ_b = ∂A_j/∂u_b, from the derivatives of its
// motion (JointType::motion_tangent).  Summing along the path (Jacobi's identity),
// for every body k ⪰ j  [CM18, forward pass of the RNEA derivatives]:
//   ∂v_k/∂q_b = S_b × v_k + w_b,                 w_b = V̂_b − S_b × v_j                (D2)
//   ∂a_k/∂q_b = S_b × a_k + w_b × v_k + c_b,     c_b = Â_b + v_λ × V̂_b − S_b × a_j − w_b × v_j
//   ∂v_k/∂u_b = S_b,   ∂a_k/∂u_b = S_b × v_k + y_b,   y_b = Ĉ_b + v_λ × S_b − S_b × v_j   (D3)
// and, with İ = v ×* I − I v × and Bc_i x = Σ_{k ⪰ i} (İ_k x + x ×* I_k v_k), for i ⪰ j,
//   ∂F_i/∂q_b = S_b ×* F_i + Ic_i c_b + Bc_i w_b,   ∂F_i/∂u_b = Ic_i y_b + Bc_i S_b      (D4)
// Hence, for a column a of joint i below or at j (S_b ×* F_i cancels the rigid part
// S_b × S_a of ∂S_a, which leaves Δ_ab = Ŝ_ab − S_b × S_a when a and b share a joint):
//   ∂τ_a/∂q_b = (Ic_i S_a)·c_b + (Bc_iᵀ S_a)·w_b  [+ Δ_ab·F_i],
//   ∂τ_a/∂u_b = (Ic_i S_a)·y_b + (Bc_iᵀ S_a)·S_b                                       (D5)
// and, for a column a of an ancestor of j (S_a does not move; F of a's joint changes as F_j
// does)  [CM18, backward pass]:
//   ∂τ_a/∂q_b = S_a·(S_b ×* F_j + Ic_j c_b + Bc_j w_b),   ∂τ_a/∂u_b = S_a·(Ic_j y_b + Bc_j S_b),
// with M_ab = S_a·(Ic_j S_b) (the composite-rigid-body algorithm).  A turn or a slide (S
// constant in F whatever the anchor's slide, Ṡu = 0, ḋ × ω_rel = 0) has no own terms: Ŝ =
// V̂ = Â = Ĉ = 0, w_b = v_λ × S_b, y_b = 2 w_b and c_b = a_λ × S_b + v_λ × w_b, CM18's
// 1-dof forms.
// Each pair of a column and one of its ancestors' costs three 12-vector dot products:
// O(nu · depth) in all.
//
// The poses, accelerations, subtree wrenches F_i and τ come from the Newton–Euler kernel
// (engine/assembly/rnea.hpp: centres of mass, classical accelerations), moved to the world
// origin here: v = (v̄ + x̄ × ω; ω), a = (ā − g + v̄ × ω + x̄ × α; α), F = (f; n_O).
#include "engine/formulations/recursive/rnea_derivatives.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "appell/joint_type.hpp"
#include "appell/tree.hpp"

namespace appell {
namespace detail {
namespace {

// the matrix of a ↦ a ×* f (X4)
Mat6 cross_matrix(const SpatialForce& f) {
  Mat6 H = Mat6::Zero();
  const Mat3 ff = skew(f.force);
  H.block<3, 3>(0, 3) = -ff;
  H.block<3, 3>(3, 0) = -ff;
  H.block<3, 3>(3, 3) = -skew(f.moment);
  return H;
}
// İ = v ×* I − I v ×, the rate of a world inertia carried by the velocity v: its centre
// moves at ċ = v_v + v_ω × c and its central inertia turns, J̇ = ω̂ J − J ω̂
Mat6 inertia_rate(const SpatialMotion& v, double mass, const Vec3& c, const Mat3& J) {
  const Mat3 w = skew(v.angular), cx = skew(c);
  const Mat3 cdx = skew(v.linear + v.angular.cross(c));
  Mat6 R;
  R.block<3, 3>(0, 0).setZero();
  R.block<3, 3>(0, 3) = -mass * cdx;
  R.block<3, 3>(3, 0) = mass * cdx;
  R.block<3, 3>(3, 3) = w * J - J * w - mass * (cdx * cx + cx * cdx);
  return R;
}

// X y: a motion y of joint frame F, (linear at the anchor; angular), in the world about O
SpatialMotion to_world(const JointPlacementT<double>& J, const Vec6& y) {
  const Vec3 ang = J.QE * y.tail<3>();
  return {J.QE * y.head<3>() + J.x_A.cross(ang), ang};
}

}  // namespace

// the workspace's vectors sized for the tree, and each joint's place in Ŝ and Δ
void RneaDerivatives::size_workspace(const TreeModel& tree) {
  n_ = static_cast<int>(tree.joints.size());
  const int nu = tree.nu;
  parent_.resize(n_);
  col_.resize(n_);
  ncol_.resize(n_);
  own_.resize(n_);
  hat_.resize(n_);
  v_.resize(n_);
  I_.resize(n_);
  Ic_.resize(n_);
  Bc_.resize(n_);
  a_.resize(n_);
  up_.resize(nu);
  S_.setZero(6, nu);
  for (std::vector<SpatialMotion>* x : {&w_, &y_, &Vhat_, &Ahat_, &c_}) x->assign(nu, {});
  for (std::vector<SpatialForce>* x : {&r1_, &r2_, &e_, &g_}) x->assign(nu, {});
  int nhat = 0;
  for (int i = 0; i < n_; ++i) {
    const TreeJoint& t = tree.joints[i];
    own_[i] = t.nu > 0 && t.shape != JointShape::Turn && t.shape != JointShape::Slide;
    hat_[i] = nhat;
    if (own_[i]) nhat += t.nu * t.nu;
  }
  Shat_.assign(nhat, {});
  Delta_.assign(nhat, {});
}

RneaDerivatives::RneaDerivatives(const Model& m, const State& s) : m_(m), rnea_(m) {
  const TreeModel& tree = m.tree();
  size_workspace(tree);
  std::vector<SpatialForce> h(n_);  // I v
  // base to tip: the kernel's poses and twists (J1, J2), then the columns about O and each
  // joint's own terms  [CM18, forward pass]
  body_kinematics_BaseToTip(tree, s.q.data(), s.u.data(), rnea_);
  for (int i = 0; i < n_; ++i) {
    const TreeJoint& t = tree.joints[i];
    const JointPlacementT<double>& J = rnea_.joint[i];
    const BodyState& C = rnea_.body[t.body];
    const int o = t.u_offset;
    parent_[i] = t.parent;
    col_[i] = o;
    // the column before each of this joint's on the path to the root
    int before = -1;
    for (int j = t.parent; j >= 0 && before < 0; j = parent_[j])
      if (ncol_[j] > 0) before = col_[j] + ncol_[j] - 1;
    for (int k = 0; k < t.nu; ++k) up_[o + k] = k == 0 ? before : o + k - 1;
    ncol_[i] = t.nu;
    // S's columns (in F) are the velocity of the child's point at the anchor and its rate
    // of turn; here seen at the world origin                                          (D1)
    for (int k = 0; k < t.nu; ++k) S_.col(o + k) = to_world(J, J.motion.S.col(k)).vec();
    v_[i] = SpatialMotion(C.v, C.w).shifted(-C.x);  // (v̄ + x̄ × ω; ω): the twist about O
    if (own_[i]) own_terms(i, s.q.data() + t.q_offset, s.u.data() + t.u_offset);
    const SpatialMotion vp = t.parent < 0 ? SpatialMotion() : v_[t.parent];
    for (int b = o; b < o + t.nu; ++b) {  //                                         (D2, D3)
      const SpatialMotion Sb = column(b);
      if (own_[i]) {
        w_[b] = Vhat_[b] - cross(Sb, v_[i]);
        y_[b] += cross(vp, Sb) - cross(Sb, v_[i]);  // y_ holds Ĉ_b
      } else {                                      // CM18's 1-dof forms
        w_[b] = cross(vp, Sb);
        y_[b] = 2.0 * w_[b];
      }
    }
    const Body& b = m.bodies()[t.body];
    const Mat3 cx = skew(C.x);
    const Mat3 Jc = world_inertia(b, C);
    Mat6& I = I_[i];
    I.block<3, 3>(0, 0) = b.mass * Mat3::Identity();
    I.block<3, 3>(0, 3) = -b.mass * cx;
    I.block<3, 3>(3, 0) = b.mass * cx;
    I.block<3, 3>(3, 3) = Jc - b.mass * cx * cx;
    h[i] = I * v_[i];
    Ic_[i] = I;
    Bc_[i] = inertia_rate(v_[i], b.mass, C.x, Jc);
  }
  subtree_terms(h);
}

// tip to base: the subtrees' Ic, Σ İ and momenta h (each body's I v on entry); then
// Bc = Σ İ + (· ×* Σ h), and per column Ic S, Bcᵀ S and e                          (D4)
void RneaDerivatives::subtree_terms(std::vector<SpatialForce>& h) {
  for (int i = n_ - 1; i >= 0; --i) {
    const int p = parent_[i];
    if (p >= 0) {
      Ic_[p] += Ic_[i];
      Bc_[p] += Bc_[i];
      h[p] += h[i];
    }
    Bc_[i] += cross_matrix(h[i]);
    for (int b = col_[i]; b < col_[i] + ncol_[i]; ++b) {
      const SpatialMotion Sb = column(b);
      r1_[b] = Ic_[i] * Sb;
      r2_[b] = SpatialForce::from_vec(Bc_[i].transpose() * S_.col(b));
      e_[b] = Ic_[i] * y_[b] + Bc_[i] * Sb;  //                                        (D4)
    }
  }
}

// Ŝ_ab, Δ_ab, V̂_b, Â_b's part without u̇ and Ĉ_b (into y_) of tree joint i at its q, u, from
// its type's motion and that motion's derivatives along each tangent direction of q and u
void RneaDerivatives::own_terms(int i, const double* q, const double* u) {
  const TreeJoint& t = m_.tree().joints[i];
  const JointPlacementT<double>& J = rnea_.joint[i];
  const int K = t.nu, o = col_[i];
  const Mat3& QE = J.QE;
  const Vec6& V = J.V_J;  // (ḋ; ω_rel) = S u, in F
  // the change of X y when y changes by dy and the anchor moves by dx (world)
  auto moved = [&](const Vec6& y, const Vec6& dy, const Vec3& dx) {
    SpatialMotion r = to_world(J, dy);
    r.linear += dx.cross(QE * y.tail<3>());
    return r;
  };
  // the slide term's change, X (δḋ × ω_rel + ḋ × δω_rel; 0), for the change δV of S u
  auto slide = [&](const Vec6& dV) {
    return SpatialMotion(QE * (dV.head<3>().cross(V.tail<3>()) + V.head<3>().cross(dV.tail<3>())),
                         Vec3::Zero());
  };
  double e[8], dq[8], du[8];
  JointMotion jm, djm;
  auto tangent = [&](const double* along_q, const double* along_u) {
    if (!t.type->motion_tangent(q, u, along_q, along_u, jm, djm))
      throw std::invalid_argument(std::string("derivatives: joint type '") + t.type->name() +
                                  "' gives no derivatives of its motion "
                                  "(JointType::motion_tangent)");
  };
  for (int b = 0; b < K; ++b) {
    std::fill(e, e + 8, 0.0);
    e[b] = 1.0;
    // along q: q̇ = N(q) e_b (J4)
    t.type->qdot(q, e, dq);
    std::fill(du, du + 8, 0.0);
    tangent(dq, du);
    const Vec3 dx = QE * djm.d;
    Vec6 dV = Vec6::Zero();  // ∂(S u)/∂q_b, in F
    SpatialMotion& Vhat = Vhat_[o + b];
    Vhat.setZero();
    for (int a = 0; a < K; ++a) {
      const int ab = hat_[i] + a + K * b;
      Shat_[ab] = moved(jm.S.col(a), djm.S.col(a), dx);
      Delta_[ab] = Shat_[ab] - cross(column(o + b), column(o + a));
      Vhat += u[a] * Shat_[ab];
      dV += djm.S.col(a) * u[a];
    }
    // Â_b less Σ_a Ŝ_ab u̇_a: X ∂(Ṡu) and the slide term's change                   (D1)
    Ahat_[o + b] = moved(jm.c, djm.c, dx) + slide(dV);
    // along u_b: Ĉ_b = X ∂(Ṡu)/∂u_b and the slide term's change, kept in y_
    std::fill(dq, dq + 8, 0.0);
    tangent(dq, e);
    y_[o + b] = to_world(J, djm.c) + slide(jm.S.col(b));
  }
}

void RneaDerivatives::accelerations(const Eigen::VectorXd& udot, Eigen::VectorXd& tau) {
  const TreeModel& tree = m_.tree();
  // the kernel's accelerations, wrenches with gravity and subtree sums (N1–N5): F_i, τ
  rnea_accelerations_BaseToTip(tree, udot.data(), rnea_);
  rnea_wrenches<double>(m_, nullptr, rnea_);
  tau.setZero(tree.nu);
  rnea_forces_TipToBase(tree, rnea_.joint, rnea_.F, tau.data());
  const SpatialMotion a0(-m_.gravity(), Vec3::Zero());  // the world's acceleration, −g
  for (int i = 0; i < n_; ++i) {
    const BodyState& C = rnea_.body[tree.joints[i].body];
    const SpatialMotion& A = rnea_.a[tree.joints[i].body];
    // the spatial acceleration about O, d/dt (v̄ + x̄ × ω) = ā + v̄ × ω + x̄ × α, less g
    a_[i] = A.shifted(-C.x) + a0;
    a_[i].linear += C.v.cross(C.w);
  }
  for (int i = 0; i < n_; ++i) {
    const int p = parent_[i], o = col_[i], K = ncol_[i];
    const SpatialForce& F = rnea_.F[tree.joints[i].body];
    for (int b = o; b < o + K; ++b) {  //                                               (D2)
      const SpatialMotion Sb = column(b);
      SpatialMotion& c = c_[b];
      if (own_[i]) {
        c = Ahat_[b] - cross(Sb, a_[i]) - cross(w_[b], v_[i]);
        if (p >= 0) c += cross(v_[p], Vhat_[b]);
        for (int a = 0; a < K; ++a) c += udot(o + a) * Shat_[hat_[i] + a + K * (b - o)];
      } else {  // CM18's 1-dof form
        c = cross(p < 0 ? a0 : a_[p], Sb);
        if (p >= 0) c += cross(v_[p], w_[b]);
      }
      g_[b] = cross(Sb, F) + Ic_[i] * c + Bc_[i] * w_[b];  //                          (D4)
    }
  }
}

void RneaDerivatives::tau(const Eigen::VectorXd& udot, Eigen::VectorXd& tau) {
  accelerations(udot, tau);
}

void RneaDerivatives::derivatives(const Eigen::VectorXd& udot, Eigen::VectorXd& tau,
                                  Eigen::MatrixXd& dq, Eigen::MatrixXd& du, Eigen::MatrixXd* M) {
  accelerations(udot, tau);
  const TreeModel& tree = m_.tree();
  const int nu = tree.nu;
  dq.setZero(nu, nu);
  du.setZero(nu, nu);
  if (M) M->setZero(nu, nu);
  // packed so that each pair costs three dot products: row a, column b from
  // (Ic S_a; Bcᵀ S_a)·(c_b; w_b) and ·(y_b; S_b); row b, column a from S_b·(g_a, e_a); and
  // M_ab from (Ic S_a)·S_b
  using Vec12 = Eigen::Matrix<double, 12, 1>;
  std::vector<Vec12> row(nu), qcol(nu), ucol(nu);
  std::vector<Eigen::Matrix<double, 6, 2>> ge(nu);
  for (int b = 0; b < nu; ++b) {
    row[b] << r1_[b].force, r1_[b].moment, r2_[b].force, r2_[b].moment;
    qcol[b] << c_[b].linear, c_[b].angular, w_[b].linear, w_[b].angular;
    ucol[b] << y_[b].linear, y_[b].angular, S_.col(b);
    ge[b].col(0) << g_[b].force, g_[b].moment;
    ge[b].col(1) << e_[b].force, e_[b].moment;
  }
  // [CM18, backward pass]                                                              (D5)
  for (int i = 0; i < n_; ++i) {
    const int oi = col_[i], Ki = ncol_[i];
    const SpatialForce& F = rnea_.F[tree.joints[i].body];
    // the joint's own block: both orders of its pairs, and the part of ∂S_a/∂q_b that is
    // not the rigid turn S_b × S_a
    for (int a = oi; a < oi + Ki; ++a)
      for (int b = oi; b < oi + Ki; ++b) {
        dq(a, b) = row[a].dot(qcol[b]);
        du(a, b) = row[a].dot(ucol[b]);
        if (M) (*M)(a, b) = row[a].head<6>().dot(S_.col(b));
        if (own_[i]) dq(a, b) += dot(F, Delta_[hat_[i] + (a - oi) + Ki * (b - oi)]);
      }
    // against each ancestor's columns b, walked up the path: row a from below, row b from
    // above
    for (int a = oi; a < oi + Ki; ++a)
      for (int b = Ki > 0 ? up_[oi] : -1; b >= 0; b = up_[b]) {
        dq(a, b) = row[a].dot(qcol[b]);
        du(a, b) = row[a].dot(ucol[b]);
        if (M) (*M)(a, b) = (*M)(b, a) = row[a].head<6>().dot(S_.col(b));
        const Eigen::Matrix<double, 1, 2> up = S_.col(b).transpose() * ge[a];
        dq(b, a) = up(0);
        du(b, a) = up(1);
      }
  }
}

}  // namespace detail
}  // namespace appell
