// `expression` forces (docs/scene-format.md): a world-frame force whose three components are
// expressions of t, the bodies' x̄, v̄, ω and parameters (constraints/expression.hpp),
// applied at a material point of one body (default its centre of mass) [HO21 eq. 11].
// Cost: three tape sweeps, values only; no allocation.  No potential energy.
#pragma once

#include <algorithm>
#include <array>

#include "appell/expression.hpp"
#include "appell/forces.hpp"

namespace appell {

class ExpressionForce final : public Force {
 public:
  // point: world frame at t = 0
  ExpressionForce(int body, const BodyState& body0, const Vec3& point,
                  std::array<Expression, 3> vector);
  std::string type() const override { return "expression"; }
  void apply(const StateView& s, SpatialForce* out) const override;
  // the force vector (world frame) on state s
  Vec3 vector(const StateView& s) const;
  size_t scratch_size() const override {
    return std::max(
        {f_[0].scratch_size(false), f_[1].scratch_size(false), f_[2].scratch_size(false)});
  }

 private:
  int body_;
  Vec3 X_;
  std::array<Expression, 3> f_;
};

}  // namespace appell
