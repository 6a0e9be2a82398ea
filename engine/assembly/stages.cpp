// The stages of forward() (engine/assembly/stages.hpp): kinematics, applied forces, constraint
// rows, their dense form, reactions.
#include "engine/assembly/stages.hpp"

#include <algorithm>

#include "appell/joint.hpp"
#include "engine/assembly/row_terms.hpp"
#include "engine/model/body_coordinates.hpp"
#include "engine/model/tree.hpp"

namespace appell {

void kinematics(const Model& m, Data& d) {
  const bool merged = m.merged();
  for (int i = 0; i < m.ncomposite(); ++i) {
    const Body& b = m.composites()[i];
    BodyState& s = merged ? d.composite[i] : d.body[i];
    Mat3& J = merged ? d.Jc[i] : d.J[i];
    read_body_coordinates(b, d.q.data() + m.q_offset(i), d.u.data() + m.u_offset(i), s);
    J = world_inertia(b, s);
  }
  if (merged) bodies_from_composites(m, d);
}

void drop_particle_moments(const Model& m, const Constraint& con, SpatialForce* terms, int rows) {
  const int nb = static_cast<int>(con.bodies().size());
  for (int j = 0; j < nb; ++j)
    if (!m.bodies()[con.bodies()[j]].rigid())
      for (int i = 0; i < rows; ++i) terms[i * nb + j].moment.setZero();
}

void drop_particle_moments(const Model& m, std::vector<SpatialForce>& applied) {
  for (int b = 0; b < m.nbody(); ++b)
    if (!m.bodies()[b].rigid()) applied[b].moment.setZero();
}

namespace {

// gravity and the forces not skipped as wrenches, then d.F
void applied_forces(const Model& m, Data& d, const std::vector<char>* skip) {
  for (int i = 0; i < m.nbody(); ++i)
    d.applied[i] = SpatialForce{m.bodies()[i].mass * m.gravity(), Vec3::Zero()};
  const StateView view = d.view();
  const int nf = static_cast<int>(m.forces().size());
  for (int k = 0; k < nf; ++k)
    if (!skip || !(*skip)[k]) m.forces()[k]->apply(view, d.applied.data());
  drop_particle_moments(m, d.applied);
  // the gyroscopic moment −ω × J ω of a rigid body or composite [HO21 eq. 7] (a particle's
  // J is zero)
  const auto gyroscopic = [](const BodyState& s, const Mat3& J) {
    return SpatialForce(Vec3::Zero(), -s.w.cross(J * s.w));
  };
  if (!m.merged()) {
    for (int i = 0; i < m.nbody(); ++i)
      m.block(i).set(d.F, d.applied[i] + gyroscopic(d.body[i], d.J[i]));
    return;
  }
  // each body's wrench onto its composite (W1), then the composite's −ω × J ω
  d.F.setZero();
  for (int i = 0; i < m.nbody(); ++i) {
    const int k = m.composite(i);
    m.block(k).add(d.F, d.applied[i].shifted(d.body[i].x - d.composite[k].x));
  }
  for (int k = 0; k < m.ncomposite(); ++k) m.block(k).add(d.F, gyroscopic(d.composite[k], d.Jc[k]));
}

}  // namespace

void applied_forces(const Model& m, Data& d) {
  applied_forces(m, d, nullptr);
}

void applied_forces(const Model& m, Data& d, const std::vector<char>& skip) {
  applied_forces(m, d, &skip);
}

namespace {

// the terms of constraint c folded onto the composites (W1), and its right side
void fold_rows_of(const Model& m, Data& d, bool right_side, int c) {
  const Constraint& con = *m.constraints()[c];
  const int nb = static_cast<int>(con.bodies().size()), r0 = m.row_offset(c);
  const int t0 = m.term_offset(c), nt = con.rows() * nb;
  if (m.internal(c)) {
    std::fill(d.cterms.begin() + t0, d.cterms.begin() + t0 + nt, SpatialForce{});
    if (right_side) d.b.segment(r0, con.rows()).setZero();
    return;
  }
  for (int j = 0; j < nb; ++j) {
    const int b = con.bodies()[j];
    const Weld& w = m.weld(b);
    const BodyState& K = d.composite[w.composite];
    const Vec3 r = d.body[b].x - K.x;
    const Vec3 wwr = K.w.cross(K.w.cross(r));
    for (int i = 0; i < con.rows(); ++i) {
      const SpatialForce& t = d.terms[t0 + i * nb + j];
      SpatialForce& f = d.cterms[t0 + i * nb + j];
      if (w.identity) {
        f = t;
        continue;
      }
      f.force = t.force;
      f.moment = t.moment + r.cross(t.force);
      if (right_side) d.b(r0 + i) -= t.force.dot(wwr);
    }
  }
}

}  // namespace

void fold_rows(const Model& m, Data& d, bool right_side, const std::vector<int>* only) {
  if (!m.merged()) return;
  if (only) {
    for (int c : *only) fold_rows_of(m, d, right_side, c);
  } else {
    for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
      fold_rows_of(m, d, right_side, c);
  }
}

namespace {

// the terms, b and residuals of constraint c's rows
void rows_of(const Model& m, Data& d, const StateView& view, int c) {
  const Constraint& con = *m.constraints()[c];
  const int r0 = m.row_offset(c), nb = static_cast<int>(con.bodies().size());
  SpatialForce* terms = d.terms.data() + m.term_offset(c);
  std::fill(terms, terms + con.rows() * nb, SpatialForce{});
  RowSpan span{terms, d.b.data() + r0, d.velocity_residual.data() + r0,
               d.position_residual.data() + r0, nb};
  con.evaluate(view, span);
  drop_particle_moments(m, con, terms, con.rows());
}

// Baumgarte's b − 2α π − β² g on constraint c's rows
void stabilize_rows_of(const Model& m, Data& d, const Stabilization& st, int c) {
  const int r0 = m.row_offset(c), n = m.constraints()[c]->rows();
  d.b.segment(r0, n) -= 2.0 * st.alpha * d.velocity_residual.segment(r0, n) +
                        st.beta * st.beta * d.position_residual.segment(r0, n);
}

}  // namespace

void constraint_rows(const Model& m, Data& d, const Stabilization& st) {
  const StateView view = d.view();
  const int nc = static_cast<int>(m.constraints().size());
  for (int c = 0; c < nc; ++c) rows_of(m, d, view, c);
  if (st.type == Stabilization::Type::Baumgarte)
    for (int c = 0; c < nc; ++c) stabilize_rows_of(m, d, st, c);
}

void constraint_rows(const Model& m, Data& d, const std::vector<int>& constraints,
                     const Stabilization& st) {
  const StateView view = d.view();
  for (int c : constraints) rows_of(m, d, view, c);
  if (st.type == Stabilization::Type::Baumgarte)
    for (int c : constraints) stabilize_rows_of(m, d, st, c);
}

void dense_rows(const Model& m, Data& d) {
  d.A.setZero(m.nrows(), m.nu());  // sized here, once: only dense formulations need it
  const bool merged = m.merged();
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    if (merged && m.internal(c)) continue;  // zero on the composites
    const Constraint& con = *m.constraints()[c];
    const int nb = static_cast<int>(con.bodies().size());
    for (int j = 0; j < nb; ++j) {
      const int body = con.bodies()[j], k = m.composite(body);
      const BodyBlock block = m.block(k);
      // the terms onto the composite (W1), from d.terms: valid whether or not fold_rows ran
      const Vec3 r = merged ? Vec3(d.body[body].x - d.composite[k].x) : Vec3::Zero();
      for (int i = 0; i < con.rows(); ++i) {
        const SpatialForce& t = d.terms[m.term_offset(c) + i * nb + j];
        block.add(d.A.row(m.row_offset(c) + i), t.shifted(r));
      }
    }
  }
}

namespace {

// Lagrange's prescription [HO21 eq. 15] on constraint c's bodies, summed over its rows
void reactions_of(const Model& m, Data& d, int c) {
  const Constraint& con = *m.constraints()[c];
  const int nb = static_cast<int>(con.bodies().size());
  for (int j = 0; j < nb; ++j) {
    SpatialForce w;
    for (int i = 0; i < con.rows(); ++i) {
      const SpatialForce& t = d.terms[m.term_offset(c) + i * nb + j];
      const double lam = d.lambda(m.row_offset(c) + i);
      w.force += lam * t.force;
      w.moment += lam * t.moment;
    }
    d.reaction[m.slot_offset(c) + j] = w;
  }
}

}  // namespace

void constraint_reactions(const Model& m, Data& d) {
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) reactions_of(m, d, c);
}

void constraint_reactions(const Model& m, Data& d, const std::vector<int>& constraints) {
  for (int c : constraints) reactions_of(m, d, c);
}

void weld_reactions(const Model& m, Data& d) {
  if (!m.merged()) return;
  // what each body needs beyond its applied forces and the reactions of the rows that are
  // not internal: (force, moment about the world origin)
  for (int b = 0; b < m.nbody(); ++b) {
    const Body& body = m.bodies()[b];
    const BodyState& s = d.body[b];
    const SpatialMotion a = body_acceleration(m, d, b);
    SpatialForce& w = d.subtree[b];
    w.force = body.mass * a.linear - d.applied[b].force;
    w.moment = d.J[b] * a.angular + s.w.cross(d.J[b] * s.w) - d.applied[b].moment;
  }
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    if (m.internal(c)) continue;
    const Constraint& con = *m.constraints()[c];
    for (int j = 0; j < static_cast<int>(con.bodies().size()); ++j) {
      const SpatialForce& r = d.reaction[m.slot_offset(c) + j];
      SpatialForce& w = d.subtree[con.bodies()[j]];
      w.force -= r.force;
      w.moment -= r.moment;
    }
  }
  for (int b = 0; b < m.nbody(); ++b) d.subtree[b].moment += d.body[b].x.cross(d.subtree[b].force);
  const TreeModel& tree = m.tree();
  const BodyState rest{};
  for (int i = static_cast<int>(tree.joints.size()) - 1; i >= 0; --i) {
    const TreeJoint& t = tree.joints[i];
    if (t.constraint < 0 || !m.internal(t.constraint)) continue;
    // the joint carries all that the tree child's welded subtree needs (R15)
    const SpatialForce S = d.subtree[t.body];
    d.subtree[t.parent_body].force += S.force;
    d.subtree[t.parent_body].moment += S.moment;
    const Joint& joint = static_cast<const Joint&>(*m.constraints()[t.constraint]);
    const BodyState& T = d.body[t.body];
    const BodyState& O = t.parent_body == kWorld ? rest : d.body[t.parent_body];
    const BodyState& P = t.reversed ? T : O;
    const BodyState& C = t.reversed ? O : T;
    const Vec3 x_B = C.x + C.Q * joint.frames().X_C;  // the child's anchor point
    Vec3 f = S.force;
    Vec3 mo = S.moment - x_B.cross(f);  // about x_B
    if (t.reversed) f = -f, mo = -mo;   // from P onto C
    const int r0 = m.row_offset(t.constraint);
    t.type->multipliers(P, C, joint.frames(), f, mo, d.lambda.data() + r0);
    SpatialForce* r = d.reaction.data() + m.slot_offset(t.constraint);
    r[joint.child_slot()] = SpatialForce{f, mo + (x_B - C.x).cross(f)};
    r[joint.parent_slot()] = SpatialForce{-f, -mo - (x_B - P.x).cross(f)};
  }
}

}  // namespace appell
