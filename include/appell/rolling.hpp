// Contact constraints that are not integrable: rolling without slipping and the knife
// edge (docs/scene-format.md).  Both are written as canonical rows [HO21 eq. 14]
//     π = f · v_A + h · ω + e,    lin = f,  ang = r_A × f + h                    (C2)
// with exact acceleration-level right sides b.
//
// Rolling.  A sphere or a disk (axis e₃ = Q E₃) of radius r rolls on the fixed plane with
// unit normal n (pointing from the plane to the body) through the contact point at
// t = 0, p₀.  The contact point is not a material point: it moves over the body.  Its
// offset from the centre is
//     sphere:  r_C = −r n,                     ṙ_C = 0
//     disk:    r_C = r c,  c = −n⊥/|n⊥|,  n⊥ = n − (n·e₃) e₃,                    (R1)
//              ċ = −(ṅ⊥ − c (c·ṅ⊥)) / |n⊥|,  ṅ⊥ = −(n·ė₃) e₃ − (n·e₃) ė₃,  ė₃ = ω × e₃
// (c is the unit vector of the disk plane most opposed to n: the lowest rim point).
// The material point at the contact moves with v_C = v̄ + ω × r_C.  Three rows, E ∈ {n,
// t₁, t₂} (t₁, t₂ tangent to the plane):
//     π_E = E · v_C,      lin = E,  ang = r_C × E,
//     b_E = −E · (ω × ṙ_C)                                                        (R2)
// because d/dt (v̄ + ω × r_C) = dv̄/dt + dω/dt × r_C + ω × ṙ_C.  The normal row is
// holonomic: its position function is the height of the contact point,
//     g = n · (x̄ + r_C − p₀) = n·(x̄ − p₀) − r |n × e₃|   (disk), n·(x̄ − p₀) − r (sphere),
// and π_n = dg/dt because ṙ_C − ω × r_C is tangent to the plane (c is extremal).  The
// tangential rows are nonholonomic.  A disk lying flat (n × e₃ = 0) has no contact point.
//
// Knife edge (Chaplygin sleigh).  The material point A (offset r_A) has no velocity along
// the body-fixed direction d = Q D:
//     π = d · v_A,   lin = d,  ang = r_A × d,
//     b = −(d · ω × (ω × r_A) + (ω × d) · v_A)                                    (N1)
// from dπ/dt = d·a_A + ḋ·v_A with a_A of (K0) and ḋ = ω × d.
#pragma once

#include "appell/constraint.hpp"

namespace appell {

class RollingConstraint final : public Constraint {
 public:
  enum class Shape { Sphere, Disk };
  // body0: the body's state at t = 0; normal: unit, from the plane to the body.
  // Throws std::invalid_argument for a disk lying flat on the plane.
  RollingConstraint(std::string name, int body, const BodyState& body0, double radius, Shape shape,
                    const Vec3& normal);
  std::string type() const override { return "rolling"; }
  int rows() const override { return 3; }
  bool holonomic(int row) const override { return row == 0; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

  // offset r_C of the contact point from the centre and its rate ṙ_C (R1)
  void contact(const BodyState& s, Vec3& rc, Vec3& rc_dot) const;
  const Vec3& normal() const { return n_; }  // unit, world frame

 private:
  template <class View, class Span>
  void write_rows(const View& in, const Span& out) const;  // evaluate() and its tangent
  End body_;
  double r_;
  Shape shape_;
  Vec3 n_, t1_, t2_;
  double h0_;  // n · p₀
};

class KnifeEdgeConstraint final : public Constraint {
 public:
  // point, direction: world frame at t = 0 (direction: unit)
  KnifeEdgeConstraint(std::string name, int body, const BodyState& body0, const Vec3& point,
                      const Vec3& direction);
  std::string type() const override { return "knife_edge"; }
  int rows() const override { return 1; }
  bool holonomic(int) const override { return false; }
  void evaluate(const StateView& in, const RowSpan& out) const override;
  bool evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                        const RowSpan& dout) const override;

  int body() const { return body_.body; }
  const Vec3& point() const { return X_; }  // body frame

 private:
  template <class View, class Span>
  void write_rows(const View& in, const Span& out) const;  // evaluate() and its tangent
  End body_;
  Vec3 X_, D_;  // body frame
};

}  // namespace appell
