// `pinv` [UK96 eq. 4] and `gibbs-appell` [UK98 eqs. 35–37] on seeded random scenes.
//
// Both formulations minimise the same Gaussian G(ü) = ½ (ü − a)ᵀ M (ü − a), a = M⁻¹F,
// over {ü : A ü = b} [UK96 eqs. 9–13], so on one state they must agree.  Besides their
// agreement, each result is checked against the minimum principle itself:
//   * feasibility: A ü = b;
//   * optimality: for every δ in null(A) (computed here by an LU kernel, not by the
//     engine), G(ü + δ) − G(ü) = ½ δᵀMδ > 0, i.e. M(ü − a) ⟂ null(A);
//   * the minimum-norm multipliers [UK96 eq. 22]: Aᵀλ = M ü − F and λ ∈ range(A), i.e.
//     λ ⟂ null(Aᵀ);
//   * redundant rows change nothing: the same scene with duplicated or implied
//     constraints added gives the same ü.
//
// Scenes: chains and trees of 1–30 bodies (rigid bodies with full, non-principal inertia
// tensors, and particles), every joint type, random poses, velocities and applied forces,
// loops closed by distance, spherical and perpendicular constraints, linear rows, and
// redundant rows.  Every holonomic constraint is defined from the random pose itself, so
// positions satisfy it at t = 0 by construction; velocities are projected onto the velocity
// constraints where loops or redundant rows need consistent accelerations.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <appell/appell.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/dense.hpp"  // dense_mass

namespace appell {
namespace {

constexpr int kScenes = 60;
constexpr double kAgree = 1e-10;  // pinv vs gibbs-appell, relative

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(unsigned seed) : gen(seed) {}
  double uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(gen);
  }
  int integer(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); }
  bool chance(double p) { return uniform(0, 1) < p; }
  Vec3 vec(double s) { return Vec3(uniform(-s, s), uniform(-s, s), uniform(-s, s)); }
  Vec3 unit() {
    Vec3 v;
    do v = vec(1.0);
    while (v.norm() < 0.1);
    return v.normalized();
  }
  Quat quat() {
    Eigen::Vector4d q;
    do q = Eigen::Vector4d(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    while (q.norm() < 0.1);
    q.normalize();
    return Quat(q(0), q(1), q(2), q(3));
  }
};

struct SceneOptions {
  int nbody = 5;
  bool chain = true;       // else a random tree
  bool loops = false;      // closing constraints (not redundant)
  bool linear = false;     // velocity-level linear rows
  bool redundant = false;  // duplicated and implied constraints
  bool project = false;    // project velocities onto the velocity constraints
};

// A rebuildable constraint (a redundant copy is the same constraint under another name).
using Builder = std::function<ConstraintPtr(const std::string& name)>;

struct Scene {
  Model model;
  std::vector<Builder> tree;  // the joint of body i to its parent
  std::vector<int> parent;
  Eigen::VectorXd u;  // the velocities to evaluate at
};

// Points of a body: anywhere for a rigid body, the particle itself for a particle.
Vec3 point_on(Rng& rng, const Model& m, int b) {
  const BodyState s = m.initial_state(b);
  if (b != kWorld && !m.bodies()[b].rigid()) return s.x;
  return s.x + rng.vec(0.4);
}
bool is_rigid(const Model& m, int b) {
  return b == kWorld || m.bodies()[b].rigid();
}

Builder joint_builder(const Model& m, JointType type, int p, int c, const Vec3& anchor,
                      const Vec3& axis, const Vec3& axis2) {
  const BodyState sp = m.initial_state(p), sc = m.initial_state(c);
  return [=](const std::string& name) -> ConstraintPtr {
    return std::make_shared<Joint>(name, type, p, c, sp, sc, anchor, axis, axis2);
  };
}
Builder distance_builder(const Model& m, int a, int b, const Vec3& pa, const Vec3& pb) {
  const BodyState sa = m.initial_state(a), sb = m.initial_state(b);
  return [=](const std::string& name) -> ConstraintPtr {
    return std::make_shared<DistanceConstraint>(name, a, b, sa, sb, pa, pb, (pb - pa).norm());
  };
}

// The joint of body c to its parent p: any joint between rigid bodies; a spherical joint
// at the particle, a distance or a plane when a particle is involved.  *type_out is the
// joint type (meaningful only when the constraint is a Joint).
Builder random_joint(Rng& rng, const Model& m, int p, int c, JointType* type_out) {
  const Vec3 axis = rng.unit();
  Vec3 axis2 = rng.unit();
  axis2 = (axis2 - axis2.dot(axis) * axis).normalized();
  *type_out = JointType::Spherical;
  if (is_rigid(m, p) && is_rigid(m, c)) {
    const JointType types[] = {JointType::Spherical,   JointType::Revolute,  JointType::Prismatic,
                               JointType::Cylindrical, JointType::Universal, JointType::Fixed};
    *type_out = types[rng.integer(0, 5)];
    const Vec3 anchor = 0.5 * (m.initial_state(c).x + m.initial_state(p).x) + rng.vec(0.2);
    return joint_builder(m, *type_out, p, c, anchor, axis, axis2);
  }
  const int particle = is_rigid(m, c) ? p : c, other = particle == c ? p : c;
  const int pick = rng.integer(0, 2);
  if (pick == 0 && is_rigid(m, other))
    return joint_builder(m, JointType::Spherical, p, c, m.initial_state(particle).x, axis, axis2);
  const Vec3 pa = point_on(rng, m, p), pb = point_on(rng, m, c);
  if (pick == 1 && (pb - pa).norm() > 0.05) return distance_builder(m, p, c, pa, pb);
  const BodyState s = m.initial_state(c);
  return [=](const std::string& name) -> ConstraintPtr {
    return std::make_shared<PointOnPlaneConstraint>(name, c, s, s.x, axis);
  };
}

Scene random_scene(unsigned seed, const SceneOptions& o, bool with_redundant) {
  Rng rng(seed);
  Scene sc;
  Model& m = sc.model;
  m.gravity = Vec3(0, 0, -9.81);
  // bodies, placed near their parent
  for (int i = 0; i < o.nbody; ++i) {
    const int p = i == 0 ? kWorld : (o.chain ? i - 1 : rng.integer(-1, i - 1));
    sc.parent.push_back(p);
    Body b;
    b.name = "b" + std::to_string(i);
    b.type = rng.chance(0.25) ? BodyType::Particle : BodyType::Rigid;
    b.mass = rng.uniform(0.5, 3.0);
    b.position = (p == kWorld ? Vec3::Zero() : m.bodies()[p].position) + rng.vec(0.6);
    if (b.rigid()) {
      const Vec3 edges(rng.uniform(0.05, 0.5), rng.uniform(0.05, 0.5), rng.uniform(0.05, 0.5));
      const Mat3 R = rng.quat().toRotationMatrix();  // principal axes off the body axes
      b.inertia = R * inertia_box(b.mass, edges) * R.transpose();
      b.orientation = rng.quat();
    }
    m.add_body(b);
  }
  // a joint per body: the spanning tree
  std::vector<JointType> types;
  for (int i = 0; i < o.nbody; ++i) {
    JointType t;
    sc.tree.push_back(random_joint(rng, m, sc.parent[i], i, &t));
    types.push_back(t);
    m.add_constraint(sc.tree.back()("joint" + std::to_string(i)));
  }
  // loops: constraints that close kinematic loops, satisfied by construction
  if (o.loops && o.nbody >= 2) {
    const int nloops = rng.integer(1, 3);
    for (int k = 0; k < nloops; ++k) {
      const int a = rng.integer(-1, o.nbody - 1);
      int b = rng.integer(0, o.nbody - 1);
      if (b == a) b = (b + 1) % o.nbody;
      const std::string name = "loop" + std::to_string(k);
      const int kind = rng.integer(0, 2);
      if (kind == 1 && is_rigid(m, a) && is_rigid(m, b)) {
        const Vec3 anchor = 0.5 * (m.initial_state(a).x + m.initial_state(b).x);
        m.add_constraint(joint_builder(m, JointType::Spherical, a, b, anchor, Vec3::UnitX(),
                                       Vec3::Zero())(name));
      } else if (kind == 2 && is_rigid(m, a) && is_rigid(m, b)) {
        const Vec3 na = rng.unit();
        Vec3 nb = rng.unit();
        nb = (nb - nb.dot(na) * na).normalized();
        m.add_constraint(std::make_shared<PerpendicularConstraint>(name, a, b, m.initial_state(a),
                                                                   m.initial_state(b), na, nb));
      } else {
        const Vec3 pa = point_on(rng, m, a), pb = point_on(rng, m, b);
        m.add_constraint(distance_builder(m, a, b, pa, pb)(name));
      }
    }
  }
  // linear rows (velocity level, e = 0 so that the velocities can satisfy them)
  if (o.linear) {
    const int b = rng.integer(0, o.nbody - 1);
    const BodyState s = m.initial_state(b);
    const bool rigid = m.bodies()[b].rigid();
    const auto frame =
        rigid && rng.chance(0.5) ? LinearConstraint::Frame::Body : LinearConstraint::Frame::World;
    m.add_constraint(
        std::make_shared<LinearConstraint>("linear", b, s, point_on(rng, m, b), rng.vec(1.0),
                                           rigid ? rng.vec(1.0) : Vec3::Zero(), 0.0, frame));
  }
  // applied forces besides gravity
  for (int k = 0; k < 2; ++k) {
    const int b = rng.integer(0, o.nbody - 1);
    m.add_force(
        std::make_shared<PointForce>(b, m.initial_state(b), point_on(rng, m, b), rng.vec(5)));
    if (m.bodies()[b].rigid()) m.add_force(std::make_shared<TorqueForce>(b, rng.vec(2)));
  }
  // redundant rows, from their own stream so that the base scene is the same either way
  Rng red(seed ^ 0x5a5a5a5au);
  if (with_redundant) {
    const int count = red.integer(1, 3);
    for (int k = 0; k < count; ++k) {
      const int c = red.integer(0, o.nbody - 1), p = sc.parent[c];
      const std::string name = "redundant" + std::to_string(k);
      const JointType t = types[c];
      // the same joint again, or a distance implied by it: between a point of the parent
      // and a point of the child that the joint keeps fixed relative to the parent
      const Joint* j = dynamic_cast<const Joint*>(m.constraints()[c].get());
      if (red.chance(0.5) || !j || (t != JointType::Spherical && t != JointType::Fixed)) {
        m.add_constraint(sc.tree[c](name));
      } else {
        const Vec3 on_child = t == JointType::Fixed ? point_on(red, m, c) : j->anchor();
        const Vec3 on_parent = point_on(red, m, p);
        if ((on_child - on_parent).norm() > 0.05)
          m.add_constraint(distance_builder(m, p, c, on_parent, on_child)(name));
        else
          m.add_constraint(sc.tree[c](name));
      }
    }
  }
  // velocities
  Data d(m);
  sc.u = d.u;
  for (int i = 0; i < m.nu(); ++i) sc.u(i) = rng.uniform(-1.5, 1.5);
  return sc;
}

// u ← u − A⁺ π: the nearest velocities (Euclidean) that satisfy the velocity rows.
void project_velocities(const Model& m, Eigen::VectorXd& u) {
  for (int it = 0; it < 2; ++it) {
    Data d(m);
    d.u = u;
    kinematics(m, d);
    constraint_rows(m, d);
    dense_rows(m, d);
    if (m.nrows() == 0) return;
    u -= Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(d.A).solve(d.velocity_residual);
  }
}

SceneOptions options_for(int k) {
  SceneOptions o;
  static const int sizes[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30};
  o.nbody = sizes[k % 13];
  o.chain = k % 2 == 0;
  o.loops = k % 3 == 1;
  o.linear = k % 4 == 3;
  o.redundant = k % 3 == 2 || k % 5 == 0;
  o.project = o.loops || o.redundant || o.linear || k % 2 == 1;
  return o;
}

struct Solved {
  Data d;
  SolveStatus status;
  Solved(const Model& m, const Eigen::VectorXd& u, Formulation f) : d(m) {
    d.u = u;
    status = forward(m, d, f);
  }
};

double max_abs(const Eigen::VectorXd& v) {
  return v.size() ? v.cwiseAbs().maxCoeff() : 0.0;
}

// Orthonormal basis of the kernel of X, from a full-pivoting LU (independent of the
// engine's QR-based solvers).
Eigen::MatrixXd kernel_basis(const Eigen::MatrixXd& X) {
  Eigen::FullPivLU<Eigen::MatrixXd> lu(X);
  lu.setThreshold(1e-10);
  const Eigen::MatrixXd K = lu.kernel();
  if (lu.rank() == X.cols()) return Eigen::MatrixXd(X.cols(), 0);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(K);
  return qr.householderQ() * Eigen::MatrixXd::Identity(K.rows(), K.cols());
}

TEST(Formulations, PinvAndGibbsAppellAgreeOnRandomScenes) {
  double worst_u = 0.0, worst_reaction = 0.0, worst_residual = 0.0, worst_gauss = 0.0,
         worst_lambda = 0.0;
  int redundant_scenes = 0, loop_scenes = 0, max_rows = 0, max_nu = 0;
  for (int k = 0; k < kScenes; ++k) {
    const SceneOptions o = options_for(k);
    Scene sc = random_scene(1000u + k, o, o.redundant);
    const Model& m = sc.model;
    if (o.project) project_velocities(m, sc.u);
    SCOPED_TRACE("scene " + std::to_string(k) + ": " + std::to_string(o.nbody) + " bodies, " +
                 std::to_string(m.nrows()) + " rows" + (o.chain ? ", chain" : ", tree") +
                 (o.loops ? ", loops" : "") + (o.redundant ? ", redundant" : "") +
                 (o.linear ? ", linear" : ""));
    redundant_scenes += o.redundant;
    loop_scenes += o.loops;
    max_rows = std::max(max_rows, m.nrows());
    max_nu = std::max(max_nu, m.nu());

    const Solved p(m, sc.u, Formulation::Pinv), g(m, sc.u, Formulation::GibbsAppell);
    ASSERT_EQ(p.status, SolveStatus::Ok) << p.d.diagnostics.message;
    ASSERT_EQ(g.status, SolveStatus::Ok) << g.d.diagnostics.message;
    EXPECT_EQ(p.d.diagnostics.rank, g.d.diagnostics.rank);

    // agreement of the accelerations, relative to the larger of ü and a = M⁻¹F
    Eigen::VectorXd a;
    solve_mass(m, p.d, p.d.F, a);
    const double scale_u = std::max(max_abs(p.d.udot), max_abs(a));
    const double du = max_abs(p.d.udot - g.d.udot) / scale_u;
    EXPECT_LE(du, kAgree);
    worst_u = std::max(worst_u, du);

    // agreement of the reactions, per constraint and body
    double scale_r = 0.0, dr = 0.0;
    for (size_t s = 0; s < p.d.reaction.size(); ++s) {
      scale_r = std::max({scale_r, p.d.reaction[s].force.cwiseAbs().maxCoeff(),
                          p.d.reaction[s].moment.cwiseAbs().maxCoeff()});
      dr = std::max({dr, (p.d.reaction[s].force - g.d.reaction[s].force).cwiseAbs().maxCoeff(),
                     (p.d.reaction[s].moment - g.d.reaction[s].moment).cwiseAbs().maxCoeff()});
    }
    if (scale_r > 0) {
      EXPECT_LE(dr / scale_r, kAgree);
      worst_reaction = std::max(worst_reaction, dr / scale_r);
    }

    const Eigen::MatrixXd M = dense_mass(m, p.d);
    for (const Solved* s : {&p, &g}) {
      const Data& d = s->d;
      // feasibility: A ü = b
      const Eigen::VectorXd r = d.A * d.udot - d.b;
      const double res =
          max_abs(r) / (1.0 + max_abs(d.b) + d.A.cwiseAbs().maxCoeff() * max_abs(d.udot));
      EXPECT_LE(res, 1e-12);
      worst_residual = std::max(worst_residual, res);

      // optimality: G(ü + δ) − G(ü) = ½ δᵀMδ > 0 for δ ∈ null(A)   [UK96 eqs. 9–13]
      const Eigen::MatrixXd N = kernel_basis(d.A);
      const double G0 = gaussian(m, d, d.udot);
      Rng rng(7u * k + 1);
      for (int t = 0; t < 3 && N.cols() > 0; ++t) {
        Eigen::VectorXd c(N.cols());
        for (int i = 0; i < c.size(); ++i) c(i) = rng.uniform(-1, 1);
        Eigen::VectorXd delta = N * c;
        const double q = 0.5 * delta.dot(M * delta);
        delta *= std::sqrt(1e-3 * (1.0 + G0) / q);  // ½ δᵀMδ = 1e-3 (1 + G0)
        const double expected = 0.5 * delta.dot(M * delta);
        ASSERT_LE(max_abs(d.A * delta), 1e-9 * max_abs(delta) * (1 + d.A.cwiseAbs().maxCoeff()));
        const double G1 = gaussian(m, d, d.udot + delta);
        EXPECT_GT(G1, G0);
        const double rel = std::abs((G1 - G0) - expected) / expected;
        EXPECT_LE(rel, 1e-6);
        worst_gauss = std::max(worst_gauss, rel);
      }

      // multipliers: Aᵀλ = M ü − F, λ ⟂ null(Aᵀ)   [UK96 eq. 22]
      const Eigen::VectorXd Fc = M * d.udot - d.F;
      const double fscale = 1.0 + max_abs(M * d.udot) + max_abs(d.F);
      EXPECT_LE(max_abs(d.A.transpose() * d.lambda - Fc) / fscale, 1e-10);
      const Eigen::MatrixXd W = kernel_basis(d.A.transpose());
      if (W.cols() > 0) {
        const double off = max_abs(W.transpose() * d.lambda) / (1.0 + max_abs(d.lambda));
        EXPECT_LE(off, 1e-10);
        worst_lambda = std::max(worst_lambda, off);
      }
    }
  }
  EXPECT_GE(redundant_scenes, 10);
  EXPECT_GE(loop_scenes, 10);
  std::cout << "[ figures  ] " << kScenes << " scenes (" << loop_scenes << " with loops, "
            << redundant_scenes << " with redundant rows; up to " << max_nu << " coordinates, "
            << max_rows << " rows): max relative |pinv - gibbs-appell|: udot " << worst_u
            << ", reactions " << worst_reaction << "; max |A udot - b| (relative) "
            << worst_residual << "; Gaussian increase vs 1/2 dMd " << worst_gauss
            << "; lambda off range(A) " << worst_lambda << "\n";
}

// The same scene with and without redundant constraints (duplicated joints, distances
// implied by a joint) has the same accelerations.
TEST(Formulations, RedundantRowsChangeNothing) {
  int compared = 0;
  for (int k = 0; k < 24; ++k) {
    SceneOptions o = options_for(k);
    o.loops = false;
    const Scene base = random_scene(5000u + k, o, false);
    const Scene with = random_scene(5000u + k, o, true);
    ASSERT_GT(with.model.nrows(), base.model.nrows());
    Eigen::VectorXd u = base.u;
    project_velocities(base.model, u);  // then the redundant rows hold too
    SCOPED_TRACE("scene " + std::to_string(k) + ", " + std::to_string(o.nbody) + " bodies");
    for (Formulation f : {Formulation::Pinv, Formulation::GibbsAppell}) {
      const Solved a(base.model, u, f), b(with.model, u, f);
      ASSERT_EQ(a.status, SolveStatus::Ok) << a.d.diagnostics.message;
      ASSERT_EQ(b.status, SolveStatus::Ok) << b.d.diagnostics.message;
      EXPECT_EQ(a.d.diagnostics.rank, b.d.diagnostics.rank);
      const double scale = std::max(1.0, max_abs(a.d.udot));
      EXPECT_LE(max_abs(a.d.udot - b.d.udot) / scale, 1e-10) << formulation_name(f);
      // the total constraint force on each body is unique even when multipliers are not
      const Eigen::VectorXd Fa = dense_mass(base.model, a.d) * a.d.udot - a.d.F;
      const Eigen::VectorXd Fb = dense_mass(with.model, b.d) * b.d.udot - b.d.F;
      EXPECT_LE(max_abs(Fa - Fb) / (1.0 + max_abs(Fa)), 1e-10);
      ++compared;
    }
  }
  EXPECT_EQ(compared, 48);
}

}  // namespace
}  // namespace appell
