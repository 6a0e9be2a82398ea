// The benchmark bicycle's linear model from the closed forms of Meijaard, Papadopoulos,
// Ruina & Schwab, Proc. R. Soc. A 463 (2007) 1955–1982, Appendix A (tests only): the
// reference of tests/bicycle_linearize_test.cpp and tests/rigid_quasi_velocities_test.cpp.
#pragma once

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <cmath>

namespace appell {
namespace {

struct Benchmark {
  Eigen::Matrix2d M, C1, K0, K2;
  double g = 9.81;
};

// Appendix A of the paper, from Table 1's parameters (its frame: x forward, z down)
Benchmark meijaard() {
  const double pi = std::acos(-1.0);
  const double w = 1.02, c = 0.08, lam = pi / 10, rR = 0.3, mR = 2, IRxx = 0.0603, IRyy = 0.12,
               xB = 0.3, zB = -0.9, mB = 85, IBxx = 9.2, IBzz = 2.8, IBxz = 2.4, xH = 0.9,
               zH = -0.7, mH = 4, IHxx = 0.05892, IHxz = -0.00756, rF = 0.35, mF = 3, IFxx = 0.1405,
               IFyy = 0.28, IHzz = 0.00708;
  const double sl = std::sin(lam), cl = std::cos(lam);
  const double mT = mR + mB + mH + mF;                                           // (A 1)
  const double xT = (xB * mB + xH * mH + w * mF) / mT;                           // (A 2)
  const double zT = (-rR * mR + zB * mB + zH * mH - rF * mF) / mT;               // (A 3)
  const double ITxx = IRxx + IBxx + IHxx + IFxx + mR * rR * rR + mB * zB * zB +  // (A 4)
                      mH * zH * zH + mF * rF * rF;
  const double ITxz = IBxz + IHxz - mB * xB * zB - mH * xH * zH + mF * w * rF;  // (A 5)
  const double IRzz = IRxx, IFzz = IFxx;                                        // (A 6)
  const double ITzz =
      IRzz + IBzz + IHzz + IFzz + mB * xB * xB + mH * xH * xH + mF * w * w;  // (A 7)
  const double mA = mH + mF;                                                 // (A 8)
  const double xA = (xH * mH + w * mF) / mA, zA = (zH * mH - rF * mF) / mA;  // (A 9)
  const double IAxx = IHxx + IFxx + mH * (zH - zA) * (zH - zA) + mF * (rF + zA) * (rF + zA);
  const double IAxz = IHxz - mH * (xH - xA) * (zH - zA) + mF * (w - xA) * (rF + zA);
  const double IAzz = IHzz + IFzz + mH * (xH - xA) * (xH - xA) + mF * (w - xA) * (w - xA);
  const double uA = (xA - w - c) * cl - zA * sl;  // (A 11)
  const double IAll = mA * uA * uA + IAxx * sl * sl + 2 * IAxz * sl * cl + IAzz * cl * cl;
  const double IAlx = -mA * uA * zA + IAxx * sl + IAxz * cl;
  const double IAlz = mA * uA * xA + IAxz * sl + IAzz * cl;   // (A 12)
  const double mu = c / w * cl;                               // (A 13)
  const double SR = IRyy / rR, SF = IFyy / rF, ST = SR + SF;  // (A 14)
  const double SA = mA * uA + mu * mT * xT;                   // (A 15)
  Benchmark b;
  b.M << ITxx, IAlx + mu * ITxz, IAlx + mu * ITxz, IAll + 2 * mu * IAlz + mu * mu * ITzz;
  b.K0 << mT * zT, -SA, -SA, -SA * sl;
  b.K2 << 0, (ST - mT * zT) / w * cl, 0, (SA + SF * sl) / w * cl;
  b.C1 << 0, mu * ST + SF * cl + ITxz / w * cl - mu * mT * zT, -(mu * ST + SF * cl),
      IAlz / w * cl + mu * (SA + ITzz / w * cl);
  return b;
}

// the eigenvalues of the paper's model at speed v, state (φ, δ, φ̇, δ̇)
Eigen::VectorXcd reference_eigenvalues(const Benchmark& b, double v) {
  Eigen::Matrix4d A = Eigen::Matrix4d::Zero();
  A.topRightCorner<2, 2>().setIdentity();
  const Eigen::Matrix2d Mi = b.M.inverse();
  A.bottomLeftCorner<2, 2>() = -Mi * (b.g * b.K0 + v * v * b.K2);
  A.bottomRightCorner<2, 2>() = -Mi * (v * b.C1);
  return Eigen::EigenSolver<Eigen::Matrix4d>(A).eigenvalues();
}

}  // namespace
}  // namespace appell
