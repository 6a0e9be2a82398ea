// Analytical derivatives of the recursive Newton–Euler τ for trees of every joint type
// (engine/formulations/recursive/rnea_derivatives.cpp): the path of appell/derivatives.hpp
// for trees without extra rows.  Private to the library.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "appell/data.hpp"
#include "appell/model.hpp"
#include "appell/spatial.hpp"
#include "engine/assembly/rnea.hpp"

namespace appell {
namespace detail {

// The world-frame kinematics of the tree at one state, then τ and its derivatives at any
// u̇.  τ is the recursion's alone: no joint-space forces, no armature.  Throws
// std::invalid_argument for a joint type that gives no derivatives of its motion
// (JointType::motion_tangent).
class RneaDerivatives {
 public:
  // poses, motion columns, velocities, composite inertias and each joint's own terms at s.
  // O(n)
  RneaDerivatives(const Model& m, const State& s);
  // τ(q, u, u̇) (nu).  O(n)
  void tau(const Eigen::VectorXd& udot, Eigen::VectorXd& tau);
  // τ and ∂τ/∂q (along the tangent), ∂τ/∂u at u̇ (nu, nu × nu each), and M (without
  // armature) when M is not null.  O(n · depth)
  void derivatives(const Eigen::VectorXd& udot, Eigen::VectorXd& tau, Eigen::MatrixXd& dq,
                   Eigen::MatrixXd& du, Eigen::MatrixXd* M = nullptr);

 private:
  void size_workspace(const TreeModel& tree);
  void subtree_terms(std::vector<SpatialForce>& h);
  void accelerations(const Eigen::VectorXd& udot, Eigen::VectorXd& tau);
  void own_terms(int i, const double* q, const double* u);
  // the motion column of quasi-velocity b
  SpatialMotion column(int b) const { return SpatialMotion::from_vec(S_.col(b)); }

  const Model& m_;
  RneaWork rnea_;  // the kernel's bodies, joints, accelerations and subtree wrenches
  int n_ = 0;
  std::vector<int> parent_;  // tree index of the parent, −1 for the world
  std::vector<int> col_;     // u index of tree joint i's first column
  std::vector<int> ncol_;    // its number of columns (nu)
  std::vector<char> own_;  // whether its S moves with its own q, or Ṡu ≠ 0 (not a turn, slide)
  std::vector<int> hat_;   // the offset of its first Ŝ_ab in Shat_, Δ_
  // Motions and forces in the world frame about the world origin; per tree joint:
  std::vector<SpatialMotion> v_;  // the body's velocity
  std::vector<Mat6> I_;           // the body's inertia
  std::vector<Mat6> Ic_;          // the subtree's inertia
  std::vector<Mat6> Bc_;          // Σ over the subtree of İ_k + (· ×* I_k v_k)
  // the motion columns S_b, one per quasi-velocity b (column of joint j(b)), as one 6 × nu
  // matrix
  Eigen::Matrix<double, 6, Eigen::Dynamic> S_;
  // per quasi-velocity b:
  std::vector<int> up_;           // the column before b on the path to the root, −1 at the root
  std::vector<SpatialMotion> w_;  // V̂_b − S_b × v_j: with S_b × v_k, ∂v_k/∂q_b
  std::vector<SpatialMotion> y_;  // Ĉ_b + v_λ × S_b − S_b × v_j: with S_b × v_k, ∂a_k/∂u_b
  std::vector<SpatialMotion> Vhat_;  // ∂V_j/∂q_b, V_j = Σ_a S_a u_a the joint's twist
  std::vector<SpatialMotion> Ahat_;  // the part of ∂A_j/∂q_b that does not hold u̇ (A_j below)
  std::vector<SpatialForce> r1_;     // Ic S
  std::vector<SpatialForce> r2_;     // Bcᵀ S
  std::vector<SpatialForce> e_;      // Ic y + Bc S: the subtree's ∂F/∂u_b
  // per pair a, b of one joint's columns (a fastest): Ŝ_ab = ∂S_a/∂q_b, Δ_ab = Ŝ_ab − S_b × S_a
  std::vector<SpatialMotion> Shat_, Delta_;
  // at one u̇ (the subtrees' wrenches F_i are the kernel's, rnea_.F):
  std::vector<SpatialMotion> a_;  // per joint: the body's acceleration (gravity as the world's −g)
  std::vector<SpatialMotion> c_;  // per column: with S_b × a_k + w_b × v_k, ∂a_k/∂q_b
  std::vector<SpatialForce> g_;   // per column: S_b ×* F + Ic c + Bc w, the subtree's ∂F/∂q_b
};

}  // namespace detail
}  // namespace appell
