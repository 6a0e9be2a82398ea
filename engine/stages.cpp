// The stages of forward() (engine/stages.hpp): kinematics, applied forces, constraint
// rows, their dense form, reactions.
#include "engine/stages.hpp"

#include <algorithm>

#include "engine/row_terms.hpp"

namespace appell {

void kinematics(const Model& m, Data& d) {
  for (int i = 0; i < m.nbody(); ++i) {
    const Body& b = m.bodies()[i];
    BodyState& s = d.body[i];
    const int iq = m.q_offset(i), iu = m.u_offset(i);
    s.x = d.q.segment<3>(iq);
    s.v = d.u.segment<3>(iu);
    if (b.rigid()) {
      // the rotation of the normalised quaternion: the flow keeps |q| = 1, this keeps
      // round-off from leaking into Q
      const Quat o = Quat(d.q(iq + 3), d.q(iq + 4), d.q(iq + 5), d.q(iq + 6)).normalized();
      s.Q = o.toRotationMatrix();
      s.w = d.u.segment<3>(iu + 3);
      d.J[i] = s.Q * b.inertia * s.Q.transpose();
    } else {
      s.Q.setIdentity();
      s.w.setZero();
      d.J[i].setZero();
    }
  }
}

namespace {

// gravity and the forces not skipped as wrenches, then d.F
void applied_forces(const Model& m, Data& d, const std::vector<char>* skip) {
  for (int i = 0; i < m.nbody(); ++i)
    d.applied[i] = Wrench{m.bodies()[i].mass * m.gravity(), Vec3::Zero()};
  const StateView view = d.view();
  const int nf = static_cast<int>(m.forces().size());
  for (int k = 0; k < nf; ++k)
    if (!skip || !(*skip)[k]) m.forces()[k]->apply(view, d.applied.data());
  for (int i = 0; i < m.nbody(); ++i) {
    const int iu = m.u_offset(i);
    d.F.segment<3>(iu) = d.applied[i].force;
    if (m.bodies()[i].rigid()) {
      const BodyState& s = d.body[i];
      d.F.segment<3>(iu + 3) = d.applied[i].moment - s.w.cross(d.J[i] * s.w);  // [HO21 eq. 7]
    }
  }
}

}  // namespace

void applied_forces(const Model& m, Data& d) {
  applied_forces(m, d, nullptr);
}

void applied_forces(const Model& m, Data& d, const std::vector<char>& skip) {
  applied_forces(m, d, &skip);
}

namespace {

// the terms, b and residuals of constraint c's rows
void rows_of(const Model& m, Data& d, const StateView& view, int c) {
  const Constraint& con = *m.constraints()[c];
  const int r0 = m.row_offset(c), nb = static_cast<int>(con.bodies().size());
  RowTerm* terms = d.terms.data() + m.term_offset(c);
  std::fill(terms, terms + con.rows() * nb, RowTerm{});
  RowSpan span{terms, d.b.data() + r0, d.velocity_residual.data() + r0,
               d.position_residual.data() + r0, nb};
  con.evaluate(view, span);
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
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    const int nb = static_cast<int>(con.bodies().size());
    for (int i = 0; i < con.rows(); ++i) {
      const int row = m.row_offset(c) + i;
      for (int j = 0; j < nb; ++j) {
        const int body = con.bodies()[j];
        const RowTerm& t = d.terms[m.term_offset(c) + i * nb + j];
        const int iu = m.u_offset(body);
        d.A.block<1, 3>(row, iu) += t.lin.transpose();
        if (m.bodies()[body].rigid()) d.A.block<1, 3>(row, iu + 3) += t.ang.transpose();
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
    Wrench w;
    for (int i = 0; i < con.rows(); ++i) {
      const RowTerm& t = d.terms[m.term_offset(c) + i * nb + j];
      const double lam = d.lambda(m.row_offset(c) + i);
      w.force += lam * t.lin;
      if (m.bodies()[con.bodies()[j]].rigid()) w.moment += lam * t.ang;
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

}  // namespace appell
