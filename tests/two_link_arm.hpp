// The planar two-link arm and its textbook inverse dynamics, written out for the tests
// (an independent closed form, not the engine's recursion).
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace appell::test_arm {

// A planar two-link arm in the x–y plane, joints about z, gravity −g y, straight along x
// at q = 0.  Link i: mass m_i, length l_i, centre of mass c_i from its joint, inertia I_i
// about the centre of mass (z).
struct TwoLinkArm {
  double m1 = 1.3, m2 = 0.8, l1 = 0.6, c1 = 0.25, c2 = 0.3, I1 = 0.05, I2 = 0.02, g = 9.81;

  // τ = M(q) q̈ + C(q, q̇) q̇ + G(q), the textbook closed form of the two-link arm
  Eigen::Vector2d torques(const Eigen::Vector2d& q, const Eigen::Vector2d& qd,
                          const Eigen::Vector2d& qdd) const {
    const double c = std::cos(q(1)), s = std::sin(q(1)), h = m2 * l1 * c2 * s;
    const double M11 = I1 + I2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2 * l1 * c2 * c);
    const double M12 = I2 + m2 * (c2 * c2 + l1 * c2 * c), M22 = I2 + m2 * c2 * c2;
    const double G1 =
        m1 * g * c1 * std::cos(q(0)) + m2 * g * (l1 * std::cos(q(0)) + c2 * std::cos(q(0) + q(1)));
    const double G2 = m2 * g * c2 * std::cos(q(0) + q(1));
    return {M11 * qdd(0) + M12 * qdd(1) - h * (2 * qd(0) * qd(1) + qd(1) * qd(1)) + G1,
            M12 * qdd(0) + M22 * qdd(1) + h * qd(0) * qd(0) + G2};
  }
};

}  // namespace appell::test_arm
