// The bodies' block factor of a low-rank island, K + ρI = BᵀB + ρI (engine/contact/ncp.hpp):
// its solves against Eigen's dense LLT of the same matrix, on the bodies' graphs that need
// no fill (a stack), some (a ring), and much (random pairs in a pile), with rows on one body
// (a box on the floor) and rows missing an entry; the pattern kept while B's is, and formed
// again when it changes; and a large island's solve that stops short of its tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "engine/contact/ncp.hpp"

namespace appell {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using RowMajorB = Eigen::SparseMatrix<double, Eigen::RowMajor>;

// B of three rows a contact, each row's entries on its contact's bodies (−1: the world),
// its values from `phase`; `sparse_row`: the first row without its last entry
RowMajorB body_graph_b(int bodies, const std::vector<std::pair<int, int>>& contacts, double phase,
                       bool sparse_row = false) {
  std::vector<Eigen::Triplet<double>> entries;
  for (size_t k = 0; k < contacts.size(); ++k)
    for (int r = 3 * static_cast<int>(k); r < 3 * static_cast<int>(k) + 3; ++r)
      for (int side = 0; side < 2; ++side) {
        const int body = side == 0 ? contacts[k].first : contacts[k].second;
        if (body < 0) continue;
        for (int c = 0; c < 6; ++c) {
          if (sparse_row && r == 0 && side == 1 && c == 5) continue;
          entries.emplace_back(r, 6 * body + c,
                               std::sin(phase + 1.7 * r + 0.3 * c + side) + (c == r % 3 ? 1.5 : 0));
        }
      }
  RowMajorB B(3 * static_cast<int>(contacts.size()), 6 * bodies);
  B.setFromTriplets(entries.begin(), entries.end());
  B.makeCompressed();
  return B;
}

// the factor's solve of (BᵀB + ρI) x = rhs: its backward error ‖K x − rhs‖ / (‖K‖ ‖x‖), K
// formed dense (a Cholesky solve's is of the order of the rounding, whatever ρ makes K's
// condition), and its distance from the dense LLT's solve within what that condition allows
double solve_error(BodyBlockFactor& f, const RowMajorB& B, double rho) {
  EXPECT_TRUE(f.analyze(B));
  f.form(B);
  EXPECT_TRUE(f.factor(rho));
  VectorXd rhs(B.cols());
  for (Eigen::Index i = 0; i < rhs.size(); ++i) rhs(i) = std::cos(0.37 * static_cast<double>(i));
  const MatrixXd K =
      MatrixXd(B).transpose() * MatrixXd(B) + rho * MatrixXd::Identity(B.cols(), B.cols());
  const VectorXd expected = K.llt().solve(rhs);
  VectorXd x = rhs;
  f.solve(x);
  const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<MatrixXd>(K).eigenvalues();
  EXPECT_LT((x - expected).norm() / expected.norm(), 1e-14 * eig(eig.size() - 1) / eig(0));
  return (K * x - rhs).norm() / (K.norm() * x.norm());
}

TEST(BodyBlockFactor, SolvesAStackARingAndAPile) {
  BodyBlockFactor f;
  // a stack of ten on the floor: contacts (world, 0), (0, 1), …, (8, 9)
  std::vector<std::pair<int, int>> stack = {{-1, 0}};
  for (int b = 0; b + 1 < 10; ++b) stack.emplace_back(b, b + 1);
  for (double rho : {1e-6, 1.0, 1e3})
    EXPECT_LT(solve_error(f, body_graph_b(10, stack, 0.2), rho), 1e-15);
  // a ring of twelve (its elimination fills a column), one of them also on the floor
  std::vector<std::pair<int, int>> ring = {{3, -1}};
  for (int b = 0; b < 12; ++b) ring.emplace_back(b, (b + 1) % 12);
  EXPECT_LT(solve_error(f, body_graph_b(12, ring, 0.5), 0.3), 1e-15);
  // a pile of 25: sixty pairs drawn by a fixed rule, a body on the floor every fourth
  std::vector<std::pair<int, int>> pile;
  for (int k = 0; k < 60; ++k) {
    const int a = (7 * k + 3) % 25, b = (11 * k + 5 + k / 25) % 25;
    pile.emplace_back(a, a == b ? -1 : b);
  }
  for (int b = 0; b < 25; b += 4) pile.emplace_back(-1, b);
  EXPECT_LT(solve_error(f, body_graph_b(25, pile, 1.1), 0.05), 1e-15);
  // a row missing an entry: its block still formed from the entries it has
  EXPECT_LT(solve_error(f, body_graph_b(12, ring, 0.5, true), 0.3), 1e-15);
}

// Values changed on the same pattern: the order and fill are kept, the blocks formed again;
// a pattern that changes (a contact lost) is analysed again
TEST(BodyBlockFactor, KeepsItsPatternAndFollowsAChange) {
  BodyBlockFactor f;
  std::vector<std::pair<int, int>> ring = {{0, -1}};
  for (int b = 0; b < 8; ++b) ring.emplace_back(b, (b + 1) % 8);
  for (double phase : {0.0, 0.9, 2.3})
    EXPECT_LT(solve_error(f, body_graph_b(8, ring, phase), 0.5), 1e-15);
  ring.pop_back();  // the ring opened: a chain
  EXPECT_LT(solve_error(f, body_graph_b(8, ring, 0.4), 0.5), 1e-15);
}

TEST(BodyBlockFactor, RefusesARowOnThreeBodies) {
  RowMajorB B(1, 18);
  std::vector<Eigen::Triplet<double>> entries = {{0, 0, 1.0}, {0, 7, 1.0}, {0, 17, 1.0}};
  B.setFromTriplets(entries.begin(), entries.end());
  BodyBlockFactor f;
  EXPECT_FALSE(f.analyze(B));
}

// An island above the Newton polish's size (kDensePolish rows) that ADMM leaves short of its
// tolerance: the solve returns its best iterate, unconverged, without forming G, its
// Jacobian or JJᵀ dense (3,000 rows: 27 GFlop a Newton step, minutes for the final polish)
TEST(BodyBlockFactor, LargeIslandUnconvergedReturnsWithoutDenseNewton) {
  const int bodies = 1000, contacts = 1000;
  std::vector<std::pair<int, int>> chain = {{-1, 0}};
  for (int k = 1; k < contacts; ++k) chain.emplace_back(k - 1, k % bodies);
  LowRankDelassus G;
  G.B = body_graph_b(bodies, chain, 0.3);
  G.diagonal = VectorXd(G.B.rows());
  for (Eigen::Index r = 0; r < G.B.rows(); ++r) G.diagonal(r) = G.B.row(r).squaredNorm();
  std::vector<ContactBlock> blocks(contacts);
  for (int k = 0; k < contacts; ++k) {
    blocks[static_cast<size_t>(k)].row = 3 * k;
    blocks[static_cast<size_t>(k)].mu = 0.5;
  }
  VectorXd g(3 * contacts);
  for (Eigen::Index i = 0; i < g.size(); ++i) g(i) = std::sin(0.7 * static_cast<double>(i)) - 0.5;
  ContactSolverOptions o;
  o.tolerance = 1e-14;
  o.max_iterations = 3;
  VectorXd lambda;
  ContactWorkspace w;
  const ContactSolverResult r = solve_contact_problem(G, g, blocks, lambda, o, &w);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.newton_iterations, 0);
  EXPECT_TRUE(std::isfinite(r.residual));
  EXPECT_TRUE(lambda.allFinite());
  EXPECT_EQ(w.G_dense.size(), 0);  // never formed
}

}  // namespace
}  // namespace appell
