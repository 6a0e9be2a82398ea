// The law of the contact problem (engine/contact/ncp.hpp): the projections onto the blocks'
// admissible sets, the De Saxcé correction and the natural residual.
#include <algorithm>
#include <cmath>

#include "engine/contact/ncp.hpp"
#include "engine/contact/ncp_steps.hpp"

namespace appell {

namespace ncp_detail {

// z ← Π(z) block by block: the cone, the half-line or the interval
void project(const std::vector<ContactBlock>& blocks, Eigen::VectorXd& z) {
  for (const ContactBlock& b : blocks) {
    if (b.fixed) {
      z.segment(b.row, b.size()).setZero();
      continue;
    }
    switch (b.kind) {
      case ContactBlock::Kind::Contact:
        project_cone3(z(b.row), z(b.row + 1), z(b.row + 2), b.mu);
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
      s(b.row) = b.mu * std::sqrt(u(b.row + 1) * u(b.row + 1) + u(b.row + 2) * u(b.row + 2));
}

// the natural residual at λ from the rows' velocities u = G λ + g and the blocks' scales
double residual_at(const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& gamma,
                   const Eigen::VectorXd& lambda, const Eigen::VectorXd& u) {
  double r = 0.0;
  for (size_t k = 0; k < blocks.size(); ++k) {
    const ContactBlock& b = blocks[k];
    const double gk = gamma(static_cast<Eigen::Index>(k));
    double e = 0.0;
    if (b.fixed) {  // λ = 0 whatever u
      r = std::max(r, lambda.segment(b.row, b.size()).norm() * gk);
      continue;
    }
    switch (b.kind) {
      case ContactBlock::Kind::Contact: {
        const int r = b.row;
        double n, t1, t2;
        contact_step(b, gk, lambda, u, n, t1, t2);
        n -= lambda(r);
        t1 -= lambda(r + 1);
        t2 -= lambda(r + 2);
        e = std::sqrt(n * n + t1 * t1 + t2 * t2) * gk;
        break;
      }
      case ContactBlock::Kind::Unilateral:
        e = std::abs(lambda(b.row) - std::max(lambda(b.row) - u(b.row) / gk, 0.0)) * gk;
        break;
      case ContactBlock::Kind::Bounded:
        e = std::abs(lambda(b.row) - std::clamp(lambda(b.row) - u(b.row) / gk, -b.bound, b.bound)) *
            gk;
        break;
    }
    r = std::max(r, e);
  }
  return r;
}

}  // namespace ncp_detail

Eigen::Vector3d project_cone(const Eigen::Vector3d& x, double mu) {
  Eigen::Vector3d p = x;
  ncp_detail::project_cone3(p(0), p(1), p(2), mu);
  return p;
}

double contact_residual(const Eigen::MatrixXd& G, const Eigen::VectorXd& g,
                        const std::vector<ContactBlock>& blocks, const Eigen::VectorXd& lambda) {
  Eigen::VectorXd gamma(blocks.size());
  for (size_t k = 0; k < blocks.size(); ++k)
    gamma(static_cast<Eigen::Index>(k)) = ncp_detail::block_scale(G.diagonal(), blocks[k]);
  return ncp_detail::residual_at(blocks, gamma, lambda, G * lambda + g);
}

}  // namespace appell
