// The integrators, one line each (appell/integrators.hpp, engine/run/integrators/integrator.hpp).
// Their order is the order errors and help texts list them in.
#include <stdexcept>

#include "engine/run/integrators/integrator.hpp"

namespace appell {

const Integrator& rk4_integrator();         // rk4.cpp
const Integrator& dopri5_integrator();      // dopri5.cpp
const Integrator& rkf78_integrator();       // rkf78.cpp
const Integrator& rosenbrock_integrator();  // rosenbrock.cpp
const Integrator& moreau_integrator();      // moreau.cpp

namespace {

const std::vector<const Integrator*>& registry() {
  static const std::vector<const Integrator*> kAll = {
      &rk4_integrator(),         //
      &dopri5_integrator(),      //
      &rkf78_integrator(),       //
      &rosenbrock_integrator(),  //
      &moreau_integrator(),      //
  };
  return kAll;
}

}  // namespace

const Integrator* find_integrator_type(const std::string& name) {
  for (const Integrator* i : registry())
    if (name == i->info.name) return i;
  return nullptr;
}

const Integrator& unilateral_integrator() {
  for (const Integrator* i : registry())
    if (i->info.unilateral) return *i;
  throw std::logic_error("no integrator steps unilateral rows");
}

const Integrator& stateless_integrator() {
  return rk4_integrator();
}

const std::vector<IntegratorInfo>& integrators() {
  static const std::vector<IntegratorInfo> kInfo = [] {
    std::vector<IntegratorInfo> out;
    for (const Integrator* i : registry()) out.push_back(i->info);
    return out;
  }();
  return kInfo;
}

const IntegratorInfo* find_integrator(const std::string& name) {
  for (const IntegratorInfo& i : integrators())
    if (name == i.name) return &i;
  return nullptr;
}

std::string integrator_names(bool quasi_velocities) {
  std::vector<std::string> names;
  for (const IntegratorInfo& i : integrators())
    if (!quasi_velocities || i.quasi_velocities) names.push_back(i.name);
  std::string out;
  for (size_t k = 0; k < names.size(); ++k)
    out += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
  return out;
}

}  // namespace appell
