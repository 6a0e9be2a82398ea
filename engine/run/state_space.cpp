#include "appell/state_space.hpp"

#include "appell/forward.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"
#include "engine/model/body_coordinates.hpp"
#include "engine/run/tree_state_space.hpp"

namespace appell {

std::unique_ptr<StateSpace> make_state_space(const Model& m, const SolverOptions& o) {
  SolverOptions r = o;
  r.formulation = resolve_formulation(m, o.formulation);
  if (r.formulation == Formulation::Recursive)
    return std::make_unique<TreeStateSpace>(m, r.stabilization);
  return std::make_unique<MaximalStateSpace>(m, r);
}

void MaximalStateSpace::from_state(const State& s, Eigen::VectorXd& x, Data& d) const {
  set_state(m_, d, s);
  from_maximal(d, x);
}

void MaximalStateSpace::from_maximal(const Data& d, Eigen::VectorXd& x) const {
  x.resize(size());
  x << d.q, d.u;
}

void MaximalStateSpace::to_maximal(const Eigen::VectorXd& x, double t, Data& d) {
  d.t = t;
  d.q = x.head(m_.nq());
  d.u = x.tail(m_.nu());
  kinematics(m_, d);
}

State MaximalStateSpace::to_state(const Eigen::VectorXd& x, double t, Data& d) {
  // the maximal coordinates carry no joint coordinates: read off the body states
  to_maximal(x, t, d);
  State s = state_from_bodies(m_, d.body);
  s.t = t;
  return s;
}

SolveStatus MaximalStateSpace::derivative(const Eigen::VectorXd& x, double t, Data& d,
                                          Eigen::VectorXd& xdot) {
  d.t = t;
  d.q = x.head(m_.nq());
  d.u = x.tail(m_.nu());
  const SolveStatus status = forward(m_, d, o_);
  xdot.resize(size());
  for (int i = 0; i < m_.ncomposite(); ++i) {
    const int iq = m_.q_offset(i);
    body_q_rate(m_.composites()[i], x.data() + iq, d.u.data() + m_.u_offset(i), xdot.data() + iq);
  }
  xdot.tail(m_.nu()) = d.udot;
  return status;
}

void MaximalStateSpace::normalize(Eigen::VectorXd& x) const {
  for (int i = 0; i < m_.ncomposite(); ++i)
    normalize_body_q(m_.composites()[i], x.data() + m_.q_offset(i));
}

SolveStatus MaximalStateSpace::project(Eigen::VectorXd& x, double t, Data& d) {
  // positions first (Gauss–Newton), then velocities at the projected positions; see
  // projection.hpp (P1–P3)
  d.diagnostics = Diagnostics{};
  to_maximal(x, t, d);
  SolveStatus status = project_positions(m_, d);
  if (status == SolveStatus::Ok) status = project_velocities(m_, d);
  if (status == SolveStatus::Ok) from_maximal(d, x);
  return status;
}

}  // namespace appell
