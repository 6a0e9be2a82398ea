// The block-diagonal mass matrix of the maximal coordinates, M = diag(m I, J) per composite.
#include <Eigen/Cholesky>

#include "engine/assembly/stages.hpp"

namespace appell {

void multiply_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.ncomposite(); ++i) {
    const int o = m.u_offset(i);
    y.segment<3>(o) = m.composites()[i].mass * x.segment<3>(o);
    if (m.composites()[i].rigid())
      y.segment<3>(o + 3) = composite_inertia(m, d, i) * x.segment<3>(o + 3);
  }
}

void solve_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.ncomposite(); ++i) {
    const int o = m.u_offset(i);
    y.segment<3>(o) = x.segment<3>(o) / m.composites()[i].mass;
    if (m.composites()[i].rigid())
      y.segment<3>(o + 3) = composite_inertia(m, d, i).ldlt().solve(Vec3(x.segment<3>(o + 3)));
  }
}

}  // namespace appell
