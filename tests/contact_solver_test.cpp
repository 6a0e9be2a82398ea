// The contact problem's solver (engine/contact/ncp.hpp) against closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/contact/ncp.hpp"

namespace appell {
namespace {

using Eigen::MatrixXd;
using Eigen::Vector3d;
using Eigen::VectorXd;

ContactBlock contact(int row, double mu) {
  ContactBlock b;
  b.row = row;
  b.mu = mu;
  return b;
}

ContactSolverOptions tight() {
  ContactSolverOptions o;
  o.tolerance = 1e-13;
  return o;
}

TEST(ContactSolver, ConeProjectionClosedForm) {
  // inside, polar, and the boundary case of (n, t) = (0, 1) onto μ = 1: ((1/2), 1/2)
  EXPECT_EQ(project_cone(Vector3d(2, 1, 0), 1.0), Vector3d(2, 1, 0));
  EXPECT_EQ(project_cone(Vector3d(-2, 1, 0), 1.0), Vector3d::Zero());
  const Vector3d p = project_cone(Vector3d(0, 1, 0), 1.0);
  EXPECT_NEAR(p(0), 0.5, 1e-15);
  EXPECT_NEAR(p(1), 0.5, 1e-15);
}

TEST(ContactSolver, StickingInsideTheConeBalancesExactly) {
  // a coupled 3 × 3 Delassus block; the impulse that stops the contact lies in the cone
  MatrixXd G(3, 3);
  G << 2.0, 0.3, -0.2, 0.3, 1.5, 0.1, -0.2, 0.1, 1.0;
  const VectorXd g = Vector3d(-1.0, 0.1, -0.05);
  const VectorXd stop = -G.ldlt().solve(g);
  ASSERT_LT(stop.tail<2>().norm(), 0.8 * stop(0));  // inside the cone of μ = 0.8
  VectorXd lambda;
  const ContactSolverResult r = solve_contact_problem(G, g, {contact(0, 0.8)}, lambda, tight());
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.residual, 1e-13);
  EXPECT_GT(r.iterations + r.newton_iterations, 0);
  EXPECT_LT((lambda - stop).norm(), 1e-12);
  EXPECT_LT((G * lambda + g).norm(), 1e-12);  // u = 0: sticks
  // warm-started from its own answer, it stops before the first iteration
  const ContactSolverResult again = solve_contact_problem(G, g, {contact(0, 0.8)}, lambda, tight());
  EXPECT_EQ(again.iterations, 0);
}

TEST(ContactSolver, SmallIslandTakesNewtonStepsDefiniteOrNot) {
  // two sticking contacts coupled through a definite G (6 × 6): from a warm start near the
  // answer, semismooth Newton alone reaches the exact sticking impulses −G⁻¹g
  Eigen::Matrix<double, 6, 6> A;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) A(i, j) = std::sin(1.0 + 3 * i + 7 * j);
  const MatrixXd G = A * A.transpose() + 0.5 * MatrixXd::Identity(6, 6);
  VectorXd g(6);
  g << -1.0, 0.02, -0.03, -0.8, 0.01, 0.02;
  const VectorXd stop = -G.ldlt().solve(g);
  ASSERT_GT(stop(0), 0);
  ASSERT_GT(stop(3), 0);
  ASSERT_LT(stop.segment<2>(1).norm(), 0.9 * stop(0));  // inside the cones of μ = 0.9
  ASSERT_LT(stop.segment<2>(4).norm(), 0.9 * stop(3));
  VectorXd lambda = stop + 1e-3 * VectorXd::Ones(6);
  const ContactSolverResult r =
      solve_contact_problem(G, g, {contact(0, 0.9), contact(3, 0.9)}, lambda, tight());
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_GT(r.newton_iterations, 0);
  EXPECT_LT((lambda - stop).norm(), 1e-12);
  // the same contact twice (G of rank 3): the split between the two is not determined;
  // from zero, ADMM's proximal steps give each half
  Eigen::Matrix3d B;
  B << 2.0, 0.3, -0.2, 0.3, 1.5, 0.1, -0.2, 0.1, 1.0;
  MatrixXd G2(6, 6);
  G2 << B, B, B, B;
  VectorXd g2(6);
  g2 << -1.0, 0.1, -0.05, -1.0, 0.1, -0.05;
  VectorXd both;
  const ContactSolverResult r2 =
      solve_contact_problem(G2, g2, {contact(0, 0.8), contact(3, 0.8)}, both, tight());
  EXPECT_TRUE(r2.converged);
  EXPECT_GT(r2.iterations, 0);
  const Vector3d one = -B.ldlt().solve(Vector3d(g2.head<3>()));
  EXPECT_LT((both.head<3>() - 0.5 * one).norm(), 1e-9);
  EXPECT_LT((both.tail<3>() - 0.5 * one).norm(), 1e-9);
  // the next step's problem, a little changed, from those impulses: Newton's least-squares
  // steps of least norm keep the even split, without ADMM
  g2 << -1.01, 0.1, -0.04, -1.01, 0.1, -0.04;
  const ContactSolverResult r3 =
      solve_contact_problem(G2, g2, {contact(0, 0.8), contact(3, 0.8)}, both, tight());
  EXPECT_TRUE(r3.converged);
  EXPECT_EQ(r3.iterations, 0);
  EXPECT_GT(r3.newton_iterations, 0);
  const Vector3d next = -B.ldlt().solve(Vector3d(g2.head<3>()));
  EXPECT_LT((both.head<3>() - 0.5 * next).norm(), 1e-9);
  EXPECT_LT((both.tail<3>() - 0.5 * next).norm(), 1e-9);
}

// The midpoint passes solve a step's problem again with g moved a little: the second
// solve takes chord steps on the first's Newton factor (no new J, no new factor).  On
// unilateral rows (the natural map piecewise affine) one chord step is exact: the moved
// problem's −G⁻¹g with every row pushing; so do the next step's, G moved by its motion.
// A G moved further forms its own factor.
// (A sticking contact's Jacobian has μ t̂ᵀ with t̂ the direction of the residual's own
// tangential velocity: there a kept J can raise the residual, and Newton takes over.)
TEST(ContactSolver, TheSameProblemAgainTakesChordSteps) {
  Eigen::Matrix4d A;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) A(i, j) = std::sin(1.0 + 3 * i + 7 * j);
  const MatrixXd G = A * A.transpose() + 0.5 * MatrixXd::Identity(4, 4);
  std::vector<ContactBlock> blocks(4);
  for (int k = 0; k < 4; ++k) {
    blocks[k].kind = ContactBlock::Kind::Unilateral;
    blocks[k].row = k;
  }
  // g = −G λ* for impulses λ* > 0: every row pushes
  const VectorXd push = Eigen::Vector4d(0.3, 0.5, 0.2, 0.4);
  VectorXd g = -G * push;
  ContactWorkspace w;
  VectorXd lambda = push + 1e-3 * VectorXd::Ones(4);
  const ContactSolverResult first = solve_contact_problem(G, g, blocks, lambda, tight(), &w);
  ASSERT_TRUE(first.converged);
  ASSERT_GT(first.newton_iterations, 0);
  EXPECT_TRUE(w.chord);
  g(0) += 1e-6;
  g(3) -= 2e-6;
  const ContactSolverResult again = solve_contact_problem(G, g, blocks, lambda, tight(), &w);
  EXPECT_TRUE(again.converged);
  EXPECT_EQ(again.iterations, 0);
  EXPECT_GT(again.newton_iterations, 0);
  EXPECT_FALSE(w.factored);  // chord steps alone
  EXPECT_TRUE(w.chord);      // kept for the next pass
  EXPECT_LT((lambda - (-G.ldlt().solve(g))).norm(), 1e-12);
  // the next step's problem of a resting island: G moved by 1e-6 of itself, g too; the
  // kept factor's chord steps reach its exact answer
  const MatrixXd G4 = G + 1e-6 * A * A.transpose();
  g(1) += 3e-6;
  const ContactSolverResult next = solve_contact_problem(G4, g, blocks, lambda, tight(), &w);
  EXPECT_TRUE(next.converged);
  EXPECT_FALSE(w.factored);
  EXPECT_LT((lambda - (-G4.ldlt().solve(g))).norm(), 1e-12);
  // a G moved by a few per cent of itself is another problem: Newton forms its own factor
  const MatrixXd G3 = G + 0.1 * MatrixXd::Identity(4, 4);
  const ContactSolverResult other = solve_contact_problem(G3, g, blocks, lambda, tight(), &w);
  EXPECT_TRUE(other.converged);
  EXPECT_TRUE(w.factored);
  EXPECT_LT((lambda - (-G3.ldlt().solve(g))).norm(), 1e-12);
  EXPECT_EQ(w.chord_G, G3);
}

// G = B Bᵀ of ten bodies in a ring of ten contacts (B: a row's entries on the two bodies of
// its contact, 60 columns,
// beyond the dense small island): BᵀB's pattern is formed once and its values again at each
// solve while B's pattern is the same (form_gram's lower triangle against the dense product's).
// Each problem's g is −G λ* for impulses λ* strictly inside their cones, the unique solution (G
// definite): a second problem on the same pattern with other values, and a third on another
// pattern, reach theirs
TEST(ContactSolver, LowRankDelassusKeepsItsPatternAndFormsItsValues) {
  const int bodies = 10, contacts = 10, n = 3 * contacts;
  const auto problem = [&](double phase, bool drop_one) {
    LowRankDelassus G;
    std::vector<Eigen::Triplet<double>> entries;
    for (int k = 0; k < contacts; ++k) {
      const int a = k, b = (k + 1) % bodies;  // a ring of contacts
      for (int r = 3 * k; r < 3 * k + 3; ++r)
        for (int c = 0; c < 6; ++c) {
          if (drop_one && r == 0 && c == 5) continue;
          entries.emplace_back(r, 6 * a + c,
                               std::sin(phase + 1.3 * r + 0.7 * c) + (c == r % 3 ? 2.0 : 0.0));
          entries.emplace_back(r, 6 * b + c, 0.5 * std::cos(phase + 0.9 * r - 1.1 * c));
        }
    }
    G.B.resize(n, 6 * bodies);
    G.B.setFromTriplets(entries.begin(), entries.end());
    G.B.makeCompressed();
    G.diagonal = MatrixXd(G.B).rowwise().squaredNorm();
    return G;
  };
  std::vector<ContactBlock> blocks;
  for (int k = 0; k < contacts; ++k) blocks.push_back(contact(3 * k, 0.8));
  ContactWorkspace w, gram;
  ContactSolverOptions o;
  o.tolerance = 1e-12;
  for (const auto& [phase, drop_one] : {std::pair{0.0, false}, {0.4, false}, {0.4, true}}) {
    const LowRankDelassus G = problem(phase, drop_one);
    const MatrixXd dense = MatrixXd(G.B) * MatrixXd(G.B).transpose();
    form_gram(G.B, gram);  // after the last problem's: the same pattern, or another
    // the lower triangle, which the factor reads
    const MatrixXd product = MatrixXd(G.B).transpose() * MatrixXd(G.B);
    const MatrixXd lower = MatrixXd(gram.K).triangularView<Eigen::Lower>();
    EXPECT_LT((lower - MatrixXd(product.triangularView<Eigen::Lower>())).norm(), 1e-12)
        << phase << " " << drop_one;
    ASSERT_GT(Eigen::SelfAdjointEigenSolver<MatrixXd>(dense).eigenvalues()(0), 1e-2);
    VectorXd star(n);
    for (int k = 0; k < contacts; ++k)
      star.segment<3>(3 * k) =
          Vector3d(1.0 + 0.1 * k, 0.3 * std::sin(k + phase), 0.2 * std::cos(k));
    const VectorXd g = -dense * star;
    VectorXd lambda;
    const ContactSolverResult r = solve_contact_problem(G, g, blocks, lambda, o, &w);
    EXPECT_TRUE(r.converged) << phase << " " << drop_one;
    EXPECT_LT((lambda - star).lpNorm<Eigen::Infinity>(), 1e-8) << phase << " " << drop_one;
  }
}

TEST(ContactSolver, SlidingTakesTheExactCoulombDirection) {
  // a particle of mass 2 hitting the ground at 3 m/s while sliding at (4, −3) m/s:
  // λ_n = m v_n, λ_t = −μ λ_n u_t/|u_t| (a circle, not a pyramid), u_t = v_t − μ v_n v_t/|v_t|
  const double m = 2.0, mu = 0.3;
  const MatrixXd G = MatrixXd::Identity(3, 3) / m;
  const VectorXd g = Vector3d(-3.0, 4.0, -3.0);
  VectorXd lambda;
  const ContactSolverResult r = solve_contact_problem(G, g, {contact(0, mu)}, lambda, tight());
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(lambda(0), m * 3.0, 1e-12);
  const Eigen::Vector2d dir(0.8, -0.6);
  EXPECT_LT((lambda.tail<2>() + mu * m * 3.0 * dir).norm(), 1e-12);
  const VectorXd u = G * lambda + g;
  EXPECT_NEAR(u(0), 0.0, 1e-12);
  EXPECT_LT((u.tail<2>() - (5.0 - mu * 3.0) * dir).norm(), 1e-12);
}

TEST(ContactSolver, SeparatingContactCarriesNothing) {
  MatrixXd G(3, 3);
  G << 2.0, 0.3, -0.2, 0.3, 1.5, 0.1, -0.2, 0.1, 1.0;
  VectorXd lambda = Vector3d(5, 1, 1);  // a stale warm start
  const ContactSolverResult r =
      solve_contact_problem(G, Vector3d(0.5, 2.0, 1.0), {contact(0, 0.5)}, lambda, tight());
  EXPECT_TRUE(r.converged);
  EXPECT_LT(lambda.norm(), 1e-13);
}

// a box of mass m, inertia diag(I) at its centre, resting on its four bottom corners
// (±a, ±b, −c): the rows of the twist (v, ω) for normal z and tangents x, y
MatrixXd box_rows(double a, double b, double c) {
  MatrixXd J(12, 6);
  const Vector3d dirs[3] = {Vector3d::UnitZ(), Vector3d::UnitX(), Vector3d::UnitY()};
  int k = 0;
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0}) {
      const Vector3d r(sx * a, sy * b, -c);
      for (const Vector3d& d : dirs) {
        J.block<1, 3>(k, 0) = d.transpose();
        J.block<1, 3>(k, 3) = r.cross(d).transpose();
        ++k;
      }
    }
  return J;
}

TEST(ContactSolver, FourRedundantCornersGiveTheUniqueNetImpulse) {
  const double m = 3.0, a = 0.2, b = 0.1, c = 0.05;
  VectorXd Minv(6);
  Minv << 1 / m, 1 / m, 1 / m, 1 / 0.01, 1 / 0.02, 1 / 0.025;
  const MatrixXd J = box_rows(a, b, c);
  const MatrixXd G = J * Minv.asDiagonal() * J.transpose();  // rank 6 of 12: singular
  std::vector<ContactBlock> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(contact(3 * i, 1.0));
  // the box lands flat at 2 m/s with a small sideways velocity: it sticks, stops, and the
  // net impulse is −m v whatever the split among the corners
  Eigen::Matrix<double, 6, 1> v;
  v << 0.1, -0.05, -2.0, 0, 0, 0;
  const VectorXd g = J * v;
  VectorXd lambda;
  const ContactSolverResult r = solve_contact_problem(G, g, blocks, lambda, tight());
  EXPECT_TRUE(r.converged) << r.residual << " after " << r.iterations;
  Vector3d net = Vector3d::Zero();
  for (int i = 0; i < 4; ++i) {
    net += Vector3d(lambda(3 * i + 1), lambda(3 * i + 2), lambda(3 * i));
    EXPECT_GE(lambda(3 * i), -1e-15);
    EXPECT_LE(lambda.segment<2>(3 * i + 1).norm(), lambda(3 * i) + 1e-12);
  }
  EXPECT_LT((net + m * v.head<3>()).norm(), 1e-11);
  EXPECT_LT((G * lambda + g).norm(), 1e-11);  // every corner at rest
}

TEST(ContactSolver, UnilateralAndBoundedRows) {
  // two coupled limit rows: the first is pushed in, the second opens (by enumeration:
  // λ = (1/2, 0), u = (0, 3/2))
  MatrixXd G(2, 2);
  G << 2.0, 1.0, 1.0, 2.0;
  std::vector<ContactBlock> blocks(2);
  blocks[0].kind = blocks[1].kind = ContactBlock::Kind::Unilateral;
  blocks[1].row = 1;
  VectorXd lambda;
  ContactSolverResult r =
      solve_contact_problem(G, Eigen::Vector2d(-1.0, 1.0), blocks, lambda, tight());
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(lambda(0), 0.5, 1e-13);
  EXPECT_NEAR(lambda(1), 0.0, 1e-13);
  // a Coulomb-bounded row |λ| ≤ 1: sticks for a small push, saturates for a big one
  ContactBlock f;
  f.kind = ContactBlock::Kind::Bounded;
  f.bound = 1.0;
  const MatrixXd G1 = MatrixXd::Constant(1, 1, 2.0);
  VectorXd l1;
  r = solve_contact_problem(G1, VectorXd::Constant(1, -1.0), {f}, l1, tight());
  EXPECT_NEAR(l1(0), 0.5, 1e-13);
  l1.resize(0);
  r = solve_contact_problem(G1, VectorXd::Constant(1, -10.0), {f}, l1, tight());
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(l1(0), 1.0, 1e-13);
}

TEST(ContactSolver, ResidualVanishesOnlyAtSolutions) {
  const MatrixXd G = MatrixXd::Identity(3, 3);
  const VectorXd g = Vector3d(-1.0, 0.0, 0.0);
  EXPECT_EQ(contact_residual(G, g, {contact(0, 0.5)}, Vector3d(1, 0, 0)), 0.0);
  EXPECT_GT(contact_residual(G, g, {contact(0, 0.5)}, Vector3d(0.5, 0, 0)), 0.4);
}

// One contact moved by one hinge rate: G = a aᵀ of rank 1 (normal and tangent both turn the
// link), the free velocity a σ plus a small normal shift off G's range (the gap's), the
// numbers of an arm landing nearly flat.  From every warm start the solution obeys the law
// (λ in the cone, û = u + μ‖u_t‖ e_n in the dual cone, λ · û = 0); before, a warm start near
// the sticking impulse left ADMM at a residual of 1e-4 after 5,000 iterations, and in the
// stepper the penalty's decrease made it diverge to impulses of 4e20.
TEST(ContactSolver, RankOneDelassusOfAHingedLink) {
  MatrixXd G(3, 3);
  G << 1.7063226840691357, 0.34298306897696285, 0, 0.34298306897696285, 0.068942051057026027, 0, 0,
      0, 0;
  VectorXd g(3);
  g << -2.4517153501947431, -0.49292948022881977, 0;
  const double mu = 0.8;
  for (const Vector3d& warm :
       {Vector3d(0, 0, 0), Vector3d(1, 0.5, 0), Vector3d(1.4, 0, 0), Vector3d(1e3, 0, 0)}) {
    VectorXd lambda = warm;
    const ContactSolverResult r = solve_contact_problem(G, g, {contact(0, mu)}, lambda);
    ASSERT_TRUE(r.converged) << warm.transpose() << ": residual " << r.residual;
    EXPECT_LE(r.iterations, 500);
    const Vector3d u = G * lambda + g;
    const Vector3d uh(u(0) + mu * u.tail<2>().norm(), u(1), u(2));
    EXPECT_LE(lambda.tail<2>().norm(), mu * lambda(0) + 1e-12);  // in K_μ
    EXPECT_GE(uh(0) - mu * uh.tail<2>().norm(), -1e-9);          // in K_μ*
    EXPECT_NEAR(lambda.dot(uh), 0.0, 1e-9);                      // complementary
    EXPECT_NEAR(G.row(0).dot(lambda), -g(0), 1e-9);              // the link stops: no approach left
  }
}

// The semismooth Newton polish alone (ADMM held to one iteration): quadratic, it reaches
// 1e-13 in a few steps on the sliding and sticking laws, where the closed forms hold, and
// on a random well-posed problem of four contacts gives ADMM's (unique) impulses.
TEST(ContactSolver, NewtonPolishReachesTheClosedFormsWhereAdmmStops) {
  ContactSolverOptions one = tight();
  one.max_iterations = 1;
  {  // sliding (the closed form of SlidingTakesTheExactCoulombDirection)
    const double m = 2.0, mu = 0.3;
    const MatrixXd G = MatrixXd::Identity(3, 3) / m;
    VectorXd lambda = Vector3d(1, 0, 0);
    const ContactSolverResult r =
        solve_contact_problem(G, Vector3d(-3.0, 4.0, -3.0), {contact(0, mu)}, lambda, one);
    ASSERT_TRUE(r.converged) << r.residual;
    EXPECT_GT(r.newton_iterations, 0);
    EXPECT_LE(r.newton_iterations, 20);
    EXPECT_NEAR(lambda(0), m * 3.0, 1e-12);
    EXPECT_LT((lambda.tail<2>() + mu * m * 3.0 * Eigen::Vector2d(0.8, -0.6)).norm(), 1e-12);
  }
  {  // sticking: u = 0, λ = −G⁻¹ g inside the cone
    MatrixXd G(3, 3);
    G << 2, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.2;
    const Vector3d g(-1.0, 0.1, -0.05);
    VectorXd lambda = Vector3d::Zero();
    const ContactSolverResult r = solve_contact_problem(G, g, {contact(0, 1.0)}, lambda, one);
    ASSERT_TRUE(r.converged) << r.residual;
    const Vector3d exact = -G.ldlt().solve(g);
    ASSERT_LT(exact.tail<2>().norm(), exact(0));  // inside the cone: the sticking solution
    EXPECT_LT((lambda - exact).norm(), 1e-12);
  }
  std::srand(7);
  const MatrixXd B = MatrixXd::Random(12, 12);
  const MatrixXd G = B * B.transpose() / 12 + 0.1 * MatrixXd::Identity(12, 12);
  const VectorXd g = VectorXd::Random(12);
  std::vector<ContactBlock> blocks;
  for (int c = 0; c < 4; ++c) blocks.push_back(contact(3 * c, 0.2 + 0.3 * c));
  VectorXd admm, newton;
  ASSERT_TRUE(solve_contact_problem(G, g, blocks, admm, tight()).converged);
  const ContactSolverResult r = solve_contact_problem(G, g, blocks, newton, one);
  ASSERT_TRUE(r.converged) << r.residual;
  EXPECT_LT((newton - admm).norm(), 1e-9 * (1 + admm.norm()));
}

}  // namespace
}  // namespace appell
