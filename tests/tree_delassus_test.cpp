// The tree's Delassus operator (engine/contact/delassus.hpp) against closed forms and the
// dense J M⁻¹ Jᵀ: a free body, stacks of boxes as islands, a robot on its feet, a loop.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "appell/jacobians.hpp"
#include "engine/assembly/row_terms.hpp"
#include "engine/contact/delassus.hpp"
#include "engine/contact/moreau.hpp"
#include "engine/contact/ncp.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/model/tree.hpp"

namespace appell {
namespace {

TEST(TreeDelassus, FreeBodyMatchesJMinvJt) {
  // a free rigid body: G = J M⁻¹ Jᵀ with M = diag(m I, J_world), the response in the free
  // joint's quasi-velocities; checked against the closed form through the body's twist
  ModelBuilder b;
  Body B;
  B.name = "B";
  B.mass = 2.0;
  B.inertia = Vec3(0.1, 0.2, 0.3).asDiagonal();
  B.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
  B.position = Vec3(0.1, -0.2, 0.3);
  b.add_body(B);
  const Model m = compile(b);
  Data d(m);
  const Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  ASSERT_EQ(recursive_rates(m, d, q, u, {}), SolveStatus::Ok);
  std::vector<TwistRow> rows = {point_row(d, kWorld, 0, Vec3(0.2, 0.1, 0.0), Vec3(0, 0, 1)),
                                point_row(d, kWorld, 0, Vec3(0.2, 0.1, 0.0), Vec3(1, 0, 0)),
                                point_row(d, kWorld, 0, Vec3(-0.1, 0.3, 0.1), Vec3(0.6, 0, 0.8))};
  Eigen::MatrixXd G, R;
  tree_delassus(m, d, rows, G, R);
  Eigen::Matrix<double, 6, 6> Minv = Eigen::Matrix<double, 6, 6>::Zero();
  Minv.topLeftCorner<3, 3>() = Mat3::Identity() / B.mass;
  const Mat3 Q = d.body[0].Q;
  Minv.bottomRightCorner<3, 3>() = (Q * B.inertia * Q.transpose()).inverse();
  Eigen::MatrixXd J(3, 6);
  for (int k = 0; k < 3; ++k)
    J.row(k) << rows[k].term[1].force.transpose(), rows[k].term[1].moment.transpose();
  const Eigen::MatrixXd JM = J * Minv;
  const Eigen::MatrixXd want = JM * J.transpose();
  EXPECT_LT((G - want).cwiseAbs().maxCoeff(), 1e-12);
  // the response, seen as row velocities, is G itself
  for (int k = 0; k < 3; ++k) {
    Eigen::VectorXd v;
    row_velocities(m, d, rows, R.col(k), v);
    EXPECT_LT((v - G.col(k)).norm(), 1e-12);
  }
}

// n free boxes in a column, `corners` contacts (3 rows each) under each: one island in which
// a box's rows meet only its neighbours'.  Checks that its island matrix equals the dense G
// of the same rows, formed by the recursion, and that the solver gives the same motion on
// both; returns the island's matrix.
IslandMatrix stack_island(int n, int corners) {
  ModelBuilder b;
  for (int k = 0; k < n; ++k) {
    Body B;
    B.name = "box" + std::to_string(k);
    B.mass = 1.0 + 0.1 * k;
    B.inertia = Vec3(0.002, 0.0021, 0.0019).asDiagonal() * B.mass;
    B.position = Vec3(0.001 * k, 0.0, 0.05 + 0.1 * k);
    B.orientation = Quat(Eigen::AngleAxisd(0.1 * k, Vec3(0.3, 0.2, 1).normalized()));
    b.add_body(B);
  }
  const Model m = compile(b);
  Data d(m);
  EXPECT_EQ(recursive_rates(m, d, m.initial_state().q, m.initial_state().u, {}), SolveStatus::Ok);
  std::vector<TwistRow> rows;
  for (int k = 0; k < n; ++k)
    for (int c = 0; c < corners; ++c) {
      const Vec3 p(0.001 * k + ((c & 1) ? 0.05 : -0.05), (c & 2) ? 0.05 : -0.05, 0.1 * k);
      for (const Vec3& dir : {Vec3(0, 0, 1), Vec3(1, 0, 0), Vec3(0, 1, 0)})
        rows.push_back(point_row(d, k == 0 ? kWorld : k - 1, k, p, dir));
    }
  const int rows_n = static_cast<int>(rows.size());
  Eigen::MatrixXd G, R, G1, R1;
  tree_delassus(m, d, rows, G, R);  // dense, the whole matrix
  const std::vector<int> first(rows_n, 0);
  ResponseSupport support;
  std::vector<IslandMatrix> islands;
  tree_delassus(m, d, rows, G1, R1, &first, &support, &islands);
  EXPECT_EQ(islands.size(), 1u);
  if (islands.size() != 1) return {};
  const IslandMatrix& I = islands[0];
  Eigen::MatrixXd S(rows_n, rows_n);
  if (I.factored)
    S = Eigen::MatrixXd(I.low_rank.B) * Eigen::MatrixXd(I.low_rank.B).transpose();
  else if (I.sparse)
    S = I.coupled;
  else
    S = I.dense;
  EXPECT_LT((S - G).norm(), 1e-12 * G.norm());
  for (int k = 0; k < rows_n; ++k) EXPECT_NEAR(I.diagonal(k), G(k, k), 1e-12 * G(k, k));
  // each row's response R Jᵀ e_k, kept on its bodies' velocities, equals the whole
  // response's column
  for (int k = 0; k < rows_n; ++k) {
    Eigen::VectorXd unit = Eigen::VectorXd::Unit(rows_n, k), du = Eigen::VectorXd::Zero(R.rows());
    add_response(R1, support, unit, du);
    EXPECT_LT((du - R.col(k)).norm(), 1e-12 * R.col(k).norm()) << "row " << k;
  }
  // the same problem on both, μ = 0.8: free velocities the bodies can have (g = J v, in G's
  // range: with redundant corners any other g has no sticking solution), pressing each box
  // down and sliding some
  std::vector<ContactBlock> blocks(n * corners);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(rows_n);
  for (int c = 0; c < n * corners; ++c) {
    blocks[c].row = 3 * c;
    blocks[c].mu = 0.8;
    x(3 * c) = -0.01 * (1 + c % 3);
    x(3 * c + 1) = 0.005 * (c % 5 - 2);
  }
  const Eigen::VectorXd g = G * x;
  Eigen::VectorXd ld, ls;
  ContactSolverOptions o;
  o.tolerance = 1e-12;
  const ContactSolverResult rd = solve_contact_problem(G, g, blocks, ld, o);
  const ContactSolverResult rs = I.factored ? solve_contact_problem(I.low_rank, g, blocks, ls, o)
                                 : I.sparse ? solve_contact_problem(I.coupled, g, blocks, ls, o)
                                            : solve_contact_problem(I.dense, g, blocks, ls, o);
  EXPECT_TRUE(rd.converged);
  EXPECT_TRUE(rs.converged);
  // the motion is unique where the impulses of redundant corners are not
  EXPECT_LT((G * (ld - ls)).lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_LE(contact_residual(G, g, blocks, ls), 1e-12);
  return I;
}

TEST(TreeDelassus, StackIslandIsSparseAndSolvesAsTheDenseOne) {
  // twenty boxes, two corners under each: 120 rows for 120 velocities, a box's rows meeting
  // only its neighbours' (24 of 120): G kept sparse
  const IslandMatrix I = stack_island(20, 2);
  EXPECT_TRUE(I.sparse);
  EXPECT_FALSE(I.factored);
  EXPECT_LT(I.coupled.nonZeros(), 120 * 120 / 4);
}

TEST(TreeDelassus, SmallIslandOfFreeBodiesByTheClosedForm) {
  // two boxes, four corners under each: 24 rows, G dense, formed from each body's D⁻¹ and
  // motion subspace instead of the recursion's passes: equal to the recursion's G
  const IslandMatrix I = stack_island(2, 4);
  EXPECT_FALSE(I.sparse);
  EXPECT_FALSE(I.factored);
  EXPECT_EQ(I.dense.rows(), 24);
}

TEST(TreeDelassus, OneBoxOnTheGroundByItsOwnClosedForm) {
  // one box on four corners (every island on one free body: the short path, without the
  // general path's bookkeeping): 12 rows, its G and responses equal to the recursion's
  const IslandMatrix I = stack_island(1, 4);
  EXPECT_FALSE(I.sparse);
  EXPECT_FALSE(I.factored);
  EXPECT_EQ(I.dense.rows(), 12);
  EXPECT_EQ(I.dense, I.dense.transpose());
}

TEST(TreeDelassus, StackOfFreeBoxesOnFourCornersKeepsGAsItsFactor) {
  // twelve boxes, four corners under each: 144 rows for 72 velocities, G = B Bᵀ of rank 72
  // at most; its factor B = J L⁻ᵀ from the boxes' masses and inertias equals the
  // recursion's G, and the solver, on BᵀB + ρI, gives the dense solve's motion
  const IslandMatrix I = stack_island(12, 4);
  EXPECT_TRUE(I.factored);
  EXPECT_EQ(I.low_rank.B.cols(), 72);
  EXPECT_LE(I.low_rank.B.nonZeros(), 144 * 12);
}

TEST(TreeDelassus, RobotOnItsFeetByTheJointSpaceMassMatrix) {
  // the quadruped (floating base, 18 velocities), its joints bent, three rows under each
  // foot: G and the responses formed in joint space (composite rigid bodies, M = Lᵀ L) equal
  // J M⁻¹ Jᵀ and M⁻¹ Jᵀ from the public mass matrix and body Jacobians (virtual power), and
  // the recursion's own G
  const Model m = load_model(std::string(APPELL_SOURCE_DIR) +
                             "/scenes/examples/robots/quadruped_standing.json");
  const TreeModel& tree = m.tree();
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  for (const TreeJoint& t : tree.joints)
    if (t.shape == JointShape::Turn) q(t.q_offset) += 0.3 + 0.1 * t.q_offset;
  u.setLinSpaced(u.size(), -0.5, 0.7);
  Data d(m), dm(m);
  ASSERT_EQ(recursive_rates(m, d, q, u, {}), SolveStatus::Ok);
  ASSERT_TRUE(joint_space_applies(m, d));
  std::vector<TwistRow> rows;
  std::vector<int> body_of, first;
  std::vector<Vec3> at, dir_of;
  for (size_t i = 0; i < tree.joints.size(); ++i)
    if (tree.children[i].empty()) {  // a foot
      const int b = tree.joints[i].body;
      const Vec3 p = d.body[b].x + Vec3(0.01, -0.02, -0.03);
      for (const Vec3& dir : {Vec3(0, 0, 1), Vec3(0.8, 0.6, 0), Vec3(-0.6, 0.8, 0)}) {
        rows.push_back(point_row(d, kWorld, b, p, dir));
        body_of.push_back(b);
        at.push_back(p);
        dir_of.push_back(dir);
        first.push_back(0);
      }
    }
  const int n = static_cast<int>(rows.size());
  ASSERT_EQ(n, 12);
  Eigen::MatrixXd G0, R0, G1, R1;
  Eigen::VectorXd diagonal;
  tree_delassus(m, d, rows, G0, R0);  // the recursion's, whole
  ResponseSupport support;
  std::vector<IslandMatrix> islands;
  tree_delassus(m, d, rows, G1, R1, &first, &support, &islands, &diagonal);
  ASSERT_EQ(islands.size(), 1u);
  ASSERT_TRUE(support.joint_space);
  const Eigen::MatrixXd& G = islands[0].dense;
  // the reference: J M⁻¹ Jᵀ by the public API
  Eigen::MatrixXd M, Jp, J(n, tree.nu);
  const State s{0.0, q, u};
  mass_matrix(m, dm, s, M);
  for (int k = 0; k < n; ++k) {
    body_jacobian(m, dm, s, body_of[k], at[k], Jp);
    J.row(k) = dir_of[k].transpose() * Jp.topRows<3>();
  }
  const Eigen::MatrixXd R = M.ldlt().solve(J.transpose());
  const Eigen::MatrixXd want = J * R;
  EXPECT_LT((G - want).norm(), 1e-10 * want.norm());
  EXPECT_LT((G - G0).norm(), 1e-10 * want.norm());
  // the response, kept as M's factor and L⁻ᵀ Jᵀ, to each row's unit impulse: M⁻¹ Jᵀ's column
  for (int k = 0; k < n; ++k) {
    Eigen::VectorXd unit = Eigen::VectorXd::Unit(n, k), du = Eigen::VectorXd::Zero(tree.nu);
    add_response(R1, support, unit, du);
    EXPECT_LT((du - R.col(k)).norm(), 1e-10 * R.norm()) << "row " << k;
  }
  for (int k = 0; k < n; ++k) EXPECT_NEAR(diagonal(k), want(k, k), 1e-10 * want(k, k));
}

TEST(TreeDelassus, FiveBoxStackSolvesOnItsDenseFactor) {
  // five boxes, four corners under each: 60 rows for 30 velocities, G = B Bᵀ with BᵀB small
  // enough to be formed and factored dense; the same motion as the dense solve
  const IslandMatrix I = stack_island(5, 4);
  EXPECT_TRUE(I.factored);
  EXPECT_EQ(I.low_rank.B.cols(), 30);
}

TEST(TreeDelassus, ResponseKeepsTheLoopClosed) {
  // a four-bar linkage: one joint closes the loop as bilateral extra rows; an impulse on a
  // contact row must move the linkage only along the loop's motions: A Δu = 0
  const Scene scene = load_scene(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json");
  const Model m = compile(scene);
  ASSERT_GT(m.tree().nrows_extra, 0);
  Data d(m);
  const Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  recursive_rates(m, d, q, u, {});  // its Inconsistent is provisional; the G factor stands
  std::vector<TwistRow> loop;       // the extra rows, as rows on the twists
  for (int c : m.tree().extra)
    for (int i = 0; i < m.constraints()[c]->rows(); ++i) {
      TwistRow r;
      int s = 0;
      for_row_terms(m, d, c, i, [&](int b, const SpatialForce& t) {
        ASSERT_LT(s, 2);
        r.body[s] = b;
        r.term[s++] = t;
      });
      loop.push_back(r);
    }
  const int b = m.nbody() - 1;
  const std::vector<TwistRow> rows = {
      point_row(d, kWorld, b, d.body[b].x + Vec3(0.05, 0.02, 0.0), Vec3(0, 0, 1)),
      point_row(d, kWorld, b, d.body[b].x + Vec3(0.05, 0.02, 0.0), Vec3(1, 0, 0))};
  Eigen::MatrixXd G, R;
  tree_delassus(m, d, rows, G, R);
  double scale = 0.0;
  for (int k = 0; k < 2; ++k) {
    Eigen::VectorXd a, v;
    row_velocities(m, d, loop, R.col(k), a);
    row_velocities(m, d, rows, R.col(k), v);
    scale = std::max(scale, R.col(k).norm());
    EXPECT_LT(a.norm(), 1e-12 * (1.0 + R.col(k).norm())) << k;
    EXPECT_LT((v - G.col(k)).norm(), 1e-12 * (1.0 + G.norm())) << k;
  }
  EXPECT_GT(scale, 0.0);
  // positive semi-definite (2 × 2)
  EXPECT_GT(G(0, 0), 0.0);
  EXPECT_GT(G(1, 1), 0.0);
  EXPECT_GE(G(0, 0) * G(1, 1) - G(0, 1) * G(1, 0), -1e-12 * G.squaredNorm());
}

}  // namespace
}  // namespace appell
