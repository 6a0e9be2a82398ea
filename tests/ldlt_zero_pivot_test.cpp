// The zero-pivot sparse LDLᵀ (engine/formulations/ldlt_zero_pivot.hpp) against dense linear
// algebra: rank, the {1}-inverse identity G G⁻ G = G [UK98 eqs. 24–26] and the residuals it
// reports.
#include "engine/formulations/ldlt_zero_pivot.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

namespace appell {
namespace {

// Ĝ = C Cᵀ with unit rows C (m × n), rows `copies` repeating earlier rows (exact
// dependence) and one row a combination of two others; sparse: a row touches a band of
// the columns, as a constraint touches one or two bodies
Eigen::MatrixXd unit_gram(std::mt19937& rng, int m, int n, int copies, Eigen::MatrixXd& C) {
  std::normal_distribution<double> g;
  C.setZero(m, n);
  for (int i = 0; i < m; ++i) {
    const int c0 = (i * (n - 4)) / std::max(1, m - 1);
    for (int j = c0; j < c0 + 4; ++j) C(i, j) = g(rng);
  }
  for (int k = 0; k < copies; ++k) {
    const int i = std::uniform_int_distribution<int>(1, m - 1)(rng);
    C.row(i) = C.row(std::uniform_int_distribution<int>(0, i - 1)(rng));
  }
  C.row(m - 1) = C.row(0) + 2.0 * C.row(1);
  for (int i = 0; i < m; ++i) C.row(i).normalize();
  return C * C.transpose();
}

TEST(ZeroPivotLDLT, IsAOneInverseOfASemidefiniteGram) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const int m = 6 + 3 * trial, n = m + 4;
    Eigen::MatrixXd C;
    const Eigen::MatrixXd G = unit_gram(rng, m, n, trial % 4, C);
    const int rank =
        static_cast<int>(Eigen::FullPivLU<Eigen::MatrixXd>(C).setThreshold(1e-9).rank());
    ZeroPivotLDLT ldlt;
    ldlt.compute(G.sparseView(), 1e-6);
    EXPECT_EQ(ldlt.rank(), rank) << "trial " << trial;

    // G⁻ column by column, then G G⁻ G = G
    Eigen::MatrixXd Ginv(m, m);
    Eigen::VectorXd x, r;
    for (int k = 0; k < m; ++k) {
      ldlt.solve(Eigen::VectorXd::Unit(m, k), x, &r);
      Ginv.col(k) = x;
    }
    EXPECT_LT((G * Ginv * G - G).cwiseAbs().maxCoeff(), 1e-9) << "trial " << trial;

    // a consistent right side (e = G w) is solved exactly, with zero dropped residuals;
    // an inconsistent one (off range(G)) shows in the residuals of the dropped rows
    const Eigen::VectorXd e = G * Eigen::VectorXd::Random(m);
    ldlt.solve(e, x, &r);
    EXPECT_LT((G * x - e).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT(r.cwiseAbs().maxCoeff(), 1e-10);
    const Eigen::MatrixXd K = Eigen::FullPivLU<Eigen::MatrixXd>(G).kernel();  // null(G)
    if (rank < m) {
      const Eigen::VectorXd off = K.col(0) / K.col(0).norm();
      ldlt.solve(e + off, x, &r);
      EXPECT_GT(r.norm(), 1e-3) << "trial " << trial;
      // the residuals are G x − (e + off) on the dropped rows, zero on the kept ones
      const Eigen::VectorXd res = G * x - (e + off);
      for (int k = 0; k < m; ++k)
        if (r(k) != 0.0) {
          EXPECT_NEAR(r(k), res(k), 1e-9);
        }
    }
  }
}

// one symbolic analysis serves every matrix of its pattern: values assembled through
// slot() and factorised give what a fresh compute() gives
TEST(ZeroPivotLDLT, OneAnalysisServesEveryMatrixOfItsPattern) {
  std::mt19937 rng(9);
  Eigen::MatrixXd C;
  const Eigen::MatrixXd G1 = unit_gram(rng, 30, 34, 2, C);
  ZeroPivotLDLT reused;
  reused.analyze(G1.sparseView());
  for (int trial = 0; trial < 3; ++trial) {
    // the same pattern, other values
    const Eigen::VectorXd s = Eigen::VectorXd::Random(30).cwiseAbs() + Eigen::VectorXd::Ones(30);
    const Eigen::MatrixXd G2 = s.asDiagonal() * G1 * s.asDiagonal();
    std::fill(reused.values().begin(), reused.values().end(), 0.0);
    for (int j = 0; j < 30; ++j)
      for (int i = 0; i <= j; ++i)
        if (G1(i, j) != 0.0) reused.values()[reused.slot(i, j)] = G2(i, j);
    reused.factorize(1e-6);
    ZeroPivotLDLT fresh;
    fresh.compute(G2.sparseView(), 1e-6);
    EXPECT_EQ(reused.rank(), fresh.rank());
    const Eigen::VectorXd e = G2 * Eigen::VectorXd::Random(30);
    Eigen::VectorXd x1, x2;
    reused.solve(e, x1);
    fresh.solve(e, x2);
    EXPECT_LT((x1 - x2).norm(), 1e-12 * (1.0 + x2.norm())) << "trial " << trial;
    EXPECT_LT((G2 * x1 - e).norm(), 1e-9 * (1.0 + e.norm())) << "trial " << trial;
  }
}

}  // namespace
}  // namespace appell
