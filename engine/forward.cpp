#include "engine/forward.hpp"

#include <cmath>
#include <stdexcept>

#include "constraints/joint.hpp"
#include "engine/gibbs_appell.hpp"
#include "engine/pinv.hpp"
#include "engine/recursive.hpp"
#include "engine/recursive/workspace.hpp"
#include "engine/sparse.hpp"
#include "engine/tree.hpp"

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

void applied_forces(const Model& m, Data& d) {
  for (int i = 0; i < m.nbody(); ++i)
    d.applied[i] = Wrench{m.bodies()[i].mass * m.gravity(), Vec3::Zero()};
  const StateView view = d.view();
  for (const ForcePtr& f : m.forces()) f->apply(view, d.applied.data());
  for (int i = 0; i < m.nbody(); ++i) {
    const int iu = m.u_offset(i);
    d.F.segment<3>(iu) = d.applied[i].force;
    if (m.bodies()[i].rigid()) {
      const BodyState& s = d.body[i];
      d.F.segment<3>(iu + 3) = d.applied[i].moment - s.w.cross(d.J[i] * s.w);  // [HO21 eq. 7]
    }
  }
}

void constraint_rows(const Model& m, Data& d, const Stabilization& st) {
  const StateView view = d.view();
  for (RowTerm& t : d.terms) t = RowTerm{};
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    const int r0 = m.row_offset(c);
    RowSpan span{d.terms.data() + m.term_offset(c), d.b.data() + r0,
                 d.velocity_residual.data() + r0, d.position_residual.data() + r0,
                 static_cast<int>(con.bodies().size())};
    con.evaluate(view, span);
  }
  if (st.type == Stabilization::Type::Baumgarte && m.nrows() > 0)
    d.b -= 2.0 * st.alpha * d.velocity_residual + st.beta * st.beta * d.position_residual;
}

void dense_rows(const Model& m, Data& d) {
  d.A.setZero();
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

void constraint_reactions(const Model& m, Data& d) {
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
    const Constraint& con = *m.constraints()[c];
    const int nb = static_cast<int>(con.bodies().size());
    for (int j = 0; j < nb; ++j) {
      Wrench w;  // Lagrange's prescription [HO21 eq. 15], summed over the rows
      for (int i = 0; i < con.rows(); ++i) {
        const RowTerm& t = d.terms[m.term_offset(c) + i * nb + j];
        const double lam = d.lambda(m.row_offset(c) + i);
        w.force += lam * t.lin;
        if (m.bodies()[con.bodies()[j]].rigid()) w.moment += lam * t.ang;
      }
      d.reaction[m.slot_offset(c) + j] = w;
    }
  }
}

void multiply_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.nbody(); ++i) {
    const int o = m.u_offset(i);
    y.segment<3>(o) = m.bodies()[i].mass * x.segment<3>(o);
    if (m.bodies()[i].rigid()) y.segment<3>(o + 3) = d.J[i] * x.segment<3>(o + 3);
  }
}

void solve_mass(const Model& m, const Data& d, const Eigen::VectorXd& x, Eigen::VectorXd& y) {
  y.resize(m.nu());
  for (int i = 0; i < m.nbody(); ++i) {
    const int o = m.u_offset(i);
    y.segment<3>(o) = x.segment<3>(o) / m.bodies()[i].mass;
    if (m.bodies()[i].rigid()) y.segment<3>(o + 3) = d.J[i].ldlt().solve(Vec3(x.segment<3>(o + 3)));
  }
}

Formulation resolve_formulation(const Model& m, Formulation f) {
  if (f != Formulation::Auto) return f;
  // recursive when the scene has tree joints (SPEC §1)
  for (const ConstraintPtr& c : m.constraints())
    if (dynamic_cast<const Joint*>(c.get())) return Formulation::Recursive;
  // otherwise the sparse {1}-inverse form (redundant rows included, sparse.hpp)
  return Formulation::Sparse;
}

namespace {

bool not_finite(Data& d, const char* what) {
  d.diagnostics.status = SolveStatus::NotFinite;
  d.diagnostics.message = what;
  return true;
}

// the solve and what follows it, once kinematics, forces and rows are in d
SolveStatus solve_and_react(const Model& m, Data& d, Formulation f) {
  switch (f) {
    case Formulation::GibbsAppell:
      solve_gibbs_appell(m, d);
      break;
    case Formulation::Pinv:
      solve_pinv(m, d);
      break;
    case Formulation::Sparse:
      solve_sparse(m, d);
      break;
    case Formulation::Recursive:
      solve_recursive(m, d);
      break;
    case Formulation::Auto:
      break;  // resolved by the callers
  }
  constraint_reactions(m, d);
  if (d.diagnostics.status == SolveStatus::Ok && (!d.udot.allFinite() || !d.lambda.allFinite()))
    not_finite(d, "accelerations are not finite");
  return d.diagnostics.status;
}

}  // namespace

SolveStatus forward(const Model& m, Data& d, Formulation f) {
  return forward(m, d, SolverOptions{f, Stabilization{}});
}

SolveStatus forward(const Model& m, Data& d, const SolverOptions& o) {
  check(m, d, "forward()");
  const Formulation f = resolve_formulation(m, o.formulation);
  d.diagnostics = Diagnostics{};
  if (!d.q.allFinite() || !d.u.allFinite() || !std::isfinite(d.t)) {
    not_finite(d, "state is not finite");
    return d.diagnostics.status;
  }
  kinematics(m, d);
  if (f == Formulation::Recursive) {
    // the recursion runs on joint coordinates: read them off this maximal state, O(n)
    // (simulations call forward_tree on their joint state and skip this)
    RecursiveWorkspace& ws = recursive_workspace(m, d);
    tree_from_bodies(m.tree(), d.body, ws.q, ws.u);
    return forward_tree(m, d, ws.q, ws.u, o.stabilization);
  }
  applied_forces(m, d);
  constraint_rows(m, d, o.stabilization);
  return solve_and_react(m, d, f);
}

SolveStatus forward(const Model& m, Data& d, const State& s, const SolverOptions& o) {
  set_state(m, d, s);
  if (resolve_formulation(m, o.formulation) == Formulation::Recursive)
    return forward_tree(m, d, s.q, s.u, o.stabilization);
  return forward(m, d, o);
}

SolveStatus forward_tree(const Model& m, Data& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                         const Eigen::Ref<const Eigen::VectorXd>& u, const Stabilization& st) {
  check(m, d, "forward_tree()");
  if (q.size() != m.tree().nq || u.size() != m.tree().nu)
    throw std::invalid_argument("forward_tree(): q has " + std::to_string(q.size()) +
                                " entries and u " + std::to_string(u.size()) +
                                ", expected the tree's nq = " + std::to_string(m.tree().nq) +
                                " and nu = " + std::to_string(m.tree().nu));
  d.diagnostics = Diagnostics{};
  if (!q.allFinite() || !u.allFinite() || !std::isfinite(d.t)) {
    not_finite(d, "state is not finite");
    return d.diagnostics.status;
  }
  recursive_kinematics(m, d, q, u);  // body states once, from q and u
  applied_forces(m, d);
  constraint_rows(m, d, st);
  return solve_and_react(m, d, Formulation::Recursive);
}

double kinetic_energy(const Model& m, const Data& d) {
  double T = 0.0;
  for (int i = 0; i < m.nbody(); ++i) {
    const BodyState& s = d.body[i];
    T += 0.5 * m.bodies()[i].mass * s.v.squaredNorm();
    if (m.bodies()[i].rigid()) T += 0.5 * s.w.dot(d.J[i] * s.w);
  }
  return T;
}

double potential_energy(const Model& m, const Data& d) {
  double V = 0.0;
  for (int i = 0; i < m.nbody(); ++i) V -= m.bodies()[i].mass * m.gravity().dot(d.body[i].x);
  const StateView view = d.view();
  for (const ForcePtr& f : m.forces()) V += f->potential(view);
  return V;
}

double gaussian(const Model& m, const Data& d, const Eigen::VectorXd& udot) {
  Eigen::VectorXd a, da, Mda;
  solve_mass(m, d, d.F, a);
  da = udot - a;
  multiply_mass(m, d, da, Mda);
  return 0.5 * da.dot(Mda);  // [UK96 eq. 9] (with the ½ of [UK98 eq. 6])
}

}  // namespace appell
