// moreau: velocity-level time stepping with unilateral rows (contact shapes, joint limits,
// joint friction; engine/contact/moreau.hpp) on the recursive formulation's x = (q, u), at a
// fixed step dt, the last one shortened to end at T.
#include "engine/contact/moreau.hpp"

#include "appell/forward.hpp"
#include "engine/model/tree.hpp"
#include "engine/run/integrators/integrator.hpp"

namespace appell {

namespace {

// contact and joint limits run in the recursive formulation; the solver's settings
void check_moreau(const Model& m, SimulationOptions& o,
                  const std::function<void(const std::string&)>& bad) {
  if (o.formulation == Formulation::Auto) o.formulation = Formulation::Recursive;
  const Formulation f = resolve_formulation(m, o.formulation);
  if (f != Formulation::Recursive)
    bad(std::string("contact and joint limits run in the recursive formulation for now, not ") +
        formulation_name(f));
  if (!(o.contact.tolerance > 0) || o.contact.max_iterations < 1)
    bad("contact.tolerance must be > 0 and contact.max_iterations >= 1");
}

class Moreau final : public Stepper {
 public:
  explicit Moreau(Simulation::Impl& s) {
    MoreauOptions mo;
    mo.joint_limits = s.o.contact.joint_limits;
    mo.joint_friction = s.o.contact.joint_friction;
    mo.solver.tolerance = s.o.contact.tolerance;
    mo.solver.max_iterations = s.o.contact.max_iterations;
    mo.stabilization = s.o.stabilization;
    moreau_ = std::make_unique<MoreauStepper>(s.m, make_contact_detector(s.m), mo);
  }

  bool step(Simulation::Impl& s) override {
    using simulation_detail::status_of;
    const double t_next = s.instant(s.k + 1);
    const int nu = s.m.tree().nu, nq = static_cast<int>(s.x.size()) - nu;
    Eigen::VectorXd q = s.x.head(nq), u = s.x.tail(nu);
    const SolveStatus st = moreau_->step(s.t, t_next - s.t, q, u, s.d);
    if (st != SolveStatus::Ok || !q.allFinite() || !u.allFinite()) {
      s.fail(st == SolveStatus::Ok ? SimulationStatus::NotFinite : status_of(st), s.t,
             st == SolveStatus::Ok ? "the state is not finite" : s.d.diagnostics.message);
      // a body through another: the message says why, no hint on singular positions
      if (moreau_->stats().too_deep) s.r.message = s.d.diagnostics.message;
      return false;
    }
    const MoreauStepStats& st_ = moreau_->stats();
    SimulationResult& r = s.r;
    r.impacts += st_.impacts;
    r.contact_iterations = std::max(r.contact_iterations, st_.iterations);
    r.contact_residual = std::max(r.contact_residual, st_.residual);
    if (!st_.converged) {
      if (r.contact_unconverged == 0) {
        r.first_unconverged_t = t_next;
        r.first_unconverged_residual = st_.residual;
      }
      ++r.contact_unconverged;
      r.unconverged_residual = std::max(r.unconverged_residual, st_.residual);
    }
    s.record_contacts(*moreau_, t_next - s.t);  // the outputs' rows (contact_samples.cpp)
    s.x.head(nq) = q;
    s.x.tail(nu) = u;
    return s.end_fixed_step(t_next, false);  // no ẋ: the next step needs none
  }

 private:
  std::unique_ptr<MoreauStepper> moreau_;  // the contact state (warm starts)
};

}  // namespace

const Integrator& moreau_integrator() {
  static const Integrator kMoreau{
      {"moreau", "Moreau-Jean time stepping with contact, joint limits and joint friction", false,
       true, false, false},
      check_moreau,
      [](Simulation::Impl& s) -> std::unique_ptr<Stepper> { return std::make_unique<Moreau>(s); }};
  return kMoreau;
}

}  // namespace appell
