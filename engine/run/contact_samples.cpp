// The contact rows of a moreau step as outputs see them (appell::ContactSample,
// appell/contact.hpp): Simulation::contacts(), Sample::contacts, contact_forces().
#include <stdexcept>

#include "appell/tree.hpp"
#include "engine/contact/moreau.hpp"
#include "engine/run/integrators/integrator.hpp"
#include "engine/run/simulation_impl.hpp"

namespace appell {

const char* contact_state_name(ContactSample::State s) {
  switch (s) {
    case ContactSample::State::Open:
      return "open";
    case ContactSample::State::Stick:
      return "stick";
    case ContactSample::State::Slip:
      return "slip";
  }
  return "open";
}

void Simulation::Impl::record_contacts(const MoreauStepper& moreau, double step) {
  const MoreauStepStats& s = moreau.stats();
  r.max_penetration = std::max(r.max_penetration, s.penetration);
  contacts.clear();
  for (const ContactSample& row : moreau.records()) {
    if (row.joint_friction) continue;  // a joint's Coulomb friction: neither contact nor limit
    contacts.push_back(row);
    ContactSample& c = contacts.back();
    c.normal_force = row.impulse(0) / step;
    if (row.joint < 0) {
      c.friction_force = (row.impulse(1) * row.t1 + row.impulse(2) * row.t2) / step;
      c.joint_force = 0.0;
      continue;
    }
    c.point.point.setZero();
    c.point.normal.setZero();
    c.friction_force.setZero();
    c.joint_force = c.upper ? -c.normal_force : c.normal_force;
  }
}

const std::vector<ContactSample>& Simulation::contacts() const {
  return impl_->contacts;
}

bool has_unilateral_rows(const Model& m, bool joint_limits, bool joint_friction) {
  return MoreauStepper::has_unilateral_rows(m, joint_limits, joint_friction);
}

std::vector<ContactSample> contact_forces(const Model& m, const State& initial,
                                          SimulationOptions options, double h) {
  if (!MoreauStepper::has_unilateral_rows(m, options.contact.joint_limits,
                                          options.contact.joint_friction))
    return {};
  if (!(h > 0) || !std::isfinite(h)) throw std::invalid_argument("contact_forces(): h must be > 0");
  options.integrator.method = unilateral_integrator().info.name;
  options.integrator.method_given = true;
  options.integrator.dt = h;
  options.integrator.duration = h;
  options.every = 1;
  options.progress = nullptr;
  if (options.formulation != Formulation::Recursive) options.formulation = Formulation::Auto;
  Simulation sim(m, options);
  if (sim.start(initial)) sim.step();
  if (!sim.result().ok()) throw std::runtime_error(sim.result().message);
  return sim.contacts();
}

}  // namespace appell
