// The one walk over a constraint row's terms (internal to engine/).
#pragma once

#include "appell/data.hpp"

namespace appell {

// fn(body, term, rigid) for every body named by row i of constraint c: the term is
// ∂π/∂u of that body (C2); `rigid` says whether its angular part exists.  O(bodies).
template <typename Fn>
inline void for_row_terms(const Model& m, const Data& d, int c, int i, Fn&& fn) {
  const Constraint& con = *m.constraints()[c];
  const int nb = static_cast<int>(con.bodies().size());
  const SpatialForce* terms = d.terms.data() + m.term_offset(c) + i * nb;
  for (int j = 0; j < nb; ++j) {
    const int b = con.bodies()[j];
    fn(b, terms[j], m.bodies()[b].rigid());
  }
}

}  // namespace appell
