// ADMM on the cone complementarity of the contact problem (engine/contact/ncp.hpp).
#include "engine/contact/ncp.hpp"

#include <algorithm>
#include <cmath>

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
  Eigen::VectorXd z_best = z;
  const double start = res.residual;
  double best = start, rho_min = 0.0;
  for (int it = 1; it <= options.max_iterations; ++it) {
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
    } else if (!(res.residual <= std::max(1e3 * best, start))) {
      z = z_best;
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
  if (!res.converged) {  // the best iterate, not the last
    z = z_best;
    res.residual = best;
  }
  lambda = z;
  return res;
}

}  // namespace appell
