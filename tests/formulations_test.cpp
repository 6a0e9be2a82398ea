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

#include "constraints/kernels.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/dense.hpp"  // dense_mass
#include "random_scenes.hpp"

namespace appell {
namespace {

using namespace test_scenes;

constexpr int kScenes = 60;
constexpr double kAgree = 1e-10;       // pinv vs gibbs-appell, relative
constexpr double kAgreeSparse = 1e-8;  // pinv vs sparse, relative

SceneOptions options_for(int k) {
  SceneOptions o;
  static const int sizes[] = {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30};
  o.nbody = sizes[k % 13];
  o.chain = k % 2 == 0;
  o.loops = k % 3 == 1;
  o.linear = k % 4 == 3;
  o.redundant = k % 3 == 2 || k % 5 == 0;
  o.floating = k % 7 == 6;
  o.linear = o.linear && !o.floating;
  o.conservative = k % 2 == 1;
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

double max_abs(const Eigen::MatrixXd& v) {
  return v.size() ? v.cwiseAbs().maxCoeff() : 0.0;
}

// Orthonormal basis of the kernel of X, from a full-pivoting LU (independent of the
// engine's QR-based solvers).
Eigen::MatrixXd kernel_basis(const Eigen::MatrixXd& X) {
  if (X.cols() == 0) return Eigen::MatrixXd(0, 0);
  if (X.rows() == 0) return Eigen::MatrixXd::Identity(X.cols(), X.cols());
  Eigen::FullPivLU<Eigen::MatrixXd> lu(X);
  lu.setThreshold(1e-10);
  const Eigen::MatrixXd K = lu.kernel();
  if (lu.rank() == X.cols()) return Eigen::MatrixXd(X.cols(), 0);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(K);
  return qr.householderQ() * Eigen::MatrixXd::Identity(K.rows(), K.cols());
}

TEST(Formulations, PinvAndGibbsAppellAgreeOnRandomScenes) {
  double worst_u = 0.0, worst_reaction = 0.0, worst_residual = 0.0, worst_gauss = 0.0,
         worst_lambda = 0.0, worst_sparse_u = 0.0, worst_sparse_r = 0.0;
  int redundant_scenes = 0, loop_scenes = 0, max_rows = 0, max_nu = 0;
  for (int k = 0; k < kScenes; ++k) {
    const SceneOptions o = options_for(k);
    TestScene sc = random_scene(1000u + k, o, o.redundant);
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

    // the sparse {1}-inverse form [UK98 eq. 26], a third solver of the same minimum: its
    // normal equations square the condition number, hence the looser bound
    const Solved sp(m, sc.u, Formulation::Sparse);
    ASSERT_EQ(sp.status, SolveStatus::Ok) << sp.d.diagnostics.message;
    const double dus = max_abs(p.d.udot - sp.d.udot) / scale_u;
    EXPECT_LE(dus, kAgreeSparse);
    worst_sparse_u = std::max(worst_sparse_u, dus);
    if (scale_r > 0) {
      // per constraint and body when the multipliers are unique; with redundant rows sparse
      // reports the basic multipliers (sparse.hpp), so then the total force on each body
      const bool unique = p.d.diagnostics.rank == m.nrows();
      std::vector<SpatialForce> total_p(m.nbody()), total_s(m.nbody());
      double drs = 0.0;
      for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
        for (size_t j = 0; j < m.constraints()[c]->bodies().size(); ++j) {
          const int b = m.constraints()[c]->bodies()[j];
          const int s = m.slot_offset(c) + static_cast<int>(j);
          total_p[b].force += p.d.reaction[s].force;
          total_p[b].moment += p.d.reaction[s].moment;
          total_s[b].force += sp.d.reaction[s].force;
          total_s[b].moment += sp.d.reaction[s].moment;
          if (unique)
            drs = std::max({drs, max_abs(p.d.reaction[s].force - sp.d.reaction[s].force),
                            max_abs(p.d.reaction[s].moment - sp.d.reaction[s].moment)});
        }
      for (int b = 0; b < m.nbody(); ++b)
        drs = std::max({drs, max_abs(total_p[b].force - total_s[b].force),
                        max_abs(total_p[b].moment - total_s[b].moment)});
      EXPECT_LE(drs / scale_r, kAgreeSparse);
      worst_sparse_r = std::max(worst_sparse_r, drs / scale_r);
    }

    const Eigen::MatrixXd M = dense_mass(m, p.d);
    for (const Solved* s : {&p, &g}) {
      const Data& d = s->d;
      // feasibility: A ü = b
      const Eigen::VectorXd r = d.A * d.udot - d.b;
      const double res = max_abs(r) / (1.0 + max_abs(d.b) + max_abs(d.A) * max_abs(d.udot));
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
        ASSERT_LE(max_abs(d.A * delta), 1e-9 * max_abs(delta) * (1 + max_abs(d.A)));
        const double G1 = gaussian(m, d, d.udot + delta);
        EXPECT_GT(G1, G0);
        const double rel = std::abs((G1 - G0) - expected) / expected;
        EXPECT_LE(rel, 1e-6);
        worst_gauss = std::max(worst_gauss, rel);
      }

      // multipliers: Aᵀλ = M ü − F, and minimum-norm for the rows scaled to unit response
      // ρ_k = ‖A_k‖_{M⁻¹} (rank_policy.hpp): μ = ρ∘λ ⟂ null(Âᵀ) = ρ∘null(Aᵀ), i.e.
      // Wᵀ diag(ρ²) λ = 0                                   [UK96 eq. 22]
      const Eigen::VectorXd Fc = M * d.udot - d.F;
      const double fscale = 1.0 + max_abs(M * d.udot) + max_abs(d.F);
      EXPECT_LE(max_abs(d.A.transpose() * d.lambda - Fc) / fscale, 1e-10);
      const Eigen::MatrixXd W = kernel_basis(d.A.transpose());
      if (W.cols() > 0) {
        // ρ² from the dense A and M, independently of the solvers
        const Eigen::VectorXd rho2 = (d.A * M.inverse()).cwiseProduct(d.A).rowwise().sum();
        const Eigen::VectorXd mu = rho2.cwiseSqrt().cwiseProduct(d.lambda);
        const double off = max_abs(W.transpose() * rho2.asDiagonal() * d.lambda) /
                           (1.0 + max_abs(mu) * max_abs(rho2.cwiseSqrt()));
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
            << "; lambda off range(A) " << worst_lambda << "; |pinv - sparse|: udot "
            << worst_sparse_u << ", reactions " << worst_sparse_r << "\n";
}

// The same scene with and without redundant constraints (duplicated joints, distances
// implied by a joint) has the same accelerations.
TEST(Formulations, RedundantRowsChangeNothing) {
  int compared = 0;
  for (int k = 0; k < 24; ++k) {
    SceneOptions o = options_for(k);
    o.loops = false;
    o.floating = false;  // a floating root has no joint to repeat
    const TestScene base = random_scene(5000u + k, o, false);
    const TestScene with = random_scene(5000u + k, o, true);
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

namespace appell {
namespace {

// A planar four-bar linkage closed by a fourth revolute joint: 3 links (18 coordinates),
// 4 × 5 = 20 rows, 1 degree of freedom, so rank 17 and 3 redundant rows (the out-of-plane
// rows of the loop) everywhere, not only at special poses.  Closing it instead with two
// in-plane point_on_plane rows at the last pivot gives the same linkage with independent
// rows (17), hence the same accelerations.
Model four_bar(bool redundant, const Vec3& n) {
  Vec3 t1, t2;
  perpendicular_basis(n, t1, t2);
  auto P = [&](double a, double b) { return Vec3(a * t1 + b * t2); };
  const Vec3 A = P(0, 0), B = P(0.3, 0.8), C = P(1.4, 1.0), D = P(1.2, 0.0);
  const Vec3 ends[3][2] = {{A, B}, {B, C}, {C, D}};
  ModelBuilder m_b;
  m_b.gravity = Vec3(0, 0, -9.81);
  Rng rng(77);
  for (int i = 0; i < 3; ++i) {
    Body b;
    b.name = "link" + std::to_string(i);
    b.mass = 1.0 + i;
    b.position = 0.5 * (ends[i][0] + ends[i][1]) + 0.1 * rng.vec(1.0);  // off the line
    b.orientation = rng.quat();
    b.inertia = inertia_box(b.mass, Vec3(0.05, 0.1, 0.6 + 0.1 * i));
    m_b.add_body(b);
  }
  auto hinge = [&](const std::string& name, int p, int c, const Vec3& at) {
    m_b.add_constraint(std::make_shared<Joint>(name, joint_type("revolute"), p, c,
                                               m_b.initial_state(p), m_b.initial_state(c), at, n,
                                               Vec3::Zero()));
  };
  hinge("A", kWorld, 0, A);
  hinge("B", 0, 1, B);
  hinge("C", 1, 2, C);
  if (redundant) {
    hinge("D", kWorld, 2, D);
  } else {  // the pivot D stays in place within the plane: two rows
    const BodyState s = m_b.initial_state(2);
    m_b.add_constraint(std::make_shared<PointOnPlaneConstraint>("D1", 2, s, D, t1));
    m_b.add_constraint(std::make_shared<PointOnPlaneConstraint>("D2", 2, s, D, t2));
  }
  Model m = compile(m_b);
  return m;
}

TEST(Formulations, RedundantFourBarLoop) {
  const Vec3 n = Vec3(0.3, -0.5, 0.8).normalized();
  const Model loop = four_bar(true, n), plain = four_bar(false, n);
  ASSERT_EQ(loop.nrows(), 20);
  ASSERT_EQ(plain.nrows(), 17);
  // a velocity of the linkage: the nearest to a random one that satisfies every row
  Eigen::VectorXd u = Eigen::VectorXd::LinSpaced(loop.nu(), -1.0, 1.3);
  project_velocities(loop, u);
  Eigen::VectorXd reference;
  for (const Model* m : {&loop, &plain}) {
    for (Formulation f : {Formulation::Pinv, Formulation::GibbsAppell}) {
      SCOPED_TRACE(std::string(m == &loop ? "redundant" : "independent") + ", " +
                   formulation_name(f));
      Data d(*m);
      d.u = u;
      ASSERT_EQ(forward(*m, d, f), SolveStatus::Ok) << d.diagnostics.message;
      EXPECT_EQ(d.diagnostics.rank, 17);
      EXPECT_LE(max_abs(d.A * d.udot - d.b), 1e-12 * (1 + max_abs(d.b)));
      EXPECT_GT(max_abs(d.udot), 1.0);  // the linkage moves
      if (reference.size() == 0) reference = d.udot;
      EXPECT_LE(max_abs(d.udot - reference), 1e-10 * max_abs(reference));
    }
  }
}

}  // namespace
}  // namespace appell

namespace appell {
namespace {

// The same scenes in other units (lengths × L, masses × K): linear accelerations scale by
// L, angular ones not at all, and where the multipliers are unique the reactions scale as
// forces (K L) and moments (K L²).  Both dense formulations decide the rank of A after
// scaling it (dense.hpp), so redundant rows must be recognised in any units.
TEST(Formulations, ResultsDoNotDependOnUnits) {
  const std::pair<double, double> units[] = {{1e3, 1e-3}, {1e-3, 1e4}, {20.0, 50.0}};
  for (int k = 0; k < 18; ++k) {
    SceneOptions o = options_for(k);
    TestScene base = random_scene(2000u + k, o, o.redundant);
    project_velocities(base.model, base.u);
    for (const auto& [L, K] : units) {
      SceneOptions os = o;
      os.length = L;
      os.mass = K;
      const TestScene scaled = random_scene(2000u + k, os, o.redundant);
      const Model& m = scaled.model;
      ASSERT_EQ(m.nrows(), base.model.nrows());
      Eigen::VectorXd u = base.u;
      for (int i = 0; i < m.ncomposite(); ++i) u.segment<3>(m.u_offset(i)) *= L;
      SCOPED_TRACE("scene " + std::to_string(k) + " in units L = " + std::to_string(L) +
                   ", K = " + std::to_string(K));
      for (Formulation f : {Formulation::Pinv, Formulation::GibbsAppell}) {
        const Solved a(base.model, base.u, f), b(m, u, f);
        ASSERT_EQ(a.status, SolveStatus::Ok) << a.d.diagnostics.message;
        ASSERT_EQ(b.status, SolveStatus::Ok) << b.d.diagnostics.message;
        EXPECT_EQ(a.d.diagnostics.rank, b.d.diagnostics.rank) << formulation_name(f);
        Eigen::VectorXd expected = a.d.udot;
        for (int i = 0; i < m.ncomposite(); ++i) expected.segment<3>(m.u_offset(i)) *= L;
        Eigen::VectorXd diff = b.d.udot - expected;
        // compare in the base units
        for (int i = 0; i < m.ncomposite(); ++i) diff.segment<3>(m.u_offset(i)) /= L;
        EXPECT_LE(max_abs(diff), 1e-9 * std::max(1.0, max_abs(a.d.udot))) << formulation_name(f);
        // where rows are dependent, the minimum-norm multipliers mix N and N·m across rows
        if (a.d.diagnostics.rank < m.nrows()) continue;
        for (size_t s = 0; s < a.d.reaction.size(); ++s) {
          const SpatialForce& wa = a.d.reaction[s];
          const SpatialForce& wb = b.d.reaction[s];
          const double scale = 1.0 + wa.force.norm() + wa.moment.norm();
          EXPECT_LE((wb.force / (K * L) - wa.force).norm(), 1e-8 * scale);
          EXPECT_LE((wb.moment / (K * L * L) - wa.moment).norm(), 1e-8 * scale);
        }
      }
    }
  }
}

}  // namespace
}  // namespace appell
