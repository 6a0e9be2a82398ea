#include "engine/formulations/rank_policy.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/assembly/stages.hpp"
#include "engine/model/body_coordinates.hpp"

namespace appell {

namespace {

// calls fn(c) for every constraint, or for those of `only`
template <typename Fn>
void for_constraints(const Model& m, const std::vector<int>* only, Fn&& fn) {
  if (only) {
    for (int c : *only) fn(c);
  } else {
    for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) fn(c);
  }
}

// calls fn(row, composite, term) for every term of the rows of constraint c, in composite
// coordinates (stages.hpp, W1)
template <typename Fn>
void for_terms_of(const Model& m, const Data& d, int c, Fn&& fn) {
  const Constraint& con = *m.constraints()[c];
  const int nb = static_cast<int>(con.bodies().size());
  const SpatialForce* terms = composite_terms(m, d);
  for (int i = 0; i < con.rows(); ++i)
    for (int j = 0; j < nb; ++j)
      fn(m.row_offset(c) + i, m.composite(con.bodies()[j]), terms[m.term_offset(c) + i * nb + j]);
}

}  // namespace

void row_responses(const Model& m, const Data& d, Eigen::VectorXd& rho,
                   const std::vector<int>* only) {
  if (rho.size() != m.nrows()) rho.setZero(m.nrows());
  for_constraints(m, only, [&](int c) {
    const int r0 = m.row_offset(c), nr = m.constraints()[c]->rows();
    rho.segment(r0, nr).setZero();
    for_terms_of(m, d, c, [&](int row, int body, const SpatialForce& t) {
      const Body& b = m.composites()[body];
      rho(row) += t.force.squaredNorm() / b.mass;  // (P1)
      rho(row) += body_inverse_turn_norm2(b, composite_inertia(m, d, body), t.moment);
    });
    rho.segment(r0, nr) = rho.segment(r0, nr).cwiseSqrt();
  });
}

double dependence_tolerance(const Model& m, const Data& d, const Eigen::VectorXd& rho,
                            const std::vector<int>* only) {
  // ν = max_k |g_k| / (ρ_k sqrt(tr J₀ / 2)) over holonomic rows with a rigid body (P3)
  double nu = 0.0;
  for_constraints(m, only, [&](int c) {
    const Constraint& con = *m.constraints()[c];
    double lever = INFINITY;  // √kg·m: the smallest sqrt(tr J₀/2) of the row's rigid bodies
    for (int b : con.bodies()) {
      const double tr = m.composites()[m.composite(b)].inertia.trace();  // a particle's: 0
      if (tr > 0) lever = std::min(lever, std::sqrt(0.5 * tr));
    }
    if (!std::isfinite(lever) || !(lever > 0)) return;
    for (int i = 0; i < con.rows(); ++i) {
      const int row = m.row_offset(c) + i;
      if (!con.holonomic(i) || !(rho(row) > 0)) continue;
      const double g = std::abs(d.position_residual(row));
      if (std::isfinite(g)) nu = std::max(nu, g / (rho(row) * lever));
    }
  });
  return std::max(kDependentSine, std::min(kDriftFactor * nu, kDriftSineLimit));
}

InverseSqrtMass::InverseSqrtMass(const Model& m, const Data& d)
    : m_(m), Jinvsqrt_(m.ncomposite(), Mat3::Zero()), Jsqrt_(m.ncomposite(), Mat3::Zero()) {
  for (int i = 0; i < m.ncomposite(); ++i)
    if (m.block(i).rigid) turning_.push_back(i);
  for (int i : turning_) {
    const Eigen::SelfAdjointEigenSolver<Mat3> eig(composite_inertia(m, d, i));
    Jinvsqrt_[i] = eig.operatorInverseSqrt();
    Jsqrt_[i] = eig.operatorSqrt();
  }
}

void InverseSqrtMass::right_multiply(Eigen::MatrixXd& X) const {
  for (int i = 0; i < m_.ncomposite(); ++i)
    X.middleCols<3>(m_.u_offset(i)) /= std::sqrt(m_.composites()[i].mass);
  for (int i : turning_) {
    const int o = m_.u_offset(i) + 3;
    X.middleCols<3>(o) = X.middleCols<3>(o) * Jinvsqrt_[i];
  }
}

void InverseSqrtMass::apply(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  y.resize(m_.nu());
  for (int i = 0; i < m_.ncomposite(); ++i) {
    const int o = m_.u_offset(i);
    y.segment<3>(o) = x.segment<3>(o) / std::sqrt(m_.composites()[i].mass);
  }
  for (int i : turning_) {
    const int o = m_.u_offset(i) + 3;
    y.segment<3>(o) = Jinvsqrt_[i] * x.segment<3>(o);
  }
}

void InverseSqrtMass::apply_inverse(const Eigen::VectorXd& x, Eigen::VectorXd& y) const {
  y.resize(m_.nu());
  for (int i = 0; i < m_.ncomposite(); ++i) {
    const int o = m_.u_offset(i);
    y.segment<3>(o) = x.segment<3>(o) * std::sqrt(m_.composites()[i].mass);
  }
  for (int i : turning_) {
    const int o = m_.u_offset(i) + 3;
    y.segment<3>(o) = Jsqrt_[i] * x.segment<3>(o);
  }
}

void UnitRowInverse::compute(const Eigen::MatrixXd& C, double tau) {
  C_ = C;
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(C.rows(), C.rows());
  G.selfadjointView<Eigen::Lower>().rankUpdate(C);  // Ĝ = C Cᵀ
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(G);
  const Eigen::VectorXd& s2 = eig.eigenvalues();  // σ², increasing
  int first = 0;
  while (first < s2.size() && !(s2(first) >= tau * tau)) ++first;  // (P2), absolute
  // C C^T has at most min(m, n) non-zero eigenvalues: more kept ones come from a Gram
  // matrix overflowed by a degenerate mass (a principal moment near 0), never from rows
  first = std::max<int>(first, static_cast<int>(C.rows() - C.cols()));
  U_ = eig.eigenvectors().rightCols(s2.size() - first);
  inv_sigma2_ = s2.tail(s2.size() - first).cwiseInverse();
}

// (P4), then one step of iterative refinement: the Gram matrix costs digits that a second
// pass on the residual gives back (the residual's dropped components are projected out)
Eigen::VectorXd UnitRowInverse::solve(const Eigen::VectorXd& e) const {
  auto apply = [&](const Eigen::VectorXd& r) -> Eigen::VectorXd {
    return C_.transpose() * (U_ * inv_sigma2_.cwiseProduct(U_.transpose() * r));
  };
  Eigen::VectorXd y = apply(e);
  y += apply(e - C_ * y);
  return y;
}

Eigen::VectorXd UnitRowInverse::multipliers(const Eigen::VectorXd& f) const {
  auto apply = [&](const Eigen::VectorXd& r) -> Eigen::VectorXd {
    return U_ * inv_sigma2_.cwiseProduct(U_.transpose() * (C_ * r));
  };
  Eigen::VectorXd mu = apply(f);
  mu += apply(f - C_.transpose() * mu);
  return mu;
}

namespace {

// the mass-metric sizes |M^{1/2} u̇| + |M^{-1/2} F| of the scale s, body by body.  O(n).
double mass_norms(const Model& m, const Data& d) {
  double uMu = 0.0, FMF = 0.0;
  for (int i = 0; i < m.ncomposite(); ++i) {
    const BodyBlock block = m.block(i);
    const int o = block.offset;
    const double mass = m.composites()[i].mass;
    uMu += mass * d.udot.segment<3>(o).squaredNorm();
    FMF += d.F.segment<3>(o).squaredNorm() / mass;
    if (block.size() == 3) continue;  // a particle's block: no angular part
    const Vec3 w = d.udot.segment<3>(o + 3), tau = d.F.segment<3>(o + 3);
    const Mat3& J = composite_inertia(m, d, i);
    uMu += w.dot(J * w);
    FMF += tau.dot(J.ldlt().solve(tau));
  }
  return std::sqrt(std::max(0.0, uMu)) + std::sqrt(std::max(0.0, FMF));
}

}  // namespace

// row by row, without storing r = A u̇ − b: nothing is allocated unless a row fails
void check_consistency(const Model& m, Data& d, const Eigen::VectorXd& rho, double tau) {
  Diagnostics& diag = d.diagnostics;
  diag.inconsistent.clear();
  const int nr = m.nrows();
  // s = |M^{1/2} u̇| + |M^{-1/2} F| + max_k |b_k| / ρ_k
  double bmax = 0.0;
  for (int k = 0; k < nr; ++k)
    if (rho(k) > 0) bmax = std::max(bmax, std::abs(d.b(k)) / rho(k));
  const double s = mass_norms(m, d) + bmax;
  const double tol = kConsistencyFactor * tau;
  double r2 = 0.0;  // |A u̇ − b|²
  const SpatialForce* terms = composite_terms(m, d);
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const int r0 = m.row_offset(c), nb = static_cast<int>(m.constraints()[c]->bodies().size());
    bool failed = false;
    for (int i = 0; i < m.constraints()[c]->rows(); ++i) {
      // r_i = A_i u̇ − b_i and Σ_j |A_ij u̇_j| from the terms
      double r = -d.b(r0 + i), size = 0.0;
      for (int j = 0; j < nb; ++j) {
        const int body = m.composite(m.constraints()[c]->bodies()[j]);
        const SpatialForce& t = terms[m.term_offset(c) + i * nb + j];
        const BodyBlock block = m.block(body);
        const auto lin = d.udot.segment<3>(block.offset);
        r += t.force.dot(lin);
        size += t.force.cwiseProduct(lin).cwiseAbs().sum();
        if (block.size() == 3) continue;  // a particle's block: no angular part
        const auto ang = d.udot.segment<3>(block.offset + 3);
        r += t.moment.dot(ang);
        size += t.moment.cwiseProduct(ang).cwiseAbs().sum();
      }
      r2 += r * r;
      const double scale = std::abs(d.b(r0 + i)) + size + rho(r0 + i) * s;
      failed = failed || !(std::abs(r) <= tol * scale);
    }
    if (failed) diag.inconsistent.push_back(c);
  }
  diag.residual = std::sqrt(r2) / (1.0 + d.b.norm());
  if (!std::isfinite(diag.residual) || !d.udot.allFinite()) {
    diag.inconsistent.clear();
    report_not_finite(diag, "the accelerations are not finite");
    return;
  }
  if (diag.inconsistent.empty()) return;
  std::ostringstream os;
  os << "inconsistent constraints (no acceleration satisfies A u̇ = b): ";
  for (size_t k = 0; k < diag.inconsistent.size(); ++k)
    os << (k ? ", " : "") << "'" << m.constraints()[diag.inconsistent[k]]->name() << "'";
  os << "; residual " << diag.residual;
  diag.status = SolveStatus::Inconsistent;
  diag.message = os.str();
}

SolveStatus report_not_finite(Diagnostics& diag, const std::string& what) {
  diag.status = SolveStatus::NotFinite;
  diag.message = what +
                 " (the mass matrix is beyond double precision: are masses or inertias many "
                 "orders of magnitude apart?)";
  return diag.status;
}

}  // namespace appell
