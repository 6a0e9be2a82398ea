// Internal to engine/formulations/recursive/: the passes' per-evaluation workspace and the joint
// blocks.
//
// Per tree body i (tree order, parent[i] < i) and per joint quasi-velocity (joint i's at
// tree.joints[i].u_offset, so that a joint's columns form one contiguous 6 × nu block).
#pragma once

#include <vector>

#include "appell/spatial.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/model/tree.hpp"

namespace appell {

// Per tree body, per evaluation.  Fields are written by the passes named.
struct TreeBodyWork {
  Mat6 IA;           // the body's own M_i (R1) by kinematics_BaseToTip, then the
                     // articulated inertia (R6) by inertia_bias_TipToBase
  SpatialMotion c;   // velocity-product acceleration (R3); by kinematics_BaseToTip
  Mat6 Ia;           // IA condensed onto the joint (R8), a non-root's; by inertia_bias_TipToBase
  SpatialForce Iac;  // Ia c; by inertia_bias_TipToBase (velocities_BaseToTip for a new u)
  SpatialForce f;    // applied body-space force (R1), plus extra-row forces
  SpatialForce pA;   // bias (R6); by the bias passes
  SpatialMotion a;   // acceleration (R11); by accelerations_BaseToTip
  Vec3 r;            // x̄_i − x̄_p; by kinematics_BaseToTip
};

// A joint-space force (Force::joint_space): model force `force` on tree joint `joint`
struct TauForce {
  int force;
  int joint;
};

struct RecursiveWorkspace {
  explicit RecursiveWorkspace(const Model& m);
  std::vector<TreeBodyWork> w;       // tree order                                  (nbody)
  std::vector<Vec6> S;               // motion subspace (R2); by kinematics_BaseToTip (tree.nu)
  std::vector<Vec6> U;               // IA S (R7); by inertia_bias_TipToBase         (tree.nu)
  std::vector<double> Dinv;          // (Sᵀ IA S)⁻¹, nu × nu per joint (R7)         (Σ nu²)
  std::vector<int> dinv_offset;      // joint → its D⁻¹ in Dinv                      (nbody)
  Eigen::VectorXd uu;                // −Sᵀ pA (R9); by the bias passes              (tree.nu)
  Eigen::MatrixXd G;                 // A M⁻¹ Aᵀ of the extra rows (R13)            (m × m)
  Eigen::VectorXd e, scale, lambda;  // right side, scaling 1/ρ, multipliers       (m)
  Eigen::VectorXd rho;               // ρ of every model row (rank_policy.hpp)     (nrows)
  Eigen::MatrixXd V;                 // eigenvectors of the scaled G                   (m × m)
  std::vector<int> row_constraint;   // extra row → model constraint              (m)
  Eigen::VectorXd q, u;              // joint coordinates of a maximal state   (tree.nq, .nu)
  Eigen::VectorXd udot;              // joint quasi-accelerations u̇ (tree.nu); by pass 3
  Eigen::VectorXd tau;               // joint-space applied forces; by generalized_forces (tree.nu)
  std::vector<TauForce> tau_forces;  // the forces added into tau, found for `tau_model`
  const Model* tau_model = nullptr;  // the model they were found for
  std::vector<char> in_tau;          // per model force: added into tau, not as wrenches
  std::vector<char> joint_tau;       // per tree joint: some force adds into its tau   (nbody)
  // the articulated inertias, U and D⁻¹ are those of the last kinematics_BaseToTip's q (set
  // by inertia_bias_TipToBase, cleared by kinematics_BaseToTip): the contact stepper's
  // joint-space route leaves them out, and what reads them runs the passes first
  bool articulated = false;
};

// the forces that go into tau (ws.tau_forces, in_tau, joint_tau); by the constructor, and
// again (allocating) when the Data is used with another Model of the same sizes
void find_joint_space_forces(const Model& m, RecursiveWorkspace& ws);
// tau from the joint coordinates q, u: Σ of the joint-space forces' τ (R1')
void generalized_forces(const Model& m, const Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Eigen::Ref<const Eigen::VectorXd>& u, RecursiveWorkspace& ws);
// joint i's tau as the wrench (force f; moment n about the anchor x_A) on its child, whose
// centre is x_C
SpatialForce tau_wrench_at_anchor(const TreeModel& tree, const RecursiveWorkspace& ws, int i,
                                  const Vec3& x_A, const Vec3& x_C);
// tau as body wrenches added into d.applied and d.F, for what reads them after a solve
void add_tau_wrenches(const Model& m, Data& d, const RecursiveWorkspace& ws);

// the passes, in the order solve_recursive runs them (one file each)
void kinematics_BaseToTip(const Model& m, const TreeModel& tree,
                          const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& u, Data& d,
                          RecursiveWorkspace& ws);
// The body twists and c_i at new joint rates u, the poses, S_i and the articulated
// inertias kept from the last kinematics_BaseToTip and inertia_bias_TipToBase at the same q
// (w.Iac = w.Ia c_i anew): what bias_TipToBase with c then needs
void velocities_BaseToTip(const Model& m, const TreeModel& tree,
                          const Eigen::Ref<const Eigen::VectorXd>& q,
                          const Eigen::Ref<const Eigen::VectorXd>& u, Data& d,
                          RecursiveWorkspace& ws);
// each body's own force f_i into w.f (R1) (its M_i is written by kinematics_BaseToTip)
void body_forces(const TreeModel& tree, const Data& d, RecursiveWorkspace& ws);
void inertia_bias_TipToBase(const TreeModel& tree, RecursiveWorkspace& ws);
// with_c: the biases of the applied problem (c and τ); without: the response to w.f alone.
// [begin, end): the tree indices to pass over (end −1: all) — a whole subtree, contiguous in
// tree order, whose root has no parent, answers on its own.
void bias_TipToBase(const TreeModel& tree, RecursiveWorkspace& ws, bool with_c, int begin = 0,
                    int end = -1);
void accelerations_BaseToTip(const TreeModel& tree, RecursiveWorkspace& ws, bool with_c,
                             int begin = 0, int end = -1);
// B ← H⁻¹ B (tree.nu × K, a row per quasi-velocity) by the factor inertia_bias_TipToBase
// left, K columns at once (articulated_solve.cpp)
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
struct ArticulatedSolveWork {
  std::vector<Vec3> x;                         // the bodies' centres
  Eigen::Matrix<double, 6, Eigen::Dynamic> S;  // S and U about the world origin (tree.nu)
  Eigen::Matrix<double, 6, Eigen::Dynamic> U;
  RowMatrix blocks;        // 6 rows per body: bias forces, then accelerations
  std::vector<char> held;  // per body: whether its block holds anything yet
};
// false when the factor does not hold (a D⁻¹ not finite or without a positive diagonal: H
// is not positive definite); else S and U carried to the world origin into work, for any
// number of articulated_solve calls at this factor.  O(n)
bool articulated_factor_at_origin(const TreeModel& tree, const RecursiveWorkspace& ws,
                                  ArticulatedSolveWork& work);
// after articulated_factor_at_origin.  O(n K)
void articulated_solve(const TreeModel& tree, const RecursiveWorkspace& ws, RowMatrix& B,
                       ArticulatedSolveWork& work);
void solve_extra_rows(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws);
// After kinematics_BaseToTip and the extra rows' terms: ws.G = J H⁻¹ Jᵀ of the extra rows
// (R13, unscaled) and R = H⁻¹ Jᵀ (tree.nu × rows), the joint-space responses to their unit
// forces, J the rows' joint-space Jacobian and H the tree's mass matrix, never formed.
// O(n·m + m²); what the joint-space projections need (engine/formulations/projection.hpp).
void extra_row_responses(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws,
                         Eigen::MatrixXd& R);
void joint_multipliers(const Model& m, const TreeModel& tree, Data& d, RecursiveWorkspace& ws);
// For responses on top of a solve (engine/contact/delassus_tree.cpp), after solve_extra_rows:
// A a of the extra rows at the bodies' w.a
void extra_rows_times_a(const Model& m, const TreeModel& tree, const Data& d,
                        const RecursiveWorkspace& ws, Eigen::Ref<Eigen::VectorXd> out);
// the forces Aᵀ λ of the extra rows added into the bodies' w.f
void add_extra_row_forces(const Model& m, const TreeModel& tree, const Data& d,
                          const Eigen::Ref<const Eigen::VectorXd>& lambda, RecursiveWorkspace& ws);
// y = G⁺ e with the last solve's pseudo-inverse of the extra rows' G (same scaling and
// rank as that solve's λ)
void solve_extra_pinv(const TreeModel& tree, const Data& d, const RecursiveWorkspace& ws,
                      const Eigen::Ref<const Eigen::VectorXd>& e, Eigen::Ref<Eigen::VectorXd> y);
// G ← diag(eigenvalues), V ← eigenvectors of the symmetric G; never allocates
void symmetric_eigen_jacobi(Eigen::MatrixXd& G, Eigen::MatrixXd& V);

// joint i's S, U (6 × K), D⁻¹ (K × K), uu and u̇ (K): views into the flat arrays
template <int K>
struct JointBlocks {
  Eigen::Map<Eigen::Matrix<double, 6, K>> S, U;
  Eigen::Map<Eigen::Matrix<double, K, K>> Dinv;
  Eigen::Map<Eigen::Matrix<double, K, 1>> uu, udot;
};

template <int K>
inline JointBlocks<K> blocks(const TreeModel& tree, RecursiveWorkspace& ws, int i) {
  const int o = tree.joints[i].u_offset;
  return {Eigen::Map<Eigen::Matrix<double, 6, K>>(ws.S[o].data()),
          Eigen::Map<Eigen::Matrix<double, 6, K>>(ws.U[o].data()),
          Eigen::Map<Eigen::Matrix<double, K, K>>(ws.Dinv.data() + ws.dinv_offset[i]),
          Eigen::Map<Eigen::Matrix<double, K, 1>>(ws.uu.data() + o),
          Eigen::Map<Eigen::Matrix<double, K, 1>>(ws.udot.data() + o)};
}

// fn(std::integral_constant<int, nu>) for the joint sizes that occur; nothing for nu = 0
// (build_tree admits no other size)
template <typename Fn>
inline void dispatch(int nu, Fn&& fn) {
  switch (nu) {
    case 0:
      break;
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
      __builtin_unreachable();
  }
}

}  // namespace appell
