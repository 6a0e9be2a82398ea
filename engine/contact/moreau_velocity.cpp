// The free velocity of a Moreau–Jean step (engine/contact/moreau.hpp): the recursion's rates
// at the midpoint, or a robot's by the mass matrix's factor (the joint-space route), and
// the implicit midpoint's fixed-point passes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/contact/moreau.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/formulations/recursive/workspace.hpp"

namespace appell {

SolveStatus MoreauStepper::rates(const Eigen::VectorXd& q, const Eigen::VectorXd& u, Data& d,
                                 const Eigen::VectorXd* u_forces) {
  support_.factors.fresh = false;  // a factor of the free velocity's M is not this q's
  SolveStatus st = u_forces ? recursive_rates(m_, d, q, u, *u_forces, o_.stabilization)
                            : recursive_rates(m_, d, q, u, o_.stabilization);
  if (st == SolveStatus::Inconsistent) {  // provisional: confirmed on every row
    solve_recursive(m_, d);
    st = d.diagnostics.status;
  }
  return st;
}

SolveStatus MoreauStepper::free_velocity(const Eigen::VectorXd& qm, const Eigen::VectorXd& u,
                                         double h, Data& d) {
  // the explicit value u + h u̇(q_m, u): the start of midpoint()'s passes, and the answer
  // when nothing turns (the velocity products and ω × J ω vanish)
  if (joint_space_route_ < 0) {
    const auto& joints = m_.tree().joints;
    joint_space_route_ =
        joint_space_applies(m_, d) && m_.tree().nu > 0 &&
        std::any_of(joints.begin(), joints.end(), [](const TreeJoint& t) { return t.parent >= 0; });
  }
  joint_space_step_ = false;
  SolveStatus st = SolveStatus::Ok;
  if (joint_space_route_) {
    support_.factors.fresh = false;
    recursive_terms(m_, d, qm, u);
    // M and its factor, kept for tree_delassus; the articulated passes where M is not definite
    joint_space_step_ = joint_space_factor(m_, d, recursive_workspace(m_, d), dscratch_.joint_space,
                                           support_.factors);
    st = joint_space_step_ ? joint_space_accelerations(d)
                           : recursive_passes(m_, d, o_.stabilization);
  } else {
    st = rates(qm, u, d);
  }
  if (st != SolveStatus::Ok) return st;
  // the applied forces at (q_m, u), which the midpoint passes keep (midpoint())
  kept_applied_ = d.applied;
  kept_F_ = d.F;
  kept_tau_ = joint_space_forces(m_, d);
  udot_ = joint_accelerations(m_, d);
  ustar_ = u + h * udot_;
  double spin = 0.0;
  for (int b = 0; b < m_.nbody(); ++b)
    if (!steady_spin_[b]) spin = std::max(spin, d.body[b].w.norm());
  spinning_ = o_.midpoint_passes > 0 && h * spin > o_.midpoint_spin;
  midpoint_scale_ = (ustar_ - u).lpNorm<Eigen::Infinity>() + 1e-15 * u.lpNorm<Eigen::Infinity>();
  return st;
}

SolveStatus MoreauStepper::joint_space_accelerations(Data& d) {
  // M u̇ = −b at the terms on d, by the kept factor, into the recursion's u̇
  joint_space_bias(m_, d, bias_);
  bias_ = -bias_;
  solve_joint_space(support_.factors, bias_);
  recursive_workspace(m_, d).udot = bias_;
  if (!bias_.allFinite()) {
    d.diagnostics.status = SolveStatus::NotFinite;
    d.diagnostics.message = "accelerations are not finite";
  }
  return d.diagnostics.status;
}

SolveStatus MoreauStepper::midpoint(const Eigen::VectorXd& qm, const Eigen::VectorXd& u, double h,
                                    Data& d, ContactSolverResult& res) {
  // the implicit midpoint u* = u + h u̇(q_m, ū), ū = (u + u⁺)/2, u⁺ = u* + R Jᵀ λ(u*) the
  // velocity after the step (u* itself without rows), by fixed-point passes, each
  // contracting by about h |ω| / 2.  The energy-neutral inertial terms at ū do no work
  // over the step (ω̄ · (ω̄ × J ω̄) = 0), where at u they add ½ h² ‖J⁻¹ ω × J ω‖²_J each
  // step.  ū has the impulses in it: a body at rest on the ground (u = u⁺ = 0) stays at
  // rest, and an impact on a spinning body changes no gyroscopic work.  The applied
  // forces stay at u (explicit, as the scheme always took them: a servo's damping at ū
  // would leave its stiff modes ringing, at u it damps them).  G and R Jᵀ do not change
  // at q_m: a pass costs one recursion and one warm-started solve of the rows.  Nor do the
  // poses and articulated inertias: on a tree without extra rows a pass runs the velocity
  // terms alone (recursive_rates_new_velocity), the rest kept from free_velocity()'s, or
  // rest_accelerations()'s, recursion at q_m.
  const bool rows = !rows_.empty();
  const bool velocity_only = m_.tree().nrows_extra == 0;
  double last = std::numeric_limits<double>::infinity();
  for (int pass = 0; pass < o_.midpoint_passes; ++pass) {
    uplus_ = ustar_;
    if (rows) add_response(R_, support_, lambda_, uplus_);
    ubar_ = 0.5 * (u + uplus_);
    // the recursion at ū with the forces of (q_m, u) put back: free_velocity()'s, which
    // rest_accelerations() may have replaced by those at rest
    d.applied = kept_applied_;
    d.F = kept_F_;
    recursive_workspace(m_, d).tau = kept_tau_;
    SolveStatus st;
    if (joint_space_step_) {  // the poses and M's factor kept, the velocity terms anew
      velocities_BaseToTip(m_, m_.tree(), qm, ubar_, d, recursive_workspace(m_, d));
      st = joint_space_accelerations(d);
    } else {
      st = velocity_only ? recursive_rates_new_velocity(m_, d, qm, ubar_)
                         : recursive_rates_kept_forces(m_, d, qm, ubar_, o_.stabilization);
    }
    if (st == SolveStatus::Inconsistent) {  // provisional: confirmed on every row (rates())
      solve_recursive(m_, d);
      st = d.diagnostics.status;
    }
    if (st != SolveStatus::Ok) return st;
    unext_ = u + h * joint_accelerations(m_, d);
    const double change = (unext_ - ustar_).lpNorm<Eigen::Infinity>();
    ++stats_.midpoint_passes;
    // a pass that does not contract keeps the last value (and its impulses)
    if (!(change < last)) break;
    last = change;
    const bool settled = change <= o_.midpoint_tolerance * midpoint_scale_;
    // settled with rows: the last u* and its impulses, within the tolerance of the next
    if (rows && settled) break;
    ustar_ = unext_;
    if (rows) {
      row_velocities(m_, d, rows_, ustar_, gfree_, &dscratch_);
      const ContactSolverResult again = solve_rows(h, false);
      res.iterations = std::max(res.iterations, again.iterations);
      res.residual = std::max(res.residual, again.residual);
      res.converged = res.converged && again.converged;
    }
    if (settled) break;
  }
  udot_ = (ustar_ - u) / h;
  return SolveStatus::Ok;
}

}  // namespace appell
