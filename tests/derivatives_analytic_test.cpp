// The analytical derivatives of inverse and forward dynamics (every joint type,
// engine/formulations/recursive/rnea_derivatives.cpp) against the automatic differentiation
// path on the same model, and against Richardson-extrapolated central differences of the
// recursion: trees of turns and slides, one tree per other joint type, and random trees
// mixing every type (particles as roots).
#include <gtest/gtest.h>

#include <Eigen/SVD>
#include <appell/derivatives.hpp>
#include <appell/inverse_dynamics.hpp>
#include <appell/jacobians.hpp>
#include <appell/joint_forces.hpp>
#include <limits>
#include <set>
#include <string>

#include "engine/formulations/recursive/derivatives_paths.hpp"
#include "numeric_derivatives.hpp"
#include "random_chain.hpp"

namespace appell {
namespace {

using detail::DerivativePath;
using test_chain::random_state;
using test_scenes::Rng;

using test_derivatives::numeric_derivatives;
using test_derivatives::rel_gap;

// The joint types a scene can name, each with the tangent directions its q has
const char* const kTypes[] = {"revolute",    "prismatic", "spherical", "universal", "free",
                              "cylindrical", "planar",    "helical",   "fixed"};

// A random branched tree: body i hangs from a random earlier body (or the world) on a
// revolute or prismatic joint (one weld), with springs, dampers, a servo and armature;
// `odd_type` puts one joint of that type near the tips, `mixed` draws every joint's type
// from kTypes and adds two particles (roots on particle joints).
Model random_tree(unsigned seed, int n, const char* odd_type = nullptr, bool mixed = false) {
  Rng rng(seed);
  ModelBuilder b;
  b.gravity = Vec3(0.4, -0.3, -9.81);
  std::vector<std::shared_ptr<Joint>> joints;
  for (int i = 0; i < n; ++i) {
    Body body = test_chain::random_rigid_body(rng, "b" + std::to_string(i));
    body.position = Vec3(0.2 * rng.uniform(-1, 1), 0.2 * rng.uniform(-1, 1), -0.3 * i);
    body.orientation = rng.quat();
    b.add_body(body);
    const int pick = i == 0 ? -1 : rng.integer(-1, i - 1);
    const int parent = pick < 0 ? kWorld : pick;
    const char* type = rng.uniform(0, 1) < 0.6 ? "revolute" : "prismatic";
    if (mixed) type = kTypes[rng.integer(0, 8)];
    if (i == n / 2) type = "fixed";
    if (odd_type && i == n - 2) type = odd_type;
    const Vec3 axis = rng.unit();
    Vec3 axis2 = rng.unit();  // the child's axis of a universal joint, across the first
    axis2 = (axis2 - axis2.dot(axis) * axis).normalized();
    // the last joint is written child first: the tree runs it reversed (no forces on it)
    const bool reversed = i == n - 1 && parent != kWorld;
    const int from = reversed ? i : parent, to = reversed ? parent : i;
    auto j = std::make_shared<Joint>(
        "j" + std::to_string(i),
        std::string(type) == "helical"
            ? joint_type(type).with_parameter(rng.uniform(-0.2, 0.2))
            : std::shared_ptr<const JointType>(std::shared_ptr<void>(), &joint_type(type)),
        from, to, b.initial_state(from), b.initial_state(to), body.position + rng.vec(0.2), axis,
        axis2);
    JointProperties p;
    p.armature = rng.uniform(0, 0.1);
    j->set_properties(p);
    if (!reversed) joints.push_back(j);
    b.add_constraint(j);
  }
  for (int k = 0; mixed && k < 2; ++k) {  // particles: roots on particle joints
    Body p;
    p.name = "particle" + std::to_string(k);
    p.type = BodyType::Particle;
    p.mass = rng.uniform(0.5, 2.0);
    p.position = rng.vec(0.5);
    p.velocity = rng.vec(1.0);
    b.add_body(p);
  }
  bool servo = false;
  for (const auto& j : joints) {
    const JointType& t = j->joint_type();
    if (t.nu() == 0) continue;
    if (t.quaternion() < 0) {
      if (!servo && std::string(t.name()) == "revolute") {
        std::vector<Expression> target;
        target.push_back(Expression::parse("0.3*sin(2*t)", {}, nullptr));
        b.add_force(std::make_shared<JointServo>(j, 40.0, 3.0, std::move(target)));
        servo = true;
      } else {
        Eigen::VectorXd rest = Eigen::VectorXd::Constant(t.nq(), rng.uniform(-0.3, 0.3));
        b.add_force(std::make_shared<JointSpring>(j, rng.uniform(1, 20), rest, 0.7));
      }
    }
    b.add_force(std::make_shared<JointDamping>(j, rng.uniform(0.1, 2)));
  }
  return compile(b);
}

Eigen::VectorXd random_vector(int n, double r, Rng& rng) {
  return Eigen::VectorXd::NullaryExpr(n, [&](Eigen::Index) { return rng.uniform(-r, r); });
}

// both paths' derivatives at s, and the analytical ones against differences
void check_against_ad_and_differences(const Model& m, const State& s, Rng& rng,
                                      const std::string& what) {
  const int nu = m.tree().nu;
  ASSERT_EQ(detail::derivative_path(m), DerivativePath::Analytic) << what;
  Data d(m);
  const Eigen::VectorXd udot = random_vector(nu, 2, rng), tau = random_vector(nu, 3, rng);
  InverseDerivatives ia, iad;
  ForwardDerivatives fa, fad;
  detail::inverse_dynamics_derivatives(m, d, s, udot, ia, DerivativePath::Analytic);
  detail::inverse_dynamics_derivatives(m, d, s, udot, iad, DerivativePath::Automatic);
  detail::forward_dynamics_derivatives(m, d, s, tau, fa, DerivativePath::Analytic);
  detail::forward_dynamics_derivatives(m, d, s, tau, fad, DerivativePath::Automatic);
  EXPECT_LT(rel_gap(ia.tau, iad.tau), 1e-12) << what;
  EXPECT_LT(rel_gap(ia.M, iad.M), 1e-12) << what;
  EXPECT_LT(rel_gap(ia.dtau_dq, iad.dtau_dq), 1e-12) << what;
  EXPECT_LT(rel_gap(ia.dtau_du, iad.dtau_du), 1e-12) << what;
  EXPECT_LT(rel_gap(fa.udot, fad.udot), 1e-12) << what;
  EXPECT_LT(rel_gap(fa.dudot_dq, fad.dudot_dq), 1e-12) << what;
  EXPECT_LT(rel_gap(fa.dudot_du, fad.dudot_du), 1e-12) << what;
  EXPECT_LT(rel_gap(fa.dudot_dtau, fad.dudot_dtau), 1e-12) << what;

  // the public functions take the analytical path
  InverseDerivatives ip;
  inverse_dynamics_derivatives(m, d, s, udot, ip);
  EXPECT_EQ(ip.dtau_dq, ia.dtau_dq) << what;

  // independent: the recursion itself, differenced along the tangent
  Eigen::VectorXd tau0;
  inverse_dynamics(m, d, s, udot, tau0);
  EXPECT_LT(rel_gap(ia.tau, tau0), 1e-12) << what;
  Eigen::MatrixXd M;
  mass_matrix(m, d, s, M);
  EXPECT_LT(rel_gap(ia.M, M), 1e-13) << what;
  const auto n = numeric_derivatives(m, s, udot, tau);
  EXPECT_LT(rel_gap(ia.dtau_dq, n.id_q), 1e-8) << what;
  EXPECT_LT(rel_gap(ia.dtau_du, n.id_u), 1e-8) << what;
  EXPECT_LT(rel_gap(fa.dudot_dq, n.fd_q), 1e-8) << what;
  EXPECT_LT(rel_gap(fa.dudot_du, n.fd_u), 1e-8) << what;
  EXPECT_LT(rel_gap(fa.dudot_dtau, n.fd_tau), 1e-8) << what;
  EXPECT_LT(rel_gap(fa.dudot_dtau * M, Eigen::MatrixXd::Identity(nu, nu)), 1e-10) << what;
}

TEST(DerivativesAnalytic, RandomBranchedTreesMatchAutomaticAndDifferences) {
  int reversed = 0;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    const Model m = random_tree(seed, 7 + static_cast<int>(seed));
    bool branched = false;
    for (const auto& kids : m.tree().children) branched = branched || kids.size() > 1;
    int roots = 0;
    for (const TreeJoint& t : m.tree().joints) roots += t.parent < 0;
    EXPECT_TRUE(branched || roots > 1) << "seed " << seed << " gives a chain";
    for (const TreeJoint& t : m.tree().joints) reversed += t.reversed;
    Rng rng(seed + 900);
    const State s = random_state(m, rng);
    check_against_ad_and_differences(m, s, rng, "seed " + std::to_string(seed));
  }
  EXPECT_GT(reversed, 0);  // some tree runs a joint from its child to its parent
}

TEST(DerivativesAnalytic, LongChainMatchesAutomatic) {
  // depth 40: the ancestor sums of the backward pass along one long path
  test_chain::Chain c = test_chain::random_chain(11, 40, false, true);
  const Model m = compile(c.b);
  Rng rng(11);
  const State s = random_state(m, rng);
  const int nu = m.tree().nu;
  Data d(m);
  const Eigen::VectorXd tau = random_vector(nu, 3, rng);
  ASSERT_EQ(detail::derivative_path(m), DerivativePath::Analytic);
  ForwardDerivatives fa, fad;
  detail::forward_dynamics_derivatives(m, d, s, tau, fa, DerivativePath::Analytic);
  detail::forward_dynamics_derivatives(m, d, s, tau, fad, DerivativePath::Automatic);
  InverseDerivatives ia, iad;
  detail::inverse_dynamics_derivatives(m, d, s, tau, ia, DerivativePath::Analytic);
  detail::inverse_dynamics_derivatives(m, d, s, tau, iad, DerivativePath::Automatic);
  EXPECT_LT(rel_gap(ia.dtau_dq, iad.dtau_dq), 1e-12);
  EXPECT_LT(rel_gap(ia.dtau_du, iad.dtau_du), 1e-12);
  // the forward ones go through M⁻¹ (condition about 1e6 here): equal to rounding times
  // the condition number, the perturbation bound of the solve
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(fa.dudot_dtau);
  const double cond = svd.singularValues()(0) / svd.singularValues()(nu - 1);
  const double eps = std::numeric_limits<double>::epsilon();
  EXPECT_LT(rel_gap(fa.dudot_dq, fad.dudot_dq), eps * cond);
  EXPECT_LT(rel_gap(fa.dudot_du, fad.dudot_du), eps * cond);
}

TEST(DerivativesAnalytic, EveryJointTypeMatchesAutomaticAndDifferences) {
  // one joint of each type near the tips of a tree of turns and slides: its own terms
  // (Ŝ, V̂, Â, Ĉ of rnea_derivatives.cpp) against the dual numbers and the differences
  unsigned seed = 21;
  for (const char* odd : kTypes) {
    const Model m = random_tree(seed, 6, odd);
    Rng rng(seed + 1);
    const State s = random_state(m, rng);
    check_against_ad_and_differences(m, s, rng, odd);
    seed += 2;
  }
}

TEST(DerivativesAnalytic, RandomMixedTreesMatchAutomaticAndDifferences) {
  std::set<std::string> seen;
  for (unsigned seed = 40; seed < 46; ++seed) {
    const Model m = random_tree(seed, 9, nullptr, true);
    for (const TreeJoint& t : m.tree().joints) seen.insert(t.type->name());
    Rng rng(seed + 300);
    const State s = random_state(m, rng);
    check_against_ad_and_differences(m, s, rng, "mixed seed " + std::to_string(seed));
  }
  for (const char* type : kTypes) EXPECT_TRUE(seen.count(type)) << type;
  EXPECT_TRUE(seen.count("particle"));
}

}  // namespace
}  // namespace appell
