#include "appell/joint.hpp"

#include <stdexcept>
#include <string>

namespace appell {

Joint::Joint(std::string name, const JointType& type, int parent, int child,
             const BodyState& parent0, const BodyState& child0, const Vec3& anchor,
             const Vec3& axis, const Vec3& axis2)
    : Constraint(std::move(name), {parent, child}),
      type_(&type),
      owned_(std::shared_ptr<void>(), &type) {
  parent_ = {parent, slot(parent)};
  child_ = {child, slot(child)};
  anchor_ = type.syntax().anchor ? anchor : child0.x;
  // the joint frame: the anchor and the type's axes, in each body's frame
  const Mat3 E = type.axes(axis, axis2);
  frames_.X_P = parent0.Q.transpose() * (anchor_ - parent0.x);
  frames_.X_C = child0.Q.transpose() * (anchor_ - child0.x);
  frames_.E_P = parent0.Q.transpose() * E;
  frames_.E_C = child0.Q.transpose() * E;
}

Joint::Joint(std::string name, std::shared_ptr<const JointType> type, int parent, int child,
             const BodyState& parent0, const BodyState& child0, const Vec3& anchor,
             const Vec3& axis, const Vec3& axis2)
    : Joint(std::move(name), *type, parent, child, parent0, child0, anchor, axis, axis2) {
  owned_ = std::move(type);
}

void Joint::set_initial_coordinates(std::vector<double> q, std::vector<double> u) {
  if (static_cast<int>(q.size()) != type_->nq() || static_cast<int>(u.size()) != type_->nu())
    throw std::invalid_argument("Joint::set_initial_coordinates(): joint '" + name() + "' (" +
                                type_->name() + ") has nq = " + std::to_string(type_->nq()) +
                                " and nu = " + std::to_string(type_->nu()) + ", got " +
                                std::to_string(q.size()) + " and " + std::to_string(u.size()));
  initial_q_ = std::move(q);
  initial_u_ = std::move(u);
}

void Joint::evaluate(const StateView& in, const RowSpan& out) const {
  type_->evaluate_rows(in, parent_, child_, frames_, out);
}

bool Joint::evaluate_tangent(const StateView& in, const StateView& tangent, const RowSpan& out,
                             const RowSpan& dout) const {
  return type_->evaluate_rows_tangent(in, tangent, parent_, child_, frames_, out, dout);
}

}  // namespace appell
