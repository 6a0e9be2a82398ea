// One step of the `moreau` method: velocity-level time stepping with unilateral rows
// (engine/contact/moreau.hpp) on the recursive formulation's x = (q, u).
#include "engine/contact/moreau.hpp"
#include "engine/model/tree.hpp"
#include "engine/run/simulation_impl.hpp"

namespace appell {

using namespace simulation_detail;

void Simulation::Impl::start_moreau() {
  MoreauOptions mo;
  mo.joint_limits = o.contact.joint_limits;
  mo.joint_friction = o.contact.joint_friction;
  mo.solver.tolerance = o.contact.tolerance;
  mo.solver.max_iterations = o.contact.max_iterations;
  mo.stabilization = o.stabilization;
  moreau = std::make_shared<MoreauStepper>(m, make_contact_detector(m), mo);
}

bool Simulation::Impl::step_moreau() {
  const double t_next = instant(k + 1);
  const int nq = static_cast<int>(x.size()) - m.tree().nu;
  Eigen::VectorXd q = x.head(nq), u = x.tail(m.tree().nu);
  const SolveStatus st = moreau->step(t, t_next - t, q, u, d);
  if (st != SolveStatus::Ok || !q.allFinite() || !u.allFinite()) {
    fail(st == SolveStatus::Ok ? SimulationStatus::NotFinite : status_of(st), t,
         st == SolveStatus::Ok ? "the state is not finite" : d.diagnostics.message);
    // a body through another: the message says why, no hint on singular positions
    if (moreau->stats().too_deep) r.message = d.diagnostics.message;
    return false;
  }
  const MoreauStepStats& s = moreau->stats();
  r.impacts += s.impacts;
  r.contact_iterations = std::max(r.contact_iterations, s.iterations);
  r.contact_residual = std::max(r.contact_residual, s.residual);
  if (!s.converged) {
    if (r.contact_unconverged == 0) {
      r.first_unconverged_t = t_next;
      r.first_unconverged_residual = s.residual;
    }
    ++r.contact_unconverged;
    r.unconverged_residual = std::max(r.unconverged_residual, s.residual);
  }
  record_contacts(t_next - t);  // the outputs' rows (engine/run/contact_samples.cpp)
  x.head(nq) = q;
  x.tail(m.tree().nu) = u;
  if (!accept(x, t_next)) return false;
  t = t_next;
  ++k;
  if (due(k, K) && (!evaluate(x, t, dxdt, Purpose::Sample) || !emit(t))) return false;
  return true;
}

}  // namespace appell
