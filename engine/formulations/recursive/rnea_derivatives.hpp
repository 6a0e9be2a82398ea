// Analytical derivatives of the recursive Newton–Euler τ for trees whose joints have a
// motion subspace constant in their own frame (engine/formulations/recursive/rnea_derivatives.cpp):
// the fast path of appell/derivatives.hpp.  Private to the library.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "appell/data.hpp"
#include "appell/model.hpp"
#include "appell/spatial.hpp"
#include "engine/assembly/rnea.hpp"

namespace appell {
namespace detail {

// True when every tree joint is a turn or a slide (revolute, continuous, prismatic: one
// quasi-velocity, S constant in the joint frame) or carries no coordinate (fixed).
bool rnea_derivatives_cover(const Model& m);

// The world-frame kinematics of the tree at one state, then τ and its derivatives at any
// u̇.  τ is the recursion's alone: no joint-space forces, no armature.  Needs
// rnea_derivatives_cover(m).
class RneaDerivatives {
 public:
  // poses, motion columns, velocities and composite inertias at s.  O(n)
  RneaDerivatives(const Model& m, const State& s);
  // τ(q, u, u̇) (nu).  O(n)
  void tau(const Eigen::VectorXd& udot, Eigen::VectorXd& tau);
  // The articulated-body factor of M + diag(armature) (articulated_solve.cpp); false when
  // M is not positive definite.  O(n)
  bool factor();
  // B ← (M + diag(armature))⁻¹ B in place (nu × K, rows per quasi-velocity), after factor().
  // O(n · K)
  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  void solve(RowMatrix& B);
  // τ and ∂τ/∂q (along the tangent), ∂τ/∂u at u̇ (nu, nu × nu each), and M (without
  // armature) when M is not null.  O(n · depth)
  void derivatives(const Eigen::VectorXd& udot, Eigen::VectorXd& tau, Eigen::MatrixXd& dq,
                   Eigen::MatrixXd& du, Eigen::MatrixXd* M = nullptr);

 private:
  void accelerations(const Eigen::VectorXd& udot, Eigen::VectorXd& tau);

  const Model& m_;
  RneaWork rnea_;  // the kernel's bodies, joints, accelerations and subtree wrenches
  int n_ = 0;
  std::vector<int> parent_;  // tree index of the parent, −1 for the world
  std::vector<int> col_;     // u index of tree joint i, −1 for a fixed joint
  std::vector<double> armature_;
  // per tree joint, world frame, about the world origin, (linear; angular):
  std::vector<Vec6> S_;   // the motion column (zero for a fixed joint)
  std::vector<Vec6> v_;   // the body's velocity
  std::vector<Vec6> w_;   // v_parent × S: ∂v/∂q_i and Ṡ_i
  std::vector<Mat6> I_;   // the body's inertia
  std::vector<Mat6> Ic_;  // the subtree's inertia
  std::vector<Mat6> Bc_;  // Σ over the subtree of İ_k + (· ×* I_k v_k)
  std::vector<Vec6> r1_;  // Ic S
  std::vector<Vec6> r2_;  // Bcᵀ S
  std::vector<Vec6> e_;   // 2 Ic w + Bc S: the subtree's ∂F/∂u_i
  // at one u̇:
  std::vector<Vec6> a_;  // the body's spatial acceleration (gravity as the world's −g)
  std::vector<Vec6> c_;  // a_parent × S + v_parent × w: ∂a/∂q_i
  std::vector<Vec6> F_;  // the subtree's wrench
  std::vector<Vec6> g_;  // S ×* F + Ic c + Bc w: the subtree's ∂F/∂q_i
  // the articulated-body factor:
  std::vector<Vec6> U_;    // IA S, IA the articulated inertia
  std::vector<double> D_;  // S·IA S + armature
  RowMatrix work_;         // 6 rows per tree joint: bias forces, then accelerations
};

}  // namespace detail
}  // namespace appell
