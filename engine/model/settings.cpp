#include "appell/settings.hpp"

namespace appell {

const char* formulation_name(Formulation f) {
  switch (f) {
    case Formulation::Auto:
      return "auto";
    case Formulation::Recursive:
      return "recursive";
    case Formulation::GibbsAppell:
      return "gibbs-appell";
    case Formulation::Pinv:
      return "pinv";
    case Formulation::Sparse:
      return "sparse";
  }
  return "auto";
}

bool parse_formulation(const std::string& name, Formulation& out) {
  for (Formulation f : {Formulation::Auto, Formulation::Recursive, Formulation::GibbsAppell,
                        Formulation::Pinv, Formulation::Sparse}) {
    if (name == formulation_name(f)) {
      out = f;
      return true;
    }
  }
  return false;
}

}  // namespace appell
