#include "appell/expression_force.hpp"

namespace appell {

ExpressionForce::ExpressionForce(int body, const BodyState& body0, const Vec3& point,
                                 std::array<Expression, 3> vector)
    : body_(body), X_(body0.Q.transpose() * (point - body0.x)), f_(std::move(vector)) {}

Vec3 ExpressionForce::vector(const StateView& s) const {
  return Vec3(f_[0].value(s), f_[1].value(s), f_[2].value(s));
}

void ExpressionForce::apply(const StateView& s, SpatialForce* out) const {
  out[body_].add_at(s.body(body_).offset(X_), vector(s));  // [HO21 eq. 11]
}

}  // namespace appell
