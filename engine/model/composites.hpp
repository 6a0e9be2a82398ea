// Welded bodies' kinematics (internal to the library): a composite's state and its bodies'.
// The model floor's, since the tree's kinematics (tree.cpp) ends with them; the folds of
// rows and wrenches onto the composites (W1) are the assembly's (engine/assembly/stages.hpp).
#pragma once

#include "appell/data.hpp"

namespace appell {

// Welded bodies (appell/model.hpp "Composites").  Body b of composite k with r = x̄_b − x̄_k
// moves with k:  Q_b = Q_k R_b,  v̄_b = v̄_k + ω_k × r,  ω_b = ω_k,
//                dv̄_b/dt = dv̄_k/dt + dω_k/dt × r + ω_k × (ω_k × r).                 (W0)

// composite k's state and world inertia (body k's when nothing is welded)
inline const BodyState& composite_state(const Model& m, const Data& d, int k) {
  return m.merged() ? d.composite[k] : d.body[k];
}
inline const Mat3& composite_inertia(const Model& m, const Data& d, int k) {
  return m.merged() ? d.Jc[k] : d.J[k];
}
// Reads d.composite.  Writes d.body, d.J of every body (W0).  O(n).
void bodies_from_composites(const Model& m, Data& d);
// Reads d.body (the carriers').  Writes d.composite, d.Jc (W0).  O(n).  No-op unwelded.
void composites_from_bodies(const Model& m, Data& d);

}  // namespace appell
