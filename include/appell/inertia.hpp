// Inertia tensors about the centre of mass, in the body frame.
//
// A physical inertia tensor J0 is symmetric positive definite and its principal moments
// obey the triangle inequality I1 ≤ I2 + I3 (and permutations), because each principal
// moment is an integral of a sum of two squared coordinates.  The solid shapes follow
// from the mass:  box (edges a, b, c)  I = m/12 (b²+c², a²+c², a²+b²);  sphere  2/5 m r²;
// cylinder (radius r, height h, axis z)  I_xx = I_yy = m(3r² + h²)/12, I_zz = m r²/2.
#pragma once

#include <string>

#include "appell/rotation.hpp"

namespace appell {

Mat3 inertia_principal(const Vec3& moments);
Mat3 inertia_box(double mass, const Vec3& edges);
Mat3 inertia_sphere(double mass, double radius);
Mat3 inertia_cylinder(double mass, double radius, double height);

// Empty when J is a physical inertia tensor; otherwise what is wrong, e.g.
// "principal moments [1, 1, 3] violate the triangle inequality".  Tolerances are
// relative to the largest moment (1e-9 for symmetry, 1e-12 for the inequality); the
// smallest moment must be at least kMinInertiaRatio of the largest.
constexpr double kMinInertiaRatio = 1e-12;
std::string inertia_defect(const Mat3& J);
// Empty when J is symmetric positive semi-definite (principal moments >= −1e-9 of the
// largest; zero included, the triangle inequality not required): what a body welded to
// others may have (appell/model.hpp, "Composites"); otherwise inertia_defect(J).
std::string inertia_semidefinite_defect(const Mat3& J);

}  // namespace appell
