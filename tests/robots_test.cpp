// The example robots (scenes/examples/robots/): joint accelerations against an independent
// computation — the URDF read by urdfdom directly, its mass matrix by the composite-rigid-
// body algorithm and its bias forces by recursive Newton–Euler (Featherstone, Rigid Body
// Dynamics Algorithms, §6.2 and §5.3, in his spatial algebra, written here from the link
// parameters), then q̈ = M⁻¹ (τ − C) by Cholesky with τ = −d q̇ from <dynamics damping> —
// energy with damping off, and each example simulates.
#include <gtest/gtest.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Cholesky>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "appell/appell.hpp"
#include "appell/tree.hpp"
#include "engine/formulations/recursive.hpp"

namespace appell {
namespace {

using Mat6 = Eigen::Matrix<double, 6, 6>;
using V6 = Eigen::Matrix<double, 6, 1>;

const std::string kRobots = std::string(APPELL_SOURCE_DIR) + "/scenes/examples/robots/";

// Plücker transform from frame A to frame B, B's axes E (columns, in A) at p (in A):
// X = [Eᵀ 0; −Eᵀ p× Eᵀ] on motion vectors [ω; v].
Mat6 plucker(const Mat3& E, const Vec3& p) {
  Mat6 X = Mat6::Zero();
  X.topLeftCorner<3, 3>() = E.transpose();
  X.bottomRightCorner<3, 3>() = E.transpose();
  X.bottomLeftCorner<3, 3>() = -E.transpose() * skew(p);
  return X;
}
Mat6 crm(const V6& v) {
  Mat6 X = Mat6::Zero();
  X.topLeftCorner<3, 3>() = skew(v.head<3>());
  X.bottomRightCorner<3, 3>() = skew(v.head<3>());
  X.bottomLeftCorner<3, 3>() = skew(v.tail<3>());
  return X;
}
Mat6 crf(const V6& v) {
  return -crm(v).transpose();
}
Mat3 rot(const urdf::Rotation& r) {
  return Quat(r.w, r.x, r.y, r.z).normalized().toRotationMatrix();
}
Vec3 vec(const urdf::Vector3& v) {
  return Vec3(v.x, v.y, v.z);
}

enum class Kind { Fixed, Revolute, Prismatic, Free };

struct Link {
  int parent = -1;
  Kind kind = Kind::Fixed;
  Mat6 X_tree = Mat6::Identity();
  Vec3 axis = Vec3::UnitZ();
  Mat6 I = Mat6::Zero();  // spatial inertia at the link origin
  int dof = 0, offset = 0;
  std::string joint;
  double damping = 0.0;  // <dynamics damping>: τ = −d q̇
};

// The robot of a URDF in Featherstone's form, from urdfdom's model only.
struct Reference {
  std::vector<Link> links;
  int n = 0;
  urdf::ModelInterfaceSharedPtr model;

  Reference(const std::string& path, bool floating) : model(urdf::parseURDFFile(path)) {
    EXPECT_TRUE(model);
    const urdf::Link& root = *model->getRoot();
    if (floating) {
      Link base;
      base.kind = Kind::Free;
      base.dof = 6;
      base.I = inertia(root);
      base.joint = "root_joint";
      add(base);
      walk(root, 0);
    } else {
      walk(root, -1);
    }
  }
  static Mat6 inertia(const urdf::Link& l) {
    Mat6 I = Mat6::Zero();
    if (!l.inertial) return I;
    const urdf::Inertial& in = *l.inertial;
    Mat3 Ic;
    Ic << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    const Mat3 R = rot(in.origin.rotation);
    const Mat3 C = skew(vec(in.origin.position));
    I.topLeftCorner<3, 3>() = R * Ic * R.transpose() + in.mass * C * C.transpose();
    I.topRightCorner<3, 3>() = in.mass * C;
    I.bottomLeftCorner<3, 3>() = in.mass * C.transpose();
    I.bottomRightCorner<3, 3>() = in.mass * Mat3::Identity();
    return I;
  }
  void add(Link l) {
    l.offset = n;
    n += l.dof;
    links.push_back(l);
  }
  void walk(const urdf::Link& l, int index) {
    for (const urdf::JointSharedPtr& j : l.child_joints) {
      Link c;
      c.parent = index;
      c.joint = j->name;
      const urdf::Pose& o = j->parent_to_joint_origin_transform;
      c.X_tree = plucker(rot(o.rotation), vec(o.position));
      c.axis = vec(j->axis).normalized();
      c.kind = j->type == urdf::Joint::PRISMATIC ? Kind::Prismatic
               : j->type == urdf::Joint::FIXED   ? Kind::Fixed
                                                 : Kind::Revolute;
      c.dof = c.kind == Kind::Fixed ? 0 : 1;
      if (j->dynamics) c.damping = j->dynamics->damping;
      const urdf::LinkConstSharedPtr child = model->getLink(j->child_link_name);
      c.I = inertia(*child);
      add(c);
      walk(*child, static_cast<int>(links.size()) - 1);
    }
  }

  // motion subspace and joint transform of link i at its coordinates q
  Eigen::Matrix<double, 6, Eigen::Dynamic> S(int i) const {
    const Link& l = links[i];
    Eigen::Matrix<double, 6, Eigen::Dynamic> s = Eigen::MatrixXd::Zero(6, l.dof);
    if (l.kind == Kind::Free) s.setIdentity();
    if (l.kind == Kind::Revolute) s.col(0).head<3>() = l.axis;
    if (l.kind == Kind::Prismatic) s.col(0).tail<3>() = l.axis;
    return s;
  }
  Mat6 X_J(int i, const std::vector<double>& q) const {
    const Link& l = links[i];
    if (l.kind == Kind::Revolute)
      return plucker(Eigen::AngleAxisd(q[l.offset], l.axis).toRotationMatrix(), Vec3::Zero());
    if (l.kind == Kind::Prismatic) return plucker(Mat3::Identity(), l.axis * q[l.offset]);
    return Mat6::Identity();
  }

  // q̈ = −M⁻¹ C(q, q̇, g): CRBA and RNEA.  For a floating base, X_base is its pose (the
  // base's q̇, q̈ are [ω; v] in the base frame).
  Eigen::VectorXd accelerations(const std::vector<double>& q, const Eigen::VectorXd& qd,
                                const Mat6& X_base = Mat6::Identity()) const {
    const int nl = static_cast<int>(links.size());
    std::vector<Mat6> X(nl), Ic(nl);
    std::vector<V6> v(nl), a(nl), f(nl);
    V6 a0 = V6::Zero();
    a0(5) = 9.81;  // the base accelerates up against gravity (0, 0, −9.81)
    Eigen::VectorXd C = Eigen::VectorXd::Zero(n);
    for (int i = 0; i < nl; ++i) {
      const Link& l = links[i];
      X[i] = (l.kind == Kind::Free ? X_base : X_J(i, q)) * l.X_tree;
      const V6 vJ = S(i) * qd.segment(l.offset, l.dof);
      const V6 vp = l.parent < 0 ? V6::Zero() : v[l.parent];
      const V6 ap = l.parent < 0 ? a0 : a[l.parent];
      v[i] = X[i] * vp + vJ;
      a[i] = X[i] * ap + crm(v[i]) * vJ;
      f[i] = l.I * a[i] + crf(v[i]) * l.I * v[i];
      Ic[i] = l.I;
    }
    Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
    for (int i = nl - 1; i >= 0; --i) {
      const Link& l = links[i];
      C.segment(l.offset, l.dof) = S(i).transpose() * f[i];
      if (l.dof == 1) C(l.offset) += l.damping * qd(l.offset);  // τ = −d q̇ moved into C
      if (l.parent >= 0) {
        f[l.parent] += X[i].transpose() * f[i];
        Ic[l.parent] += X[i].transpose() * Ic[i] * X[i];
      }
    }
    for (int i = 0; i < nl; ++i) {
      if (links[i].dof == 0) continue;
      Eigen::Matrix<double, 6, Eigen::Dynamic> F = Ic[i] * S(i);
      M.block(links[i].offset, links[i].offset, links[i].dof, links[i].dof) = S(i).transpose() * F;
      for (int j = i; links[j].parent >= 0;) {
        F = X[j].transpose() * F;
        j = links[j].parent;
        const Link& lj = links[j];
        if (lj.dof == 0) continue;
        M.block(links[i].offset, lj.offset, links[i].dof, lj.dof) = F.transpose() * S(j);
        M.block(lj.offset, links[i].offset, lj.dof, links[i].dof) = S(j).transpose() * F;
      }
    }
    return M.llt().solve(-C);
  }
};

// the engine's joint u̇ of a scene at its initial state, by joint name
std::map<std::string, Eigen::VectorXd> engine_accelerations(const Model& m) {
  Data d(m);
  const State& s = m.initial_state();
  EXPECT_EQ(forward_tree(m, d, s.q, s.u), SolveStatus::Ok);
  const Eigen::VectorXd udot = joint_accelerations(m, d);
  std::map<std::string, Eigen::VectorXd> out;
  for (const TreeJoint& t : m.tree().joints)
    if (t.constraint >= 0)
      out[m.constraints()[t.constraint]->name()] = udot.segment(t.u_offset, t.nu);
  return out;
}

std::map<std::string, Eigen::VectorXd> engine_coordinates(const Model& m) {
  std::map<std::string, Eigen::VectorXd> out;
  for (const TreeJoint& t : m.tree().joints)
    if (t.constraint >= 0)
      out[m.constraints()[t.constraint]->name()] = m.initial_state().q.segment(t.q_offset, t.nq);
  return out;
}

// A fixed-base robot at a chosen state: the engine's joint accelerations equal the
// reference's, and its initial joint coordinates are the ones the scene gave.
void expect_fixed_base_matches(const std::string& urdf, const std::map<std::string, double>& q,
                               const std::map<std::string, double>& qd) {
  nlohmann::json scene = {{"include", {{"urdf", urdf}, {"q", q}, {"qd", qd}}}};
  const Model m = load_model_from_string(scene.dump(), kRobots + "test.json");
  const Reference ref(kRobots + urdf, false);
  std::vector<double> qv(ref.n, 0.0);
  Eigen::VectorXd qdv = Eigen::VectorXd::Zero(ref.n);
  for (const Link& l : ref.links)
    if (l.dof == 1) {
      if (q.count(l.joint)) qv[l.offset] = q.at(l.joint);
      if (qd.count(l.joint)) qdv(l.offset) = qd.at(l.joint);
    }
  const Eigen::VectorXd expected = ref.accelerations(qv, qdv);
  const auto got = engine_accelerations(m);
  const auto coords = engine_coordinates(m);
  int compared = 0;
  for (const Link& l : ref.links) {
    if (l.dof == 0) continue;
    ASSERT_TRUE(got.count(l.joint)) << l.joint;
    EXPECT_NEAR(coords.at(l.joint)(0), qv[l.offset], 1e-12) << l.joint;
    EXPECT_NEAR(got.at(l.joint)(0), expected(l.offset), 1e-9 * (1 + std::abs(expected(l.offset))))
        << l.joint;
    ++compared;
  }
  EXPECT_EQ(compared, ref.n);
}

TEST(Robots, TwoLinkArmAccelerationsMatchCrbaAndRnea) {
  expect_fixed_base_matches("two_link_arm.urdf", {{"shoulder", 0.3}, {"elbow", -0.6}},
                            {{"shoulder", 0.5}, {"elbow", 1.0}});
}

TEST(Robots, TwoLinkArmMatchesItsClosedForm) {
  // the double pendulum of two bodies on parallel axes (y), angles from hanging: with
  // c = cos q2, M = [I1 + I2 + m1 a1² + m2 (l1² + a2² + 2 l1 a2 c),  I2 + m2 (a2² + l1 a2 c);
  //                  ·,  I2 + m2 a2²],  C = h [−q̇2 (2 q̇1 + q̇2); q̇1²] + gravity,
  // h = m2 l1 a2 sin q2, gravity g (m1 a1 + m2 l1) sin q1 + g m2 a2 sin(q1 + q2), g m2 a2 sin(q1 +
  // q2) the links are solid cylinders (radius 0.03, lengths 0.5 and 0.4) turning about a diameter
  const double m1 = 2.0, m2 = 1.0, a1 = 0.25, a2 = 0.2, l1 = 0.5;
  const double I1 = m1 * (3 * 0.03 * 0.03 + 0.5 * 0.5) / 12,
               I2 = m2 * (3 * 0.03 * 0.03 + 0.4 * 0.4) / 12;
  const double q1 = 0.3, q2 = -0.6, u1 = 0.5, u2 = 1.0, g = 9.81;
  const double c = std::cos(q2), h = m2 * l1 * a2 * std::sin(q2);
  Eigen::Matrix2d M;
  M << I1 + I2 + m1 * a1 * a1 + m2 * (l1 * l1 + a2 * a2 + 2 * l1 * a2 * c),
      I2 + m2 * (a2 * a2 + l1 * a2 * c), I2 + m2 * (a2 * a2 + l1 * a2 * c), I2 + m2 * a2 * a2;
  const Eigen::Vector2d C(-h * u2 * (2 * u1 + u2) + g * (m1 * a1 + m2 * l1) * std::sin(q1) +
                              g * m2 * a2 * std::sin(q1 + q2),
                          h * u1 * u1 + g * m2 * a2 * std::sin(q1 + q2));
  const Eigen::Vector2d expected = -M.inverse() * C;
  for (const char* file : {"two_link_arm.json", "two_link_arm_joints.json"}) {
    const auto got = engine_accelerations(load_model(kRobots + file));
    EXPECT_NEAR(got.at("shoulder")(0), expected(0), 1e-12 * (1 + expected.norm())) << file;
    EXPECT_NEAR(got.at("elbow")(0), expected(1), 1e-12 * (1 + expected.norm())) << file;
  }
}

TEST(Robots, SevenDofArmAccelerationsMatchCrbaAndRnea) {
  expect_fixed_base_matches("seven_dof_arm.urdf",
                            {{"joint1", 0.2},
                             {"joint2", 0.5},
                             {"joint3", -0.3},
                             {"joint4", -1.2},
                             {"joint5", 0.4},
                             {"joint6", 0.8},
                             {"joint7", -0.1}},
                            {{"joint1", 0.1},
                             {"joint2", -0.4},
                             {"joint3", 0.7},
                             {"joint4", -0.2},
                             {"joint5", 1.1},
                             {"joint6", -0.6},
                             {"joint7", 2.0}});
}

TEST(Robots, QuadrupedFloatingBaseMatchesCrbaAndRnea) {
  const Model m = load_model(kRobots + "quadruped.json");
  const Reference ref(kRobots + "quadruped.urdf", true);
  // the state quadruped.json gives, in the reference's terms
  const Quat o(0.9950041652780258, 0.09983341664682815, 0, 0);
  const Mat3 R = o.normalized().toRotationMatrix();
  const Vec3 p(0, 0, 0.5), pd(0.5, 0, 1.0), w(0.2, 0.5, 0.1);
  const std::map<std::string, double> q = {{"fl_hip", 0.1},   {"fr_hip", -0.1},  {"hl_hip", 0.2},
                                           {"hr_hip", -0.2},  {"fl_knee", -0.8}, {"fr_knee", -0.8},
                                           {"hl_knee", -1.0}, {"hr_knee", -1.0}};
  std::vector<double> qv(ref.n, 0.0);
  Eigen::VectorXd qdv = Eigen::VectorXd::Zero(ref.n);
  qdv.head<3>() = R.transpose() * w;
  qdv.segment<3>(3) = R.transpose() * pd;
  for (const Link& l : ref.links)
    if (l.dof == 1) qv[l.offset] = q.count(l.joint) ? q.at(l.joint) : 0.0;
  for (const Link& l : ref.links)
    if (l.joint == "fl_knee") qdv(l.offset) = 1.0;
  const Eigen::VectorXd expected = ref.accelerations(qv, qdv, plucker(R, p));
  const auto got = engine_accelerations(m);
  // the base: the engine's u̇ = (p̈, ω̇) in the world, the reference's [ω̇; a] in the base
  // frame, a the spatial (not the classical) acceleration: p̈ = R (a + ω × v)
  const V6 base = expected.head<6>();
  const Vec3 wb = qdv.head<3>(), vb = qdv.segment<3>(3);
  const Vec3 pdd = R * (base.tail<3>() + wb.cross(vb)), wd = R * base.head<3>();
  const Eigen::VectorXd& root = got.at("root_joint");
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(root(k), pdd(k), 1e-9 * (1 + pdd.norm()));
    EXPECT_NEAR(root(3 + k), wd(k), 1e-9 * (1 + wd.norm()));
  }
  for (const Link& l : ref.links) {
    if (l.dof != 1) continue;
    EXPECT_NEAR(got.at(l.joint)(0), expected(l.offset), 1e-9 * (1 + std::abs(expected(l.offset))))
        << l.joint;
  }
}

TEST(Robots, DeltaFormulationsAgreeAndItHasThreeDof) {
  const Model m = load_model(kRobots + "delta.json");
  Data rec(m), dense(m);
  ASSERT_EQ(forward(m, rec, Formulation::Recursive), SolveStatus::Ok);
  ASSERT_EQ(forward(m, dense, Formulation::Pinv), SolveStatus::Ok);
  EXPECT_EQ(m.nu() - dense.diagnostics.rank, 3);
  EXPECT_LT((rec.udot - dense.udot).norm(), 1e-9 * (1 + dense.udot.norm()));
  // the platform only translates (the parallelograms keep it level)
  EXPECT_LT(dense.udot.segment<3>(m.u_offset(m.body_index("platform")) + 3).norm(), 1e-9);
  EXPECT_GT(dense.udot.segment<3>(m.u_offset(m.body_index("platform"))).norm(), 1.0);
}

// Energy is conserved with damping off, and every example simulates (the 7-DoF arm's
// joints are damped: tests/urdf_joints_test.cpp checks the damping's energy balance).
TEST(Robots, ExamplesSimulateAndConserveEnergy) {
  for (const char* file : {"two_link_arm.json", "two_link_arm_joints.json", "quadruped.json",
                           "delta.json", "two_link_arm.urdf", "quadruped.urdf", "delta.urdf"}) {
    const Scene scene = load_scene(kRobots + file);
    const Model m = compile(scene);
    SimulationOptions o = SimulationOptions::from_settings(scene.settings);
    o.integrator.duration = 0.3;
    // smooth dynamics: the URDFs' joint limits (enforced by default, a rod stopping on one
    // loses energy) are off here
    o.contact.joint_limits = false;
    double e0 = 0.0, drift = 0.0;
    const SimulationResult r = simulate(m, o, [&](const Sample& s) {
      if (s.index == 0) e0 = s.energy;
      drift = std::max(drift, std::abs(s.energy - e0));
    });
    ASSERT_TRUE(r.ok()) << file << ": " << r.message;
    EXPECT_GT(r.samples, 2) << file;
    EXPECT_LT(drift, 1e-7 * (1 + std::abs(e0))) << file;
  }
}

}  // namespace
}  // namespace appell
