#include "appell/settings.hpp"

#include <iterator>

namespace appell {

namespace {

// the one table of formulation names: the scene's "solver.formulation", --formulation,
// Python's formulation= and every message that lists them read it
struct FormulationName {
  Formulation formulation;
  const char* name;
};
constexpr FormulationName kFormulationNames[] = {{Formulation::Auto, "auto"},
                                                 {Formulation::Recursive, "recursive"},
                                                 {Formulation::GibbsAppell, "gibbs-appell"},
                                                 {Formulation::Pinv, "pinv"},
                                                 {Formulation::Sparse, "sparse"}};

}  // namespace

const char* formulation_name(Formulation f) {
  for (const FormulationName& n : kFormulationNames)
    if (n.formulation == f) return n.name;
  return "auto";
}

bool parse_formulation(const std::string& name, Formulation& out) {
  for (const FormulationName& n : kFormulationNames)
    if (name == n.name) {
      out = n.formulation;
      return true;
    }
  return false;
}

std::string formulation_names() {
  std::string out;
  const size_t count = std::size(kFormulationNames);
  for (size_t k = 0; k < count; ++k)
    out += std::string(k == 0 ? "" : k + 1 == count ? " or " : ", ") + kFormulationNames[k].name;
  return out;
}

}  // namespace appell
