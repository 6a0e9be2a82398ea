// One evaluation of a Lagrangian system, as a table of contents: the terms of L, the rows
// and the quasi-velocity map, then both forms (engine/lagrangian/*.cpp).
#include "appell/lagrangian.hpp"

namespace appell {

LagrangianStatus evaluate_lagrangian(const LagrangianSystem& s, const LagrangianState& x,
                                     LagrangianData& d) {
  LagrangianStatus st = lagrangian_terms(s, x, d);
  if (st == LagrangianStatus::Ok) st = quasi_velocity_map(s, x, d);
  if (st == LagrangianStatus::Ok) st = gibbs_appell_nu(s, d);
  if (st == LagrangianStatus::Ok) st = gauss_udwadia_kalaba(s, d);
  return st;
}

}  // namespace appell
