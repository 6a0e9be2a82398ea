// Recursive Gibbs–Appell formulation: three passes over the tree (docs/recursive.md).
#include "engine/recursive.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <type_traits>

#include "constraints/constraint.hpp"
#include "engine/forward.hpp"
#include "engine/rank_policy.hpp"

namespace appell {

RecursiveCache::RecursiveCache() = default;
RecursiveCache::~RecursiveCache() = default;
RecursiveCache::RecursiveCache(const RecursiveCache&) {}
RecursiveCache& RecursiveCache::operator=(const RecursiveCache&) {
  workspace.reset();
  return *this;
}

RecursiveWorkspace::RecursiveWorkspace(const Model& m)
    : model(&m), tree(build_tree(m)), w(m.nbody()) {
  const int nx = tree.nrows_extra;
  G.resize(nx, nx);
  e.resize(nx);
  scale.resize(nx);
  lambda.resize(nx);
  V.resize(nx, nx);
  rho.setZero(m.nrows());
  S.assign(tree.nu, Vec6::Zero());
  U.assign(tree.nu, Vec6::Zero());
  int nd = 0;
  for (const TreeJoint& t : tree.joints) {
    dinv_offset.push_back(nd);
    nd += t.nu * t.nu;
  }
  Dinv.assign(nd, 0.0);
  uu.setZero(tree.nu);
  for (int c : tree.extra)
    for (int k = 0; k < m.constraints()[c]->rows(); ++k) row_constraint.push_back(c);
  udot.setZero(tree.nu);
}

RecursiveWorkspace& recursive_workspace(const Model& m, Data& d) {
  auto& ws = d.recursive.workspace;
  if (!ws || ws->model != &m || static_cast<int>(ws->w.size()) != m.nbody())
    ws = std::make_unique<RecursiveWorkspace>(m);
  return *ws;
}

namespace {

const BodyState kRestState{};

// Xᵀ F: a wrench at the child's centre moved to the parent's (R4)
inline Vec6 shift_force(const Vec3& r, const Vec6& F) {
  Vec6 out;
  out.head<3>() = F.head<3>();
  out.tail<3>() = F.tail<3>() + r.cross(F.head<3>());
  return out;
}

// X a: the parent's acceleration seen at the child's centre (R2)
inline Vec6 shift_motion(const Vec3& r, const Vec6& a) {
  Vec6 out;
  out.head<3>() = a.head<3>() + a.tail<3>().cross(r);
  out.tail<3>() = a.tail<3>();
  return out;
}

// IA_p += Xᵀ Ia X, block by block: Ia = [A B; Bᵀ C], R = r×, B' = B − A R  (R5)
inline void add_shifted_inertia(const Vec3& r, const Mat6& Ia, Mat6& IA_p) {
  const Mat3 R = skew(r);
  const Mat3 A = Ia.topLeftCorner<3, 3>();
  const Mat3 B = Ia.topRightCorner<3, 3>();
  const Mat3 Bp = B - A * R;
  const Mat3 Cp = Ia.bottomRightCorner<3, 3>() + R * Bp - B.transpose() * R;
  IA_p.topLeftCorner<3, 3>() += A;
  IA_p.topRightCorner<3, 3>() += Bp;
  IA_p.bottomLeftCorner<3, 3>() += Bp.transpose();
  IA_p.bottomRightCorner<3, 3>() += Cp;
}

// joint i's S, U (6 × K), D⁻¹ (K × K), uu and u̇ (K): views into the workspace's flat,
// contiguous per-quasi-velocity arrays
template <int K>
struct JointBlocks {
  Eigen::Map<Eigen::Matrix<double, 6, K>> S, U;
  Eigen::Map<Eigen::Matrix<double, K, K>> Dinv;
  Eigen::Map<Eigen::Matrix<double, K, 1>> uu, udot;
};

template <int K>
inline JointBlocks<K> blocks(RecursiveWorkspace& ws, int i) {
  const int o = ws.tree.joints[i].u_offset;
  return {Eigen::Map<Eigen::Matrix<double, 6, K>>(ws.S[o].data()),
          Eigen::Map<Eigen::Matrix<double, 6, K>>(ws.U[o].data()),
          Eigen::Map<Eigen::Matrix<double, K, K>>(ws.Dinv.data() + ws.dinv_offset[i]),
          Eigen::Map<Eigen::Matrix<double, K, 1>>(ws.uu.data() + o),
          Eigen::Map<Eigen::Matrix<double, K, 1>>(ws.udot.data() + o)};
}

// U, D⁻¹ and the condensed Ia of a joint with K quasi-velocities (R7, R8)
template <int K>
inline void project_inertia(RecursiveWorkspace& ws, int i, Mat6& Ia) {
  JointBlocks<K> j = blocks<K>(ws, i);
  const TreeBodyWork& w = ws.w[i];
  const Eigen::Matrix<double, 6, K> U = w.IA * j.S;
  const Eigen::Matrix<double, K, K> D = j.S.transpose() * U;
  Eigen::Matrix<double, K, K> Dinv;
  if constexpr (K <= 4) {
    Dinv = D.inverse();
  } else {
    Dinv = D.llt().solve(Eigen::Matrix<double, K, K>::Identity());
  }
  j.U = U;
  j.Dinv = Dinv;
  Ia.noalias() = w.IA - U * Dinv * U.transpose();
}

// uu = −Sᵀ pA (R9);  returns pa = pA + Ia c + U D⁻¹ uu, the bias the parent sees (R8)
template <int K>
inline Vec6 project_bias(RecursiveWorkspace& ws, int i, bool with_c) {
  JointBlocks<K> j = blocks<K>(ws, i);
  const TreeBodyWork& w = ws.w[i];
  const Eigen::Matrix<double, K, 1> uu = -j.S.transpose() * w.pA;
  j.uu = uu;
  Vec6 pa = w.pA + j.U * (j.Dinv * uu);
  if (with_c) pa += w.Iac;
  return pa;
}

// u̇ = D⁻¹ (uu − Uᵀ a) and a += S u̇ (R10, R11)
template <int K>
inline void project_acceleration(RecursiveWorkspace& ws, int i) {
  JointBlocks<K> j = blocks<K>(ws, i);
  TreeBodyWork& w = ws.w[i];
  const Eigen::Matrix<double, K, 1> ud = j.Dinv * (j.uu - j.U.transpose() * w.a);
  j.udot = ud;
  w.a.noalias() += j.S * ud;
}

template <typename Fn>
inline void dispatch(int nu, Fn&& fn) {
  switch (nu) {
    case 1:
      fn(std::integral_constant<int, 1>{});
      break;
    case 2:
      fn(std::integral_constant<int, 2>{});
      break;
    case 3:
      fn(std::integral_constant<int, 3>{});
      break;
    case 6:
      fn(std::integral_constant<int, 6>{});
      break;
    default:
      break;  // fixed joints (nu = 0)
  }
}

// Pass 1, base to tip: S_i, c_i, r_i of every joint from the body states (R2, R3),
// and each body's own Gibbs function M_i, f_i (R1).
void tree_kinematics_BaseToTip(const Model& m, const Data& d, RecursiveWorkspace& ws) {
  const int n = static_cast<int>(ws.w.size());
  for (int i = 0; i < n; ++i) {
    const TreeJoint& t = ws.tree.joints[i];
    TreeBodyWork& w = ws.w[i];
    const BodyState& C = d.body[t.body];
    const BodyState& P = t.parent_body == kWorld ? kRestState : d.body[t.parent_body];
    const Body& body = m.bodies()[t.body];
    // the body's own Gibbs function: ½ aᵀ M a − fᵀ a  [HO21 eq. 6]          (R1)
    w.mass = body.mass;
    w.IA.setZero();
    w.IA.topLeftCorner<3, 3>().diagonal().setConstant(body.mass);
    w.IA.bottomRightCorner<3, 3>() = d.J[t.body];
    const int iu = m.u_offset(t.body);
    w.f.head<3>() = d.F.segment<3>(iu);
    if (body.rigid())
      w.f.tail<3>() = d.F.segment<3>(iu + 3);
    else
      w.f.tail<3>().setZero();
    w.r = C.x - P.x;
    w.c.setZero();
    Vec6* S = ws.S.data() + t.u_offset;  // the joint's columns
    if (t.type == TreeJointType::Free) {
      for (int k = 0; k < 6; ++k) S[k] = Vec6::Unit(k);
      continue;
    }
    if (t.type == TreeJointType::Particle) {
      for (int k = 0; k < 3; ++k) S[k] = Vec6::Unit(k);
      continue;
    }
    // motion subspace: a turn s about the anchor moves the centre by s × r_CA; a
    // slide s moves it by s                                                 (R2)
    const Vec3 x_A = C.x + C.Q * t.X_C;
    const Vec3 r_CA = C.x - x_A;
    const Vec3 w_rel = C.w - P.w;
    auto turn = [&](int k, const Vec3& s) {
      S[k].head<3>() = s.cross(r_CA);
      S[k].tail<3>() = s;
    };
    auto slide = [&](int k, const Vec3& s) {
      S[k].head<3>() = s;
      S[k].tail<3>().setZero();
    };
    // Σ ṡ u of the turns: axes fixed in P turn with ω_P, a universal's second with ω_C
    Vec3 c_w = P.w.cross(w_rel);
    Vec3 t_W = Vec3::Zero();  // the slide velocity Σ s u of the slides
    switch (t.type) {
      case TreeJointType::Revolute:
        turn(0, P.Q * t.a1_P);
        break;
      case TreeJointType::Prismatic:
        slide(0, P.Q * t.a1_P);
        t_W = (C.v - P.v) - P.w.cross(w.r);  // ω_C = ω_P
        break;
      case TreeJointType::Cylindrical: {
        const Vec3 s = P.Q * t.a1_P;
        turn(0, s);
        slide(1, s);
        t_W = (C.v + C.w.cross(x_A - C.x)) - (P.v + P.w.cross(x_A - P.x));
        break;
      }
      case TreeJointType::Universal: {
        const Vec3 s1 = P.Q * t.a1_P, s2 = C.Q * t.a2_C;
        turn(0, s1);
        turn(1, s2);
        const double u2 = s2.dot(w_rel);  // s1 ⊥ s2
        c_w = P.w.cross(w_rel - s2 * u2) + C.w.cross(s2 * u2);
        break;
      }
      case TreeJointType::Spherical:
        for (int k = 0; k < 3; ++k) turn(k, P.Q.col(k));
        break;
      default:  // fixed
        break;
    }
    // velocity products: d/dt of V_C = X V_P + S u at constant u                (R3)
    w.c.tail<3>() = c_w;
    w.c.head<3>() =
        P.w.cross(C.v - P.v) + c_w.cross(r_CA) + w_rel.cross(C.w.cross(r_CA)) + P.w.cross(t_W);
  }
}

// Pass 2, tip to base: articulated inertias IA_i and, in the same sweep, the biases
// pA_i of the applied forces w.f (R5–R9).  Keeps Ia_i c_i for later bias passes.
void inertia_bias_TipToBase(RecursiveWorkspace& ws) {
  const int n = static_cast<int>(ws.w.size());
  for (int i = 0; i < n; ++i) ws.w[i].pA = -ws.w[i].f;
  for (int i = n - 1; i >= 0; --i) {
    TreeBodyWork& w = ws.w[i];
    const int nu = ws.tree.joints[i].nu;
    Mat6 Ia = w.IA;
    Vec6 pa = w.pA;

    dispatch(nu, [&](auto K) {
      constexpr int k = decltype(K)::value;
      project_inertia<k>(ws, i, Ia);
      pa = project_bias<k>(ws, i, false);
    });
    w.Iac.noalias() = Ia * w.c;
    pa += w.Iac;  // (R8)
    const int p = ws.tree.joints[i].parent;
    if (p >= 0) {
      add_shifted_inertia(w.r, Ia, ws.w[p].IA);  // (R5)
      ws.w[p].pA += shift_force(w.r, pa);        // (R4)
    }
  }
}

// Pass 2', tip to base: biases pA_i from the forces w.f (R6, R9), with or without the
// velocity products (without: the response to a force alone, R12).
void bias_TipToBase(RecursiveWorkspace& ws, bool with_c) {
  const int n = static_cast<int>(ws.w.size());
  for (int i = 0; i < n; ++i) ws.w[i].pA = -ws.w[i].f;
  for (int i = n - 1; i >= 0; --i) {
    TreeBodyWork& w = ws.w[i];
    const int nu = ws.tree.joints[i].nu;
    Vec6 pa = w.pA;
    if (nu == 0 && with_c) pa += w.Iac;
    dispatch(nu, [&](auto K) { pa = project_bias<decltype(K)::value>(ws, i, with_c); });
    const int p = ws.tree.joints[i].parent;
    if (p >= 0) ws.w[p].pA += shift_force(w.r, pa);
  }
}

// Pass 3, base to tip: accelerations a_i and quasi-accelerations u̇_i (R10, R11).
void accelerations_BaseToTip(RecursiveWorkspace& ws, bool with_c) {
  const int n = static_cast<int>(ws.w.size());
  for (int i = 0; i < n; ++i) {
    TreeBodyWork& w = ws.w[i];
    const int p = ws.tree.joints[i].parent;
    if (p >= 0)
      w.a = shift_motion(w.r, ws.w[p].a);
    else
      w.a.setZero();
    if (with_c) w.a += w.c;
    dispatch(ws.tree.joints[i].nu,
             [&](auto K) { project_acceleration<decltype(K)::value>(ws, i); });
  }
}

// the force of row `row` of extra constraint c with multiplier `lam`, added to w.f
void add_row_force(const Model& m, const Data& d, int c, int row, double lam,
                   RecursiveWorkspace& ws) {
  const Constraint& con = *m.constraints()[c];
  const int nb = static_cast<int>(con.bodies().size());
  for (int j = 0; j < nb; ++j) {
    const int b = con.bodies()[j];
    const RowTerm& t = d.terms[m.term_offset(c) + row * nb + j];
    TreeBodyWork& w = ws.w[ws.tree.tree_index[b]];
    w.f.head<3>() += lam * t.lin;
    if (m.bodies()[b].rigid()) w.f.tail<3>() += lam * t.ang;  // [HO21 eq. 15]
  }
}

// A_row a: the row's left side on the accelerations `a` of the tree bodies
template <typename Get>
double row_times(const Model& m, const Data& d, const RecursiveWorkspace& ws, int c, int row,
                 Get&& a) {
  const Constraint& con = *m.constraints()[c];
  const int nb = static_cast<int>(con.bodies().size());
  double s = 0.0;
  for (int j = 0; j < nb; ++j) {
    const int b = con.bodies()[j];
    const RowTerm& t = d.terms[m.term_offset(c) + row * nb + j];
    const Vec6& ab = a(ws.tree.tree_index[b]);
    s += t.lin.dot(ab.head<3>());
    if (m.bodies()[b].rigid()) s += t.ang.dot(ab.tail<3>());
  }
  return s;
}

// G ← diag(eigenvalues), V ← eigenvectors of the symmetric G, by cyclic Jacobi
// rotations [Golub & Van Loan §8.5].  m is small; unlike Eigen's SelfAdjointEigenSolver
// this never allocates.
void symmetric_eigen_jacobi(Eigen::MatrixXd& G, Eigen::MatrixXd& V) {
  const int n = static_cast<int>(G.rows());
  V.setIdentity();
  for (int sweep = 0; sweep < 60; ++sweep) {
    double off = 0.0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += G(p, q) * G(p, q);
    if (off <= 1e-34 * G.diagonal().squaredNorm()) break;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (G(p, q) == 0.0) continue;
        Eigen::JacobiRotation<double> J;
        J.makeJacobi(G, p, q);
        G.applyOnTheLeft(p, q, J.adjoint());
        G.applyOnTheRight(p, q, J);
        V.applyOnTheRight(p, q, J);
      }
  }
}

// Extra rows: λ from G λ = b − A a⁰ (R12, R13), then the forces Aᵀλ join the applied ones.
void solve_extra_rows(const Model& m, Data& d, RecursiveWorkspace& ws) {
  const int nx = ws.tree.nrows_extra;
  // rows as (constraint, row-in-constraint, global row)
  auto for_rows = [&](auto&& fn) {
    int k = 0;
    for (int c : ws.tree.extra)
      for (int i = 0; i < m.constraints()[c]->rows(); ++i, ++k) fn(k, c, i, m.row_offset(c) + i);
  };
  // e = b − A a⁰                                                              (R13)
  for_rows([&](int k, int c, int i, int row) {
    ws.e(k) = d.b(row) - row_times(m, d, ws, c, i, [&](int j) -> const Vec6& { return ws.w[j].a; });
  });
  // G column by column: the response a^k to row k's unit force              (R12)
  for (auto& w : ws.w) w.f.setZero();
  for_rows([&](int k, int c, int i, int) {
    add_row_force(m, d, c, i, 1.0, ws);
    bias_TipToBase(ws, false);
    accelerations_BaseToTip(ws, false);
    add_row_force(m, d, c, i, -1.0, ws);
    for_rows([&](int k2, int c2, int i2, int) {
      ws.G(k2, k) = row_times(m, d, ws, c2, i2, [&](int j) -> const Vec6& { return ws.w[j].a; });
    });
  });
  // λ = G⁺ e on the rows scaled to unit response ρ_k = ‖A_k‖_{M⁻¹} of the maximal M: the
  // scaled G is the Schur complement of the tree rows in the unit-diagonal Ĝ, its
  // eigenvalues are the sin² θ of (P2), and dependent directions (below τ², absolute)
  // are dropped (R13; rank_policy.hpp).  A row that repeats a tree joint gives a zero
  // column here, and no longer the round-off that a unit diagonal once blew up to rank.
  row_responses(m, d, ws.rho, &ws.tree.extra);  // the tree rows are exact: only these
  const double tau = dependence_tolerance(m, d, ws.rho, &ws.tree.extra);
  d.diagnostics.rank_tolerance = tau;
  for_rows(
      [&](int k, int, int, int row) { ws.scale(k) = ws.rho(row) > 0 ? 1.0 / ws.rho(row) : 0.0; });
  ws.G.array().colwise() *= ws.scale.array();
  ws.G.array().rowwise() *= ws.scale.transpose().array();
  symmetric_eigen_jacobi(ws.G, ws.V);
  const auto ev = ws.G.diagonal();
  const auto& V = ws.V;
  ws.e = ws.scale.cwiseProduct(ws.e);
  ws.lambda.setZero();
  int rank = 0;
  for (int k = 0; k < nx; ++k)
    if (ev(k) >= tau * tau) {
      ++rank;
      ws.lambda += V.col(k) * (V.col(k).dot(ws.e) / ev(k));
    }
  ws.lambda = ws.scale.cwiseProduct(ws.lambda);
  d.diagnostics.rank += rank;
  // the applied forces plus the rows' forces                                 (R14)
  for (int i = 0; i < static_cast<int>(ws.w.size()); ++i) {
    const TreeJoint& t = ws.tree.joints[i];
    const int iu = m.u_offset(t.body);
    ws.w[i].f.head<3>() = d.F.segment<3>(iu);
    if (m.bodies()[t.body].rigid())
      ws.w[i].f.tail<3>() = d.F.segment<3>(iu + 3);
    else
      ws.w[i].f.tail<3>().setZero();
  }
  for_rows([&](int k, int c, int i, int row) {
    d.lambda(row) = ws.lambda(k);
    add_row_force(m, d, c, i, ws.lambda(k), ws);
  });
  bias_TipToBase(ws, true);
  accelerations_BaseToTip(ws, true);
  // residual and consistency of the extra rows (engine/dense.hpp's test)
  double r2 = 0.0, b2 = 0.0;
  int last = -1;
  for_rows([&](int, int c, int i, int row) {
    const double Aa = row_times(m, d, ws, c, i, [&](int j) -> const Vec6& { return ws.w[j].a; });
    const double r = Aa - d.b(row);
    r2 += r * r;
    b2 += d.b(row) * d.b(row);
    // a quick filter, tighter than check_consistency's test (it lacks the ρ s term)
    if (std::abs(r) > kConsistencyFactor * tau * (std::abs(d.b(row)) + std::abs(Aa)) && c != last) {
      d.diagnostics.inconsistent.push_back(c);
      last = c;
    }
  });
  d.diagnostics.residual = std::sqrt(r2) / (1.0 + std::sqrt(b2));
  if (!d.diagnostics.inconsistent.empty()) {
    d.diagnostics.status = SolveStatus::Inconsistent;
    d.diagnostics.message = "inconsistent constraints (no acceleration satisfies A u̇ = b): '" +
                            m.constraints()[d.diagnostics.inconsistent.front()]->name() + "'";
  }
}

// λ of one joint's R rows (R16).  The joint's rows restricted to the child C have full
// row rank for every joint type (constraints/joints.hpp), so A_jᵀ λ = (wrenches on P and
// C) has exactly one solution, and it already solves the child's block
// A_Cᵀ λ = R_i: (A_C A_Cᵀ) λ = A_C R_i, R × 6, fixed sizes, no heap.
template <int R>
void joint_lambda(const Model& m, Data& d, const TreeJoint& t, const Vec6& Rc) {
  const Constraint& con = *m.constraints()[t.constraint];
  const int nb = static_cast<int>(con.bodies().size());
  const int j = con.slot(t.body);
  Eigen::Matrix<double, R, 6> A;
  const RowTerm* terms = d.terms.data() + m.term_offset(t.constraint);
  for (int k = 0; k < R; ++k) {
    const RowTerm& rt = terms[k * nb + j];
    A.template block<1, 3>(k, 0) = rt.lin.transpose();
    A.template block<1, 3>(k, 3) = rt.ang.transpose();
  }
  // small fixed sizes: coefficient-wise products, Cholesky (LDLT when rows degenerate)
  const Eigen::Matrix<double, R, R> G = A.lazyProduct(A.transpose());
  const Eigen::Matrix<double, R, 1> AW = A.lazyProduct(Rc);
  const Eigen::LLT<Eigen::Matrix<double, R, R>> llt(G);
  auto lam = d.lambda.segment<R>(m.row_offset(t.constraint));
  if (llt.info() == Eigen::Success)
    lam = llt.solve(AW);  // (R16)
  else
    lam = G.ldlt().solve(AW);
}

// Tree joints' multipliers: the minimum-norm λ_j with A_jᵀ λ_j = R_i (R15, R16).
void joint_multipliers(const Model& m, Data& d, RecursiveWorkspace& ws) {
  for (int i = 0; i < static_cast<int>(ws.w.size()); ++i) {
    const TreeJoint& t = ws.tree.joints[i];
    if (t.constraint < 0) continue;
    const TreeBodyWork& w = ws.w[i];
    const Vec6 R = w.IA * w.a + w.pA;  // on C, at C's centre                    (R15)
    switch (m.constraints()[t.constraint]->rows()) {
      case 3:
        joint_lambda<3>(m, d, t, R);
        break;
      case 4:
        joint_lambda<4>(m, d, t, R);
        break;
      case 5:
        joint_lambda<5>(m, d, t, R);
        break;
      case 6:
        joint_lambda<6>(m, d, t, R);
        break;
      default:
        break;
    }
  }
}

void write_accelerations(const Model& m, Data& d, RecursiveWorkspace& ws) {
  for (int i = 0; i < static_cast<int>(ws.w.size()); ++i) {
    const TreeJoint& t = ws.tree.joints[i];
    const int iu = m.u_offset(t.body);
    d.udot.segment<3>(iu) = ws.w[i].a.head<3>();
    if (m.bodies()[t.body].rigid()) d.udot.segment<3>(iu + 3) = ws.w[i].a.tail<3>();
  }
}

}  // namespace

void solve_recursive(const Model& m, Data& d) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  tree_kinematics_BaseToTip(m, d, ws);
  inertia_bias_TipToBase(ws);
  accelerations_BaseToTip(ws, true);
  d.diagnostics.rank = ws.tree.ntree_rows;
  d.diagnostics.rank_tolerance = kDependentSine;
  if (ws.tree.nrows_extra > 0) solve_extra_rows(m, d, ws);
  write_accelerations(m, d, ws);
  if (d.diagnostics.status == SolveStatus::Inconsistent) {
    // confirm with the criterion every formulation uses (rank_policy.hpp), so that all
    // call the same scenes inconsistent; O(terms), allocates, on this path only
    d.diagnostics.status = SolveStatus::Ok;
    d.diagnostics.message.clear();
    d.diagnostics.inconsistent.clear();
    row_responses(m, d, ws.rho);  // every row's, for the shared test
    check_consistency(m, d, ws.rho, d.diagnostics.rank_tolerance);
  }
  joint_multipliers(m, d, ws);
}

void recursive_accelerations(const Model& m, Data& d) {
  RecursiveWorkspace& ws = recursive_workspace(m, d);
  kinematics(m, d);
  applied_forces(m, d);
  tree_kinematics_BaseToTip(m, d, ws);
  inertia_bias_TipToBase(ws);
  accelerations_BaseToTip(ws, true);
  write_accelerations(m, d, ws);
}

}  // namespace appell
