// The formulations that work in maximal coordinates: every one of them must agree.
#pragma once

#include <vector>

#include "appell/model.hpp"

namespace appell::testing {

inline std::vector<Formulation> maximal_formulations() {
  return {Formulation::Pinv, Formulation::GibbsAppell, Formulation::Sparse};
}

}  // namespace appell::testing
