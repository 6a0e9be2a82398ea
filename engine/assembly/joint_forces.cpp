// Actuation at joints (appell/joint_forces.hpp).
#include "appell/joint_forces.hpp"

#include <algorithm>
#include <stdexcept>

#include "appell/joint_state.hpp"

namespace appell {

namespace {

constexpr int kMaxNq = 8;  // the largest nq of a joint type (free: 7)

void require_nq_is_nu(const Joint& j, const char* what) {
  if (j.joint_type().quaternion() >= 0)
    throw std::invalid_argument(std::string(what) + ": joint '" + j.name() + "' (" +
                                j.joint_type().name() +
                                ") has quaternion coordinates; use joint_damping or joint_torque");
}

void require_size(const Joint& j, size_t n, const char* what) {
  if (static_cast<int>(n) != j.joint_type().nu())
    throw std::invalid_argument(std::string(what) + ": joint '" + j.name() + "' has " +
                                std::to_string(j.joint_type().nu()) + " coordinates, got " +
                                std::to_string(n) + " values");
}

size_t max_scratch(const std::vector<Expression>& e) {
  size_t n = 0;
  for (const Expression& x : e) n = std::max(n, x.scratch_size(false));
  return n;
}

// whether every expression reads the time alone (no body or joint variable)
bool time_only(const std::vector<Expression>& e) {
  for (const Expression& x : e)
    for (const ExprVariable& v : x.variables())
      if (v.kind != ExprVariable::Kind::Time) return false;
  return true;
}

// dq = a I, du = b I (nu × nu, column-major)
void diagonal_derivatives(int nu, double a, double b, double* dq, double* du) {
  std::fill(dq, dq + nu * nu, 0.0);
  std::fill(du, du + nu * nu, 0.0);
  for (int k = 0; k < nu; ++k) dq[k * nu + k] = a, du[k * nu + k] = b;
}

}  // namespace

JointForce::JointForce(std::shared_ptr<const Joint> joint) : joint_(std::move(joint)) {
  if (!joint_) throw std::invalid_argument("JointForce: no joint");
}

void JointForce::generalized_force(const StateView& s, double* out) const {
  double q[kMaxNq], u[6];
  joint_coordinates(*joint_, s, q, u);
  tau(s, q, u, out);
}

void JointForce::generalized_force(const StateView& s, const double* q, const double* u,
                                   double* out) const {
  tau(s, q, u, out);
}

double JointForce::power(const StateView& s) const {
  double q[kMaxNq], u[6], t[6];
  joint_coordinates(*joint_, s, q, u);
  tau(s, q, u, t);
  double p = 0.0;
  for (int k = 0; k < nu(); ++k) p += t[k] * u[k];  // (G1)
  return p;
}

void JointForce::apply(const StateView& s, SpatialForce* out) const {
  double t[6];
  generalized_force(s, t);
  apply_joint_force(*joint_, s, t, out);
}

void JointForce::add_generalized_force(const StateView& s, const double* q, const double* u,
                                       double* out) const {
  double t[6];
  tau(s, q, u, t);
  for (int k = 0; k < nu(); ++k) out[k] += t[k];
}

// ---- torque -------------------------------------------------------------------------------

JointTorque::JointTorque(std::shared_ptr<const Joint> joint, const Eigen::VectorXd& value)
    : JointForce(std::move(joint)), constant_(value) {
  require_size(*joint_, value.size(), "joint_torque");
}

JointTorque::JointTorque(std::shared_ptr<const Joint> joint, std::vector<Expression> value)
    : JointForce(std::move(joint)), value_(std::move(value)) {
  require_size(*joint_, value_.size(), "joint_torque");
}

size_t JointTorque::scratch_size() const {
  return max_scratch(value_);
}

void JointTorque::tau(const StateView& s, const double*, const double*, double* out) const {
  for (int k = 0; k < nu(); ++k) out[k] = value_.empty() ? constant_(k) : value_[k].value(s);
}

// ---- servo --------------------------------------------------------------------------------

JointServo::JointServo(std::shared_ptr<const Joint> joint, double kp, double kd,
                       std::vector<Expression> target)
    : JointForce(std::move(joint)), kp_(kp), kd_(kd), target_(std::move(target)) {
  require_nq_is_nu(*joint_, "pd");
  require_size(*joint_, target_.size(), "pd");
  periodic_ = periodic_coordinates(joint_->joint_type());
}

size_t JointServo::scratch_size() const {
  return max_scratch(target_);
}

void JointServo::tau(const StateView& s, const double* q, const double* u, double* out) const {
  for (int k = 0; k < nu(); ++k) {
    // the target and its rate along the motion (expression.hpp E2: d1 = dq*/dt)
    const Expression::Jet j = target_[k].evaluate(s, nullptr, true);
    const double e = periodic_[k] ? wrap_angle(j.value - q[k]) : j.value - q[k];
    out[k] = kp_ * e + kd_ * (j.d1 - u[k]);
  }
}

// ---- spring -------------------------------------------------------------------------------

JointSpring::JointSpring(std::shared_ptr<const Joint> joint, double stiffness,
                         const Eigen::VectorXd& rest, double damping)
    : JointForce(std::move(joint)), k_(stiffness), c_(damping), rest_(rest) {
  require_nq_is_nu(*joint_, "joint_spring");
  require_size(*joint_, rest.size(), "joint_spring");
  periodic_ = periodic_coordinates(joint_->joint_type());
}

double JointSpring::error(const double* q, int k) const {
  const double e = q[k] - rest_(k);
  return periodic_[k] ? wrap_angle(e) : e;
}

void JointSpring::tau(const StateView&, const double* q, const double* u, double* out) const {
  for (int k = 0; k < nu(); ++k) out[k] = -k_ * error(q, k) - c_ * u[k];
}

double JointSpring::potential(const StateView& s) const {
  double q[kMaxNq];
  joint_coordinates(*joint_, s, q, nullptr);
  return joint_potential(s, q);
}

double JointSpring::joint_potential(const StateView&, const double* q) const {
  double V = 0.0;
  for (int k = 0; k < nu(); ++k) V += 0.5 * k_ * error(q, k) * error(q, k);
  return V;
}

// ---- damping ------------------------------------------------------------------------------

JointDamping::JointDamping(std::shared_ptr<const Joint> joint, double damping)
    : JointForce(std::move(joint)), c_(damping) {}

void JointDamping::tau(const StateView&, const double*, const double* u, double* out) const {
  for (int k = 0; k < nu(); ++k) out[k] = -c_ * u[k];
}

// ---- derivatives (appell/derivatives.hpp) ---------------------------------------------------
// The error of an angle is taken modulo 2π, whose derivative is 1 away from the wrap.

bool JointTorque::tau_derivatives(const StateView&, const double*, const double*, double* dq,
                                  double* du) const {
  diagonal_derivatives(nu(), 0.0, 0.0, dq, du);
  return time_only(value_);
}

bool JointServo::tau_derivatives(const StateView&, const double*, const double*, double* dq,
                                 double* du) const {
  diagonal_derivatives(nu(), -kp_, -kd_, dq, du);
  return time_only(target_);
}

bool JointSpring::tau_derivatives(const StateView&, const double*, const double*, double* dq,
                                  double* du) const {
  diagonal_derivatives(nu(), -k_, -c_, dq, du);
  return true;
}

bool JointDamping::tau_derivatives(const StateView&, const double*, const double*, double* dq,
                                   double* du) const {
  diagonal_derivatives(nu(), 0.0, -c_, dq, du);
  return true;
}

}  // namespace appell
