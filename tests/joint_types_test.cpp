// Every registered joint type (appell/joint_type.hpp) against its own definition,
// by finite differences of the motion it reports, and the two new types against closed
// forms.  A type added to the registry is checked here without a line of test code:
//   (J1) coordinates() inverts motion(): R(q), d(q) → q → the same R, d;
//   (J2) S(q) u is the motion's rate: d/dt R = (S_ang u)× R and d/dt d = S_lin u along
//        q̇ = N(q) u (J4);
//   (J3) Ṡ u: d/dt (S(q) u) at constant u;
//   S has orthonormal columns (tree_from_bodies reads u as Sᵀ V);
//   the canonical rows hold exactly when the bodies move as the motion says (g = 0, π = 0).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/tree.hpp>
#include <random>

#include "engine/assembly/stages.hpp"
#include "engine/model/tree.hpp"

namespace appell {

// gtest shows a joint type by its name, not its address
static void PrintTo(const JointType* t, std::ostream* os) {
  *os << t->name();
}

namespace {

double uniform(std::mt19937& rng, double a, double b) {
  return std::uniform_real_distribution<double>(a, b)(rng);
}

// a random q of `type`, normalised (unit quaternions)
std::vector<double> random_q(std::mt19937& rng, const JointType& type) {
  std::vector<double> q(type.nq());
  for (double& x : q) x = uniform(rng, -1.2, 1.2);
  type.normalize(q.data());
  return q;
}

std::string type_name(const ::testing::TestParamInfo<const JointType*>& info) {
  return info.param->name();
}

class EveryJointType : public ::testing::TestWithParam<const JointType*> {};

TEST_P(EveryJointType, CoordinatesInvertTheMotion) {
  const JointType& type = *GetParam();
  std::mt19937 rng(7);
  const double zero[6] = {0, 0, 0, 0, 0, 0};
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<double> q = random_q(rng, type);
    JointMotion a, b;
    type.motion(q.data(), zero, a);
    std::vector<double> q2(type.nq());
    type.coordinates(a.R, a.d, q2.data());
    type.motion(q2.data(), zero, b);
    EXPECT_LT((a.R - b.R).norm(), 1e-12);
    EXPECT_LT((a.d - b.d).norm(), 1e-12);
    const int nu = type.nu();
    const Eigen::MatrixXd StS = a.S.leftCols(nu).transpose() * a.S.leftCols(nu);
    EXPECT_LT((StS - Eigen::MatrixXd::Identity(nu, nu)).norm(), 1e-12);
  }
}

TEST_P(EveryJointType, SubspaceAndRateTermAreTheMotionsDerivatives) {
  const JointType& type = *GetParam();
  std::mt19937 rng(11);
  const double h = 1e-6;
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<double> q = random_q(rng, type);
    std::vector<double> u(type.nu()), qdot(type.nq()), qp(type.nq()), qm(type.nq());
    for (double& x : u) x = uniform(rng, -1, 1);
    type.qdot(q.data(), u.data(), qdot.data());
    for (int k = 0; k < type.nq(); ++k) {
      qp[k] = q[k] + h * qdot[k];
      qm[k] = q[k] - h * qdot[k];
    }
    JointMotion m0, mp, mm;
    type.motion(q.data(), u.data(), m0);
    type.motion(qp.data(), u.data(), mp);
    type.motion(qm.data(), u.data(), mm);
    Vec6 V = Vec6::Zero(), Vp = Vec6::Zero(), Vm = Vec6::Zero();
    for (int k = 0; k < type.nu(); ++k) {
      V += m0.S.col(k) * u[k];
      Vp += mp.S.col(k) * u[k];
      Vm += mm.S.col(k) * u[k];
    }
    // (J2): Ṙ Rᵀ = ω×,  ḋ = v
    const Mat3 W = (mp.R - mm.R) / (2 * h) * m0.R.transpose();
    EXPECT_LT((W - skew(V.tail<3>())).norm(), 1e-7) << "trial " << trial;
    EXPECT_LT(((mp.d - mm.d) / (2 * h) - V.head<3>()).norm(), 1e-7) << "trial " << trial;
    // (J3)
    EXPECT_LT(((Vp - Vm) / (2 * h) - m0.c).norm(), 1e-7) << "trial " << trial;
  }
}

// two random bodies joined by `type` at a random anchor and axes; the child placed by the
// motion at random q, u; the canonical rows must then read g = 0 and π = 0
TEST_P(EveryJointType, RowsHoldOnTheMotion) {
  const JointType& type = *GetParam();
  std::mt19937 rng(13);
  for (int trial = 0; trial < 20; ++trial) {
    BodyState P0, C0, P;
    auto random_pose = [&](BodyState& s) {
      s.x = Vec3(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
      s.Q = quat_from_rotation_vector(Vec3::Random() * 2).toRotationMatrix();
    };
    random_pose(P0);
    random_pose(C0);
    const Vec3 axis = Vec3::Random().normalized();
    const Vec3 axis2 = axis.cross(Vec3::Random()).normalized();
    const Joint joint("j", type, 0, 1, P0, C0, Vec3::Random(), axis, axis2);
    // the parent moves anywhere; the child follows the joint
    random_pose(P);
    P.v = Vec3::Random();
    P.w = Vec3::Random();
    TreeJoint t;
    t.type = &type;
    t.nq = type.nq();
    t.nu = type.nu();
    t.frames = joint.frames();
    const std::vector<double> q = random_q(rng, type);
    std::vector<double> u(type.nu());
    for (double& x : u) x = uniform(rng, -1, 1);
    BodyState C;
    JointMotion jm;
    Vec6 V_J;
    joint_kinematics(t, P, q.data(), u.data(), C, jm, V_J);
    const BodyState states[2] = {P, C};
    const StateView view{states, 0.0, nullptr, 0};
    std::vector<SpatialForce> terms(type.rows() * 2);
    std::vector<double> b(type.rows()), vel(type.rows()), pos(type.rows());
    joint.evaluate(view, RowSpan{terms.data(), b.data(), vel.data(), pos.data(), 2});
    for (int k = 0; k < type.rows(); ++k) {
      EXPECT_LT(std::abs(pos[k]), 1e-12) << "row " << k << " trial " << trial;
      EXPECT_LT(std::abs(vel[k]), 1e-12) << "row " << k << " trial " << trial;
    }
  }
}

// The recursion's accelerations, and the multipliers and reactions of a tree joint (the
// type's closed form, JointType::multipliers), equal the pinv formulation's, which solves the
// canonical rows of every joint together [UK92 eq. 37], with the joint run both ways by the tree: a
// heavy floating root A, joint 1 from A to B (the tree runs it forward) and joint 2 from C
// to A (A is reached first: the tree runs it reversed); random q, u and inertias.
// A type that declares a shape (JointShape) moves as that shape says: the recursion's
// kinematics pass trusts the shape and skips motion() for it.
TEST_P(EveryJointType, DeclaredShapeIsItsMotion) {
  const JointType& type = *GetParam();
  if (type.shape() == JointShape::General) return;  // nothing declared
  if (type.shape() == JointShape::Free) {
    ASSERT_EQ(type.nq(), 7);
    ASSERT_EQ(type.nu(), 6);
    std::mt19937 rng(11);
    for (int trial = 0; trial < 10; ++trial) {
      double q[7], u[6];
      for (double& x : q) x = uniform(rng, -2, 2);
      for (double& x : u) x = uniform(rng, -2, 2);
      JointMotion jm;
      type.motion(q, u, jm);
      const Mat3 R = Eigen::Quaterniond(q[3], q[4], q[5], q[6]).normalized().toRotationMatrix();
      EXPECT_LT((jm.R - R).norm(), 1e-15);
      EXPECT_LT((jm.d - Vec3(q[0], q[1], q[2])).norm(), 1e-15);
      EXPECT_LT((jm.S - Eigen::Matrix<double, 6, 6>::Identity()).norm(), 1e-15);
      EXPECT_EQ(jm.c.norm(), 0.0);
    }
    return;
  }
  ASSERT_EQ(type.nq(), 1);
  ASSERT_EQ(type.nu(), 1);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 10; ++trial) {
    const double q = uniform(rng, -3, 3), u = uniform(rng, -2, 2);
    JointMotion jm;
    type.motion(&q, &u, jm);
    const bool turn = type.shape() == JointShape::Turn;
    const Mat3 R = turn ? Mat3(Eigen::AngleAxisd(q, Vec3::UnitZ())) : Mat3::Identity();
    const Vec3 dz = turn ? Vec3::Zero() : Vec3(0, 0, q);
    Vec6 S;
    const Vec3 z = Vec3::UnitZ(), zero = Vec3::Zero();
    S << (turn ? zero : z), (turn ? z : zero);
    EXPECT_LT((jm.R - R).norm(), 1e-15);
    EXPECT_LT((jm.d - dz).norm(), 1e-15);
    EXPECT_LT((jm.S.col(0) - S).norm(), 1e-15);
    EXPECT_EQ(jm.c.norm(), 0.0);
  }
}

class EveryJointTypeWithRows : public EveryJointType {};

TEST_P(EveryJointTypeWithRows, RecursiveMultipliersAreTheMaximalOnes) {
  const JointType& type = *GetParam();
  std::mt19937 rng(29);
  for (int trial = 0; trial < 10; ++trial) {
    ModelBuilder mb;
    mb.gravity = Vec3(0.3, -0.2, -9.81);
    for (const char* name : {"A", "B", "C"}) {
      Body b;
      b.name = name;
      b.mass = b.name == "A" ? 10.0 : uniform(rng, 0.5, 2.0);  // A: the root
      b.inertia =
          Vec3(uniform(rng, 0.5, 1), uniform(rng, 0.5, 1), uniform(rng, 0.5, 1)).asDiagonal();
      b.position = Vec3::Random();
      b.orientation = quat_from_rotation_vector(Vec3::Random() * 2);
      mb.add_body(b);
    }
    const auto joint = [&](const char* name, int p, int c) {
      const Vec3 axis = Vec3::Random().normalized();
      const Vec3 axis2 = axis.cross(Vec3::Random()).normalized();
      mb.add_constraint(std::make_shared<Joint>(name, type, p, c, mb.initial_state(p),
                                                mb.initial_state(c), Vec3::Random(), axis, axis2));
    };
    joint("forward", 0, 1);
    joint("reversed", 2, 0);
    const Model m = compile(mb);
    ASSERT_EQ(m.tree().joints.size(), 3u);
    ASSERT_TRUE(m.tree().joints[2].reversed ^ m.tree().joints[1].reversed);
    State s = m.initial_state();
    for (int k = 0; k < s.q.size(); ++k) s.q(k) += uniform(rng, -0.8, 0.8);
    tree_normalize(m.tree(), s.q);
    for (int k = 0; k < s.u.size(); ++k) s.u(k) = uniform(rng, -1.5, 1.5);
    Data dr(m), dp(m);
    ASSERT_EQ(forward(m, dr, s, {Formulation::Recursive, {}}), SolveStatus::Ok);
    ASSERT_EQ(forward(m, dp, s, {Formulation::Pinv, {}}), SolveStatus::Ok);
    EXPECT_LT((dr.udot - dp.udot).lpNorm<Eigen::Infinity>(),
              1e-9 * (1.0 + dp.udot.lpNorm<Eigen::Infinity>()))
        << "trial " << trial;
    const double scale = 1.0 + dp.lambda.lpNorm<Eigen::Infinity>();
    EXPECT_LT((dr.lambda - dp.lambda).lpNorm<Eigen::Infinity>(), 1e-9 * scale)
        << "trial " << trial << "\nrecursive " << dr.lambda.transpose() << "\npinv      "
        << dp.lambda.transpose();
    for (size_t k = 0; k < dp.reaction.size(); ++k) {
      EXPECT_LT((dr.reaction[k].force - dp.reaction[k].force).norm(), 1e-9 * scale);
      EXPECT_LT((dr.reaction[k].moment - dp.reaction[k].moment).norm(), 1e-9 * scale);
    }
    // the tree joints hold by construction in joint coordinates
    EXPECT_EQ(dr.position_residual.lpNorm<Eigen::Infinity>(), 0.0);
    EXPECT_EQ(dr.velocity_residual.lpNorm<Eigen::Infinity>(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryJointType, ::testing::ValuesIn(joint_types()), type_name);

std::vector<const JointType*> types_with_rows() {
  std::vector<const JointType*> out;
  for (const JointType* t : joint_types())
    if (t->rows() > 0) out.push_back(t);
  return out;
}
INSTANTIATE_TEST_SUITE_P(Registered, EveryJointTypeWithRows, ::testing::ValuesIn(types_with_rows()),
                         type_name);

// A sphere on a planar joint whose anchor is its centre, with gravity in the plane: it
// falls freely in the plane and keeps turning at its rate, so q̈ = (g_x, g_y, 0) in the
// joint frame (x, y the basis perpendicular_basis completes the axis to).
TEST(PlanarJoint, FallsFreelyInItsPlane) {
  for (Formulation f :
       {Formulation::Recursive, Formulation::Pinv, Formulation::GibbsAppell, Formulation::Sparse}) {
    ModelBuilder m_b;
    m_b.gravity = Vec3(0.4, -9.81, 0.0);
    Body b;
    b.name = "puck";
    b.mass = 2.0;
    b.inertia = Mat3::Identity() * 0.3;
    b.position = Vec3(0.5, 1.0, 0.0);
    b.velocity = Vec3(0.2, -0.1, 0.0);
    b.angular_velocity = Vec3(0, 0, 1.5);
    m_b.add_body(b);
    m_b.add_constraint(std::make_shared<Joint>("slide", joint_type("planar"), kWorld, 0,
                                               BodyState{}, m_b.initial_state(0), b.position,
                                               Vec3::UnitZ()));
    Model m = compile(m_b);
    Data d(m);
    ASSERT_EQ(forward(m, d, f), SolveStatus::Ok) << formulation_name(f);
    EXPECT_LT((d.udot.head<3>() - m.gravity()).norm(), 1e-12) << formulation_name(f);
    EXPECT_LT(d.udot.tail<3>().norm(), 1e-12) << formulation_name(f);
    // the joint carries no force in its plane and no moment about its axis
    EXPECT_LT(std::abs(d.reaction[0].force.x()), 1e-12);
    EXPECT_LT(std::abs(d.reaction[0].force.y()), 1e-12);
    EXPECT_LT(std::abs(d.reaction[0].moment.z()), 1e-12);
  }
}

// A free joint constrains nothing: Euler's equations of a free body, J ω̇ = −ω × J ω.
TEST(FreeJoint, LeavesTheBodyFree) {
  ModelBuilder m_b;
  m_b.gravity = Vec3(0, 0, -9.81);
  Body b;
  b.name = "top";
  b.inertia = Vec3(1.0, 2.0, 3.0).asDiagonal();
  b.orientation = quat_from_rotation_vector(Vec3(0.3, -0.2, 0.5));
  b.angular_velocity = Vec3(0.7, -1.1, 0.4);
  m_b.add_body(b);
  Body c = b;
  c.name = "carrier";
  c.position = Vec3(1, 0, 0);
  m_b.add_body(c);
  m_b.add_constraint(std::make_shared<Joint>(
      "float", joint_type("free"), 1, 0, m_b.initial_state(1), m_b.initial_state(0), Vec3::Zero()));
  Model m = compile(m_b);
  Data d(m);
  ASSERT_EQ(forward(m, d, Formulation::Recursive), SolveStatus::Ok);
  const BodyState& s = d.body[0];
  const Mat3 J = s.Q * b.inertia * s.Q.transpose();
  const Vec3 wdot = -J.inverse() * s.w.cross(J * s.w);
  EXPECT_LT((d.udot.head<3>() - m.gravity()).norm(), 1e-12);
  EXPECT_LT((d.udot.segment<3>(3) - wdot).norm(), 1e-12);
}

}  // namespace
}  // namespace appell
