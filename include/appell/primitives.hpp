// Constraint primitives (docs/scene-format.md): distance, point_on_plane, perpendicular, linear.
// Geometry is given in the world frame at t = 0 and fixed in the body it belongs to.
#pragma once

#include "appell/constraint.hpp"

namespace appell {

// |x_B − x_A| = length between two material points (K5).
class DistanceConstraint final : public Constraint {
 public:
  DistanceConstraint(std::string name, int a, int b, const BodyState& a0, const BodyState& b0,
                     const Vec3& pa, const Vec3& pb, double length);
  std::string type() const override { return "distance"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

  // the two ends: body k (kWorld for the ground) and its point, body frame (world for
  // the ground)
  int body(int k) const { return k == 0 ? a_.body : b_.body; }
  const Vec3& point(int k) const { return k == 0 ? Xa_ : Xb_; }

 private:
  End a_, b_;
  Vec3 Xa_, Xb_;
  double length_;
};

// A material point stays on the fixed plane through its t = 0 position (K2, A = world).
class PointOnPlaneConstraint final : public Constraint {
 public:
  PointOnPlaneConstraint(std::string name, int body, const BodyState& body0, const Vec3& point,
                         const Vec3& normal);
  std::string type() const override { return "point_on_plane"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

  int body() const { return body_.body; }
  const Vec3& point() const { return X_; }   // body frame
  const Vec3& normal() const { return n_; }  // unit, world frame

 private:
  End body_;
  Vec3 X_, p0_, n_;
};

// Directions fixed in two bodies (either may be the world) stay perpendicular (K3).
class PerpendicularConstraint final : public Constraint {
 public:
  PerpendicularConstraint(std::string name, int a, int b, const BodyState& a0, const BodyState& b0,
                          const Vec3& axis_a, const Vec3& axis_b);
  std::string type() const override { return "perpendicular"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return true; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

 private:
  End a_, b_;
  Vec3 Na_, Nb_;
};

// The canonical row itself [HO21 eq. 14]: f · v_A + h · ω + e = 0, with f and h fixed in
// the world or in the body.  Nonholonomic (velocity level).
//     dπ/dt = f·a_A + (df/dt)·v_A + h·dω/dt + (dh/dt)·ω,   (dh/dt)·ω = (ω×h)·ω = 0,
//     so κ = f·ω×(ω×r) + (ω×f)·v_A in the body frame, f·ω×(ω×r) in the world frame.
class LinearConstraint final : public Constraint {
 public:
  enum class Frame { World, Body };
  LinearConstraint(std::string name, int body, const BodyState& body0, const Vec3& point,
                   const Vec3& f, const Vec3& h, double e, Frame frame);
  std::string type() const override { return "linear"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return false; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

  int body() const { return body_.body; }
  const Vec3& point() const { return X_; }  // body frame

 private:
  End body_;
  Vec3 X_, f_, h_;  // f, h in the frame below
  double e_;
  Frame frame_;
};

}  // namespace appell
