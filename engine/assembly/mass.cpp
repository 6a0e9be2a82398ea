// The block-diagonal mass matrix of the maximal coordinates, M = diag(m I, J) per body.
#include <Eigen/Cholesky>

#include "engine/assembly/stages.hpp"

namespace appell {

void multiply_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.nbody(); ++i) {
    const int o = m.u_offset(i);
    y.segment<3>(o) = m.bodies()[i].mass * x.segment<3>(o);
    if (m.bodies()[i].rigid()) y.segment<3>(o + 3) = d.J[i] * x.segment<3>(o + 3);
  }
}

void solve_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.nbody(); ++i) {
    const int o = m.u_offset(i);
    y.segment<3>(o) = x.segment<3>(o) / m.bodies()[i].mass;
    if (m.bodies()[i].rigid()) y.segment<3>(o + 3) = d.J[i].ldlt().solve(Vec3(x.segment<3>(o + 3)));
  }
}

}  // namespace appell
