// ADMM on the cone complementarity of the contact problem (engine/contact/ncp.hpp).
#include "engine/contact/ncp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace appell {

Eigen::Vector3d project_cone(const Eigen::Vector3d& x, double mu) {
  const double n = x(0);
  const double s = std::hypot(x(1), x(2));
  // inside K_μ (n ≥ 0 said apart: with μ = 0 and no tangential part, s ≤ μ n holds for
  // any n, and a frictionless contact would pull)
  if (n >= 0 && s <= mu * n) return x;
  if (mu * s <= -n) return Eigen::Vector3d::Zero();  // inside the polar cone
  const double np = (n + mu * s) / (1.0 + mu * mu);
  Eigen::Vector3d p(np, 0.0, 0.0);
  if (s > 0) p.tail<2>() = (mu * np / s) * x.tail<2>();
  return p;
}

namespace {

constexpr int kStall = 256;       // ADMM iterations that must halve its best residual
constexpr int kPolishSteps = 16;  // Newton steps of a polish (four times that at the end)

// z ← Π(z) block by block: the cone, the half-line or the interval
void project(const std::vector<ContactBlock>& blocks, Eigen::VectorXd& z) {
  for (const ContactBlock& b : blocks) {
    if (b.fixed) {
      z.segment(b.row, b.size()).setZero();
      continue;
    }
    switch (b.kind) {
      case ContactBlock::Kind::Contact:
        z.segment<3>(b.row) = project_cone(z.segment<3>(b.row), b.mu);
        break;
      case ContactBlock::Kind::Unilateral:
        z(b.row) = std::max(z(b.row), 0.0);
        break;
      case ContactBlock::Kind::Bounded:
        z(b.row) = std::clamp(z(b.row), -b.bound, b.bound);
        break;
    }
  }
}

// the De Saxcé correction s = μ ‖u_t‖ e_n of every contact at u (zero elsewhere)
void de_saxce(const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& u,
              Eigen::VectorXd& s) {
  s.setZero();
  for (const ContactBlock& b : blocks)
    if (b.kind == ContactBlock::Kind::Contact && !b.fixed)
      s(b.row) = b.mu * std::hypot(u(b.row + 1), u(b.row + 2));
}

double block_scale(const Eigen::MatrixXd& G, const ContactBlock& b) {
  double gamma = 0.0;
  for (int i = 0; i < b.size(); ++i) gamma = std::max(gamma, G(b.row + i, b.row + i));
  return gamma > 0 ? gamma : 1.0;
}

// The natural map of the law, F_b(λ) = λ_b − Π_b(λ_b − û_b/γ_b) per block (its norm times
// γ_b is the block's residual, contact_residual()), and J, its generalized Jacobian (an
// element of Clarke's), for the semismooth Newton steps of newton_polish().
void natural_map(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                 const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& lambda,
                 Eigen::VectorXd& F, Eigen::MatrixXd& J) {
  const Eigen::Index m = g.size();
  const Eigen::VectorXd u = G * lambda + g;
  F.resize(m);
  J.setIdentity(m, m);
  for (const ContactBlock& b : blocks) {
    const int r = b.row;
    if (b.fixed) {  // λ = 0: F = λ, J = I
      F.segment(r, b.size()) = lambda.segment(r, b.size());
      continue;
    }
    const double gamma = block_scale(G, b);
    switch (b.kind) {
      case ContactBlock::Kind::Contact: {
        // û = u + μ‖u_t‖ e_n, dû/dλ = (I + μ e_n t̂ᵀ) G_rows (t̂ = u_t/‖u_t‖)
        const double ut = std::hypot(u(r + 1), u(r + 2));
        Eigen::Vector3d uh = u.segment<3>(r);
        uh(0) += b.mu * ut;
        const Eigen::Vector3d x = lambda.segment<3>(r) - uh / gamma;
        F.segment<3>(r) = lambda.segment<3>(r) - project_cone(x, b.mu);
        // the projection's derivative at x                          (project_cone's cases)
        Eigen::Matrix3d P;
        const double n = x(0), s = std::hypot(x(1), x(2)), mu = b.mu;
        if (n >= 0 && s <= mu * n) {
          P.setIdentity();
        } else if (mu * s <= -n || s == 0) {
          P.setZero();
        } else {
          const double a = 1.0 / (1.0 + mu * mu), pn = a * (n + mu * s);
          const Eigen::Vector2d th = x.tail<2>() / s;
          P(0, 0) = a;
          P.block<1, 2>(0, 1) = a * mu * th.transpose();
          P.block<2, 1>(1, 0) = mu * a * th;
          P.block<2, 2>(1, 1) =
              mu * (a * mu * th * th.transpose() +
                    (pn / s) * (Eigen::Matrix2d::Identity() - th * th.transpose()));
        }
        Eigen::MatrixXd dU = G.middleRows(r, 3);  // dû/dλ
        if (ut > 0) dU.row(0) += (b.mu / ut) * (u(r + 1) * G.row(r + 1) + u(r + 2) * G.row(r + 2));
        // J_rows = I_rows − P (I_rows − dû/γ)
        Eigen::MatrixXd inner = -dU / gamma;
        inner.middleCols(r, 3) += Eigen::Matrix3d::Identity();
        J.middleRows(r, 3) -= P * inner;
        break;
      }
      case ContactBlock::Kind::Unilateral:
      case ContactBlock::Kind::Bounded: {
        const double x = lambda(r) - u(r) / gamma;
        const double lo = b.kind == ContactBlock::Kind::Unilateral ? 0.0 : -b.bound;
        const double hi = b.kind == ContactBlock::Kind::Unilateral
                              ? std::numeric_limits<double>::infinity()
                              : b.bound;
        F(r) = lambda(r) - std::clamp(x, lo, hi);
        if (x > lo && x < hi) J.row(r) = G.row(r) / gamma;  // I − (I − G/γ)
        break;
      }
    }
  }
}

// Semismooth Newton on the natural map [Acary & Brogliato 2008, §13.3; Alart & Curnier
// 1991 for the frictional law], from λ, with a backtracking line search on the residual:
// quadratic near a solution where ADMM is linear, and on G singular (a hinge's contact)
// the minimum-norm step of a complete orthogonal decomposition.  λ is changed only when
// the residual goes down; returns the residual at λ.
double newton_polish(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                     const std::vector<ContactBlock>& blocks, Eigen::VectorXd& lambda,
                     double tolerance, int steps, int& iterations) {
  double r = contact_residual(G, g, blocks, lambda);
  Eigen::VectorXd F, trial;
  Eigen::MatrixXd J;
  for (int k = 0; k < steps && r > tolerance; ++k) {
    natural_map(G, g, blocks, lambda, F, J);
    const Eigen::VectorXd step = J.completeOrthogonalDecomposition().solve(-F);
    if (!step.allFinite()) break;
    bool improved = false;
    for (double t = 1.0; t > 1e-6; t *= 0.5) {
      trial = lambda + t * step;
      const double rt = contact_residual(G, g, blocks, trial);
      if (rt < r) {
        lambda = trial;
        r = rt;
        improved = true;
        break;
      }
    }
    ++iterations;
    if (!improved) break;
  }
  return r;
}

}  // namespace

double contact_residual(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                        const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& lambda) {
  const Eigen::VectorXd u = G * lambda + g;
  double r = 0.0;
  for (const ContactBlock& b : blocks) {
    const double gamma = block_scale(G, b);
    double e = 0.0;
    if (b.fixed) {  // λ = 0 whatever u
      r = std::max(r, lambda.segment(b.row, b.size()).norm() * gamma);
      continue;
    }
    switch (b.kind) {
      case ContactBlock::Kind::Contact: {
        Eigen::Vector3d uh = u.segment<3>(b.row);
        uh(0) += b.mu * uh.tail<2>().norm();
        const Eigen::Vector3d l = lambda.segment<3>(b.row);
        e = (l - project_cone(l - uh / gamma, b.mu)).norm() * gamma;
        break;
      }
      case ContactBlock::Kind::Unilateral:
        e = std::abs(lambda(b.row) - std::max(lambda(b.row) - u(b.row) / gamma, 0.0)) * gamma;
        break;
      case ContactBlock::Kind::Bounded:
        e = std::abs(lambda(b.row) -
                     std::clamp(lambda(b.row) - u(b.row) / gamma, -b.bound, b.bound)) *
            gamma;
        break;
    }
    r = std::max(r, e);
  }
  return r;
}

ContactSolverResult solve_contact_problem(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                                          const std::vector<ContactBlock>& blocks,
                                          Eigen::VectorXd& lambda,
                                          const ContactSolverOptions& options) {
  const Eigen::Index m = g.size();
  ContactSolverResult res;
  if (lambda.size() != m || !lambda.allFinite()) lambda.setZero(m);
  if (m == 0) {
    res.converged = true;
    return res;
  }
  // the scale of G: the penalty starts at its mean diagonal, the balancing compares
  // impulse-sized residuals in velocity units through it
  const double gmax = std::max(G.diagonal().maxCoeff(), 1e-300);
  double rho = std::max(G.trace() / static_cast<double>(m), 1e-12 * gmax);
  Eigen::VectorXd z = lambda, x(m), y(m), u(m), s(m), z_prev(m), rhs(m);
  project(blocks, z);
  u.noalias() = G * z + g;
  de_saxce(blocks, u, s);
  y = -(u + s);  // the dual of a solution is −û: exact when the warm start is
  res.residual = contact_residual(G, g, blocks, z);
  if (res.residual <= options.tolerance) {
    lambda = z;
    res.converged = true;
    return res;
  }
  Eigen::LLT<Eigen::MatrixXd> llt;
  auto factor = [&] {
    Eigen::MatrixXd A = G;
    A.diagonal().array() += rho;
    llt.compute(A);
  };
  factor();
  // the best iterate so far, and the penalty's floor: with G singular (a link on one hinge
  // gives a contact's three rows rank 1) the De Saxcé correction, held fixed in each
  // x-update, is fed back through G's null space amplified by 1/ρ; below some ρ the
  // iteration diverges (impulses of 1e17 on a hinged arm landing on a floor).  A residual
  // grown a thousandfold over the best and past the starting one restarts from the best
  // iterate with ρ four times the one that diverged, and ρ never again goes below it.
  Eigen::VectorXd z_admm = z, z_best = z, zn;
  const double start = res.residual;
  double admm_best = start, best = start, rho_min = 0.0, stall_mark = start;
  // semismooth Newton from the best point so far, where ADMM's linear rate is slow: its
  // point is returned when it converges or is the best at the end; ADMM's own iterates and
  // their restarts go on undisturbed
  const auto polish = [&](int steps) {
    zn = z_best;
    const double rn =
        newton_polish(G, g, blocks, zn, options.tolerance, steps, res.newton_iterations);
    if (rn < best) {
      best = rn;
      z_best = zn;
    }
    return rn <= options.tolerance;
  };
  for (int it = 1; it <= options.max_iterations; ++it) {
    // stalled: ADMM's best not halved over the last kStall iterations
    if (it % kStall == 0) {
      if (!(admm_best < 0.5 * stall_mark) && polish(kPolishSteps)) {
        z = zn;
        res.converged = true;
        break;
      }
      stall_mark = admm_best;
    }
    rhs = rho * z - y - g - s;
    x = llt.solve(rhs);
    z_prev = z;
    z = x + y / rho;
    project(blocks, z);
    y += rho * (x - z);
    u.noalias() = G * z + g;
    de_saxce(blocks, u, s);
    res.iterations = it;
    res.residual = contact_residual(G, g, blocks, z);
    if (res.residual <= options.tolerance) {
      res.converged = true;
      break;
    }
    if (res.residual < best) {
      best = res.residual;
      z_best = z;
    }
    if (res.residual < admm_best) {
      admm_best = res.residual;
      z_admm = z;
    } else if (!(res.residual <= std::max(1e3 * admm_best, start))) {
      z = z_admm;
      u.noalias() = G * z + g;
      de_saxce(blocks, u, s);
      y = -(u + s);
      rho_min = rho = 4.0 * rho;
      factor();
      continue;
    }
    // balance the primal (x − z, impulses) and dual (ρ Δz, velocities) residuals
    if (it % 8 == 0) {
      const double primal = gmax * (x - z).lpNorm<Eigen::Infinity>();
      const double dual = rho * (z - z_prev).lpNorm<Eigen::Infinity>();
      if (primal > 10.0 * dual && rho < 1e8 * gmax) {
        rho *= 4.0;
        factor();
      } else if (dual > 10.0 * primal && rho > 1e-8 * gmax && rho >= 4.0 * rho_min) {
        rho /= 4.0;
        factor();
      }
    }
  }
  if (!res.converged && polish(4 * kPolishSteps)) {
    z = zn;
    res.converged = true;
  }
  if (!res.converged) z = z_best;  // the best point, not the last
  res.residual = contact_residual(G, g, blocks, z);
  lambda = z;
  return res;
}

}  // namespace appell
