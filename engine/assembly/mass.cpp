// The block-diagonal mass matrix of the maximal coordinates, M = diag(m I, J) per composite.
#include <Eigen/Cholesky>

#include "engine/assembly/stages.hpp"
#include "engine/model/body_coordinates.hpp"

namespace appell {

void multiply_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.ncomposite(); ++i) {
    const int o = m.u_offset(i);
    body_mass_times(m.composites()[i], composite_inertia(m, d, i), x.data() + o, y.data() + o);
  }
}

void solve_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.ncomposite(); ++i) {
    const int o = m.u_offset(i);
    body_mass_solve(m.composites()[i], composite_inertia(m, d, i), x.data() + o, y.data() + o);
  }
}

}  // namespace appell
