// A joint's coordinates, rates and generalized forces read off the bodies' world states.
//
// The maximal formulations carry no joint coordinates, and forces and constraints see only
// body states (StateView).  These functions give every formulation the same joint space,
// defined by the Joint itself (its parent P and child C, whatever the spanning tree does):
//
//   F = Q_P E_P            the parent joint frame's axes in the world
//   x_A = x̄_C + Q_C X_C    the anchor, the child's material point
//   R = Fᵀ Q_C E_C,  d = E_Pᵀ (Q_Pᵀ (x_A − x̄_P) − X_P),  q = coordinates(R, d)    (inverse of J1)
//   V_J = (Fᵀ Δv; Fᵀ Δω),  Δv = v_C(x_A) − v_P(x_A),  Δω = ω_C − ω_P,  u = Sᵀ V_J   (inverse of J2)
//
// (S has orthonormal columns for every joint type.)  A generalized force τ (one entry per
// u) acts on C as the wrench (f; n) = S τ at the anchor, in F, and on P as its opposite
// at the same world point (Newton's third law), so that its power is
//   f·(F ḋ) + n·(F ω_rel) = (S τ)·V_J = τ·u                                        (G1)
// — equal and opposite, along the joint's motion subspace.
//
// The rate of u_k along the motion (for prescribed motion and reported accelerations):
// with Ṡ_kᵀ S u = −S_kᵀ Ṡ u = −S_kᵀ c (differentiate S_kᵀ S = e_kᵀ) and
// d/dt (Fᵀ w) = Fᵀ (ẇ − ω_P × w),
//   u̇_k = a_l·(v̄̇_C + ω̇_C × r_C − v̄̇_P − ω̇_P × r_P) + a_a·(ω̇_C − ω̇_P) + bias_k     (G2)
//   bias_k = a_l·(ω_C × (ω_C × r_C) − ω_P × (v_C(x_A) − v̄_P) − ω_P × Δv)
//            − a_a·(ω_P × Δω) − S_kᵀ c,
// with (a_l; a_a) = F S_k in the world, r_C = x_A − x̄_C, r_P = x_A − x̄_P, c = Ṡ u (J3).
// Cost of each function: O(1) per joint (one motion() and one coordinates() call).
#pragma once

#include <vector>

#include "appell/forces.hpp"
#include "appell/joint.hpp"

namespace appell {

// The joint frame at a state: F, the anchor, the relative twist.
struct JointFrameState {
  Mat3 F = Mat3::Identity();  // Q_P E_P
  Vec3 x_A = Vec3::Zero();    // anchor (world)
  Vec3 r_P = Vec3::Zero();    // x_A − x̄_P
  Vec3 r_C = Vec3::Zero();    // x_A − x̄_C
  Vec6 V_J = Vec6::Zero();    // (ḋ; ω_rel) in F
};
JointFrameState joint_frame_state(const Joint& j, const StateView& s);

// q (nq entries) and u (nu entries) of joint j at state s; either pointer may be null.
void joint_coordinates(const Joint& j, const StateView& s, double* q, double* u);

// Adds the wrenches of the generalized force tau (nu entries) to out[P] and out[C] (G1).
void apply_joint_force(const Joint& j, const StateView& s, const double* tau, SpatialForce* out);

// Row k of (G2): u̇_k = Σ over P and C of (lin·v̄̇ + ang·ω̇) + bias.
struct JointRateRow {
  SpatialForce parent, child;
  double bias = 0.0;
};
JointRateRow joint_rate_row(const Joint& j, const StateView& s, int k);

// Which coordinates of a type are angles (q_k and q_k + 2π give the same pose): the ones
// whose error a spring or a servo takes modulo 2π.  nq entries.
std::vector<char> periodic_coordinates(const JointType& type);
// x wrapped into (−π, π]
double wrap_angle(double x);

}  // namespace appell
