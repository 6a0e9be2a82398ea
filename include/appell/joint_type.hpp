// What a kind of joint is: one small interface, one file per type in constraints/joints/.
//
// A joint connects a parent body P and a child body C.  Each carries a joint frame: the
// anchor (X_P in P, X_C in C, from the centre of mass) and three axes (the columns of E_P
// in P's frame, E_C in C's frame), which coincide at the reference pose (t = 0 of the
// scene).  The type says how the child's frame moves in the parent's, in the parent joint
// frame F (spatial_v2's jcalc, Pinocchio's JointModel::calc):
//
//   R(q), d(q)     rotation and displacement of the child frame in F:
//                    Q_C = Q_P E_P R(q) E_Cᵀ,   x_A = x̄_P + Q_P (X_P + E_P d(q)),
//                    x̄_C = x_A − Q_C X_C                                           (J1)
//   S(q)           6 × nu motion subspace in F, each column (lin; ang): the velocity of the
//                  anchor and the angular velocity the child gets from one unit of u     (J2)
//                    (ḋ; ω_rel) = S(q) u
//   c = Ṡ u        the rate term: d/dt of S(q) u at constant u, in F                   (J3)
//   q̇ = N(q) u     identity unless q holds a quaternion (whose rate is ½ (0, ω) ⊗ q)    (J4)
//
// The same type gives the maximal formulations its canonical rows [HO21 eq. 14]: the
// 6 − nu holonomic rows that hold the child to the parent (constraints/kernels.hpp).
//
// The type also carries its configuration space, so that no caller asks a joint what it is
// by its name: where q keeps a unit quaternion, which coordinates are angles, whether a
// mimic can couple it, whether it holds its child at all, the names URDF and MJCF give it.
//
// Joint types are immutable and stateless, found by name in the registry
// (constraints/joints/registry.cpp).  A type with a parameter (a screw joint's pitch)
// makes an instance per value with with_parameter(); the Joint owns it.  A new type is one
// file in constraints/joints/ and its entry in the registry.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vector>

#include "appell/constraint.hpp"
#include "appell/spatial.hpp"

namespace appell {

// The joint frames of one joint in its two bodies (constant, from the reference pose).
struct JointFrames {
  Vec3 X_P = Vec3::Zero();      // anchor, P's frame, from P's centre of mass
  Vec3 X_C = Vec3::Zero();      // anchor, C's frame, from C's centre of mass
  Mat3 E_P = Mat3::Identity();  // joint axes (columns), P's frame
  Mat3 E_C = Mat3::Identity();  // joint axes (columns), C's frame;  E_P E_Cᵀ = Q_P(0)ᵀ Q_C(0)
};

// One joint's motion at (q, u), in the parent joint frame F (J1–J3).
struct JointMotion {
  Mat3 R = Mat3::Identity();      // R(q)
  Vec3 d = Vec3::Zero();          // d(q)
  Eigen::Matrix<double, 6, 6> S;  // S(q), the first nu columns, (lin; ang)
  Vec6 c = Vec6::Zero();          // Ṡ u, (lin; ang)
};

// A motion the recursion has a specialised kinematics pass for (engine/formulations/recursive/),
// with the products by S's and Ṡu's zeros left out:
//   Turn   R = rot_z(q), d = 0, S = (0; e_z), Ṡ u = 0   (nq = nu = 1)
//   Slide  R = I, d = q e_z, S = (e_z; 0), Ṡ u = 0      (nq = nu = 1)
//   Free   R = R(quaternion q₃…q₆), d = (q₀, q₁, q₂), S = I₆, Ṡ u = 0   (nq = 7, nu = 6)
enum class JointShape { General, Turn, Slide, Free };

// What a scene says to define a joint of this type.
struct JointSyntax {
  bool anchor = true;  // "anchor": a world point (else the child's centre of mass)
  int axes = 0;        // 0: none; 1: "axis"; 2: "axes" (two perpendicular directions)
  bool rigid = true;   // both bodies must be rigid (false: particles allowed)
  // the scene key of the type's one number parameter (JointType::with_parameter), or null
  const char* parameter = nullptr;
};

// The robot description formats whose joint type names a type answers to.
enum class JointFormat { Urdf, Mjcf };

class JointType {
 public:
  virtual ~JointType() = default;

  virtual const char* name() const = 0;
  virtual int nq() const = 0;
  virtual int nu() const = 0;
  virtual JointSyntax syntax() const = 0;

  // the joint axes (columns) in the world from the scene's axis (and axis2); the default
  // puts `axis` on z, completed by perpendicular_basis() to a right-handed frame
  virtual Mat3 axes(const Vec3& axis, const Vec3& axis2) const;
  // the axes as seen from the child, when the tree runs the joint from C to P: the frame
  // in which the reversed motion R(q)ᵀ is again of this type (the default: the same axes)
  virtual Mat3 reversed_axes(const Mat3& E) const { return E; }

  // General, or the shape motion() has (tests/joint_types_test.cpp checks they agree)
  virtual JointShape shape() const { return JointShape::General; }
  // R(q), d(q), S(q) and Ṡ u (J1–J3).  q, u: this joint's nq, nu entries.
  virtual void motion(const double* q, const double* u, JointMotion& out) const = 0;
  // motion() and its exact derivative along (dq, du) (dR, dd, dS's first nu columns, dc),
  // for the derivatives of the dynamics (appell/derivatives.hpp); false when the type gives
  // none (the default: the derivatives then refuse a model that has it)
  virtual bool motion_tangent(const double* /*q*/, const double* /*u*/, const double* /*dq*/,
                              const double* /*du*/, JointMotion& /*m*/, JointMotion& /*dm*/) const {
    return false;
  }
  // the q with R(q) = R, d(q) = d, for R, d this type can reach (the inverse of J1)
  virtual void coordinates(const Mat3& R, const Vec3& d, double* q) const = 0;
  // q̇ = N(q) u (J4); the default is q̇ = u, for nq = nu
  virtual void qdot(const double* q, const double* u, double* qdot) const;
  // restores invariants of q (unit quaternions); the default does nothing
  virtual void normalize(double* /*q*/) const {}
  // q at the reference pose (R = I, d = 0)
  void neutral(double* q) const { coordinates(Mat3::Identity(), Vec3::Zero(), q); }

  // The configuration space.
  // The offset in q of a unit quaternion [w x y z], which normalize() rescales and whose
  // rate is N(q) u (J4); −1: none.  Its u are then not the rates of its q.
  virtual int quaternion() const { return -1; }
  // whether q[k] is an angle: q and q + 2π e_k give the same R(q), d(q) (outputs keep it
  // continuous, springs and servos take its error modulo 2π)
  virtual bool angle(int /*k*/) const { return false; }
  // the names this type has in a robot description format (URDF's <joint type>, MJCF's)
  virtual std::vector<std::string> names_in(JointFormat /*format*/) const { return {}; }
  // whether a mimic constraint (appell/mimic.hpp) can couple it: one coordinate that is a
  // turn or a slide
  bool mimicable() const { return shape() == JointShape::Turn || shape() == JointShape::Slide; }
  // whether it holds its child at all (false: a free joint, whose child floats; nothing to
  // draw, and the root of a floating base)
  bool holds() const { return rows() > 0; }
  // the instance of this type with the parameter value v (syntax().parameter), or
  // std::invalid_argument saying what v must be; the default: the type has none
  virtual std::shared_ptr<const JointType> with_parameter(double v) const;

  // the canonical rows (6 − nu for two rigid bodies), for the maximal formulations
  virtual int rows() const = 0;
  virtual void evaluate_rows(const StateView& in, End P, End C, const JointFrames& f,
                             const RowSpan& out) const = 0;
  // The rows as evaluate_rows() writes them and their exact derivatives along `tangent`
  // (Constraint::evaluate_tangent); false when the type gives none (the default).
  virtual bool evaluate_rows_tangent(const StateView& /*in*/, const StateView& /*tangent*/,
                                     End /*P*/, End /*C*/, const JointFrames& /*f*/,
                                     const RowSpan& /*out*/, const RowSpan& /*dout*/) const {
    return false;
  }
  // The multipliers λ (rows() of them) with which the canonical rows carry, on the
  // joint's manifold, the force f and the moment m about the child's anchor point from P
  // onto C (world components): A_Cᵀ λ = (f; m + r_C × f), r_C = Q_C X_C, in closed form.
  // (f, m) must be a wrench the joint transmits (zero power on its motion subspace), as
  // the recursion's joint forces are (engine/formulations/recursive/joint_multipliers.cpp).
  virtual void multipliers(const BodyState& P, const BodyState& C, const JointFrames& fr,
                           const Vec3& f, const Vec3& m, double* lambda) const = 0;
};

// The registered type called `name`, or nullptr.
const JointType* find_joint_type(const std::string& name);
// The registered type called `name`; throws std::invalid_argument naming the known ones.
const JointType& joint_type(const std::string& name);
// Every registered type, in registration order.
const std::vector<const JointType*>& joint_types();
// The registered type that a robot description format calls `name` (names_in), or nullptr.
const JointType* find_joint_type(JointFormat format, const std::string& name);

// The 6-coordinate joint of a rigid body free in space ("free"; also the root of a floating
// tree).
const JointType& free_joint();

// The 3-coordinate joint of a particle that is the root of its own subtree (x̄, v̄ in the
// world); not a scene joint type.
const JointType& particle_joint();

}  // namespace appell
