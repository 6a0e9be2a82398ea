// Welded bodies' kinematics (engine/model/composites.hpp): (W0) both ways.
#include "engine/model/composites.hpp"

namespace appell {

void bodies_from_composites(const Model& m, Data& d) {
  for (int b = 0; b < m.nbody(); ++b) {
    const Weld& w = m.weld(b);
    const BodyState& K = d.composite[w.composite];
    BodyState& s = d.body[b];
    if (w.identity) {
      s = K;
    } else {
      const Vec3 r = K.Q * w.p;  // (W0)
      s.x = K.x + r;
      s.Q.noalias() = K.Q * w.R;
      s.v = K.v + K.w.cross(r);
      s.w = K.w;
    }
    d.J[b] = world_inertia(m.bodies()[b], s);
  }
}

void composites_from_bodies(const Model& m, Data& d) {
  if (!m.merged()) return;
  for (int k = 0; k < m.ncomposite(); ++k) {
    const int c = m.carrier(k);
    const Weld& w = m.weld(c);
    const BodyState& s = d.body[c];
    BodyState& K = d.composite[k];
    K.Q.noalias() = s.Q * w.R.transpose();
    const Vec3 r = K.Q * w.p;  // x̄_c − x̄_k
    K.x = s.x - r;
    K.w = s.w;
    K.v = s.v - s.w.cross(r);
    d.Jc[k] = world_inertia(m.composites()[k], K);
  }
}

}  // namespace appell
