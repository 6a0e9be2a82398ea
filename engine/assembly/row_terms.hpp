// The one walk over a constraint row's terms (internal to engine/).
#pragma once

#include "appell/data.hpp"

namespace appell {

// fn(body, term) for every body named by row i of constraint c: the term is ∂π/∂u of that
// body (C2), whole (a particle's moment is zero, constraint_rows).  O(bodies).
template <typename Fn>
inline void for_row_terms(const Model& m, const Data& d, int c, int i, Fn&& fn) {
  const Constraint& con = *m.constraints()[c];
  const int nb = static_cast<int>(con.bodies().size());
  const SpatialForce* terms = d.terms.data() + m.term_offset(c) + i * nb;
  for (int j = 0; j < nb; ++j) {
    fn(con.bodies()[j], terms[j]);
  }
}

}  // namespace appell
