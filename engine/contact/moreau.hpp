// Moreau–Jean time stepping of the recursive formulation's joint coordinates with
// unilateral rows: contacts (Signorini–Coulomb with Newton restitution) and joint limits
// (internal to engine/; Simulation's `moreau` method).
//
// One step of size h from (q, u) [Moreau 1988; Jean 1999, the midpoint "θ = 1/2" form]:
//   (where the last step's rows do not cover the first half: the rows at q it could close,
//    u_n + g/(h/2) ≥ 0, act on u first; first_half())
//   q_m = q + h/2 N(q) u
//   u*  = u + h u̇(q_m, ū), ū = (u + u*)/2   the free velocity, bilateral rows held
//                                        (recursive_rates), the velocity terms at the
//                                        implicit midpoint [Hairer, Lubich & Wanner,
//                                        Geometric Numerical Integration, §IV.2, Thm 2.1: it keeps
//                                        quadratic invariants, here ½ ωᵀJω and |Jω|]
//   the index set: contact points and limits with gap(q_m) ≤ margin
//   G = J R Jᵀ, R Jᵀ                      (engine/contact/delassus.hpp, no M⁻¹)
//   λ: the exact Signorini–Coulomb law at u⁺ = u* + R Jᵀ λ (engine/contact/ncp.hpp),
//      warm-started by body pair and feature, the normal law on
//        u_n⁺ + e min(u_n⁻, 0)   for a closed row (g ≤ closed_gap): Newton's impact law
//        u_n⁺ + g / h            for an open one within the margin [a "predictive" row]: the
//                                gap after the step, g + h/2 u_n⁺, and after the next step's
//                                first half, g + h u_n⁺, stay ≥ 0
//      An open row without restitution (e = 0, a limit) that pushes closes within the step:
//      an impact, which it lands exactly (no penetration, so nothing for the projection to
//      put back).
//   located impacts (rows with e > 0, solve_rows): a row's free motion over the step is
//      g(t) = g₀ + v₀ t + ½ a t², g₀ = g(q_m) − h/2 v₀, a = (u*_n − v₀)/h; at its first
//      root τ (τ = 0 when closed and approaching at the start) it meets at v_τ = v₀ + a τ,
//      and Newton's law at that instant with free flight after it is
//        u_n⁺ ≥ −e v_τ + a (h − τ)                                             (L1)
//      (where L1's right side is ≤ 0 the row would come back within the step: it lands,
//      by the law above).  In L1 a is the row's acceleration at rest (the free one's
//      gyroscopic and centripetal parts only locate τ), so that an elastic impact keeps
//      the energy; one τ per island and stage (its earliest), so that the laws stay those
//      of one rigid motion; Newton's law at the start's velocity, e u_n⁻, where resting
//      contacts share the island.  An open row the free motion does not close is left free
//      (λ = 0); if another impulse of the step then drives it closed, a further stage from
//      the last one's outcome puts L1 on it at the instant and approach velocity it then
//      has (a cradle with gaps: each pair in turn), the rows already met keeping
//      u_n⁺ ≥ min(u_n, 0).  Each stage's impulses are ≥ 0 and solved apart, at most
//      2 (rows) + 2 stages.  Where the rows are closed at once (a touching cradle) the one
//      solve is Moreau's simultaneous law.
//   q⁺  = q_m + h/2 N(q_m) u⁺ + N(q_m) Σ_i (h/2 − τ_i) R J_iᵀ λ_i
//      (an impulse at τ moves the end position by (h − τ) Δu where the midpoint form moves
//      it by h/2 Δu; over the located impulses, and the impulses of rows pushing with them
//      at their island's earliest τ; a ball on a plane ends exactly on its ballistic path;
//      the located impulses scaled so that this turn of the bodies changes no kinetic
//      energy, keep_kinetic_energy)
// then penetration removed by a position projection that leaves u⁺ alone [Cline & Pai
// 2003, post-stabilization]: δ = R J_nᵀ μ, 0 ≤ μ ⟂ g + J_n δ ≥ 0 (the displacement of least
// mass-metric norm that closes the gaps), q⁺ ← q⁺ ⊕ δ, repeated while a gap is below
// −projection_tolerance (at most `projection_passes` times).  The velocity is never touched
// by the projection, so it adds no kinetic energy.
// At an impact on a spinning body, ū includes the impulses (u* and λ iterated together).
// A contact deeper than half its thinner shape's half-thickness, or a body turning so fast
// that the rows' straight-line prediction misses a thin shape, stops the step
// (Inconsistent, stats().too_deep) instead of letting one body pass through another.
// First order in h for smooth motion (Moreau's scheme) and for inelastic impacts; exact for
// motion at constant acceleration (a box sliding or resting on a ramp) and for a ball's
// bounces between flights at constant acceleration.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "appell/contact.hpp"
#include "appell/settings.hpp"
#include "engine/contact/delassus.hpp"
#include "engine/contact/ncp.hpp"

namespace appell {

struct MoreauOptions {
  ContactSolverOptions solver;
  double closed_gap = 1e-7;  // gap (m, or rad for limits) below which a row is closed
  // open rows closer than this (m, or rad) enter the step predictively; at least as far as
  // anything can close in the step (the bodies' speeds; a joint's rate)
  double margin = 1e-3;
  double projection_tolerance = 1e-10;  // the penetration the projection leaves at most
  int projection_passes = 4;
  // the free velocity's implicit midpoint (moreau_velocity.cpp, free_velocity): at most this many
  // fixed-point passes, stopped when a pass changes u* by less than `midpoint_tolerance`
  // times the step's change of u; skipped when no body turns by more than `midpoint_spin`
  // (rad) in the step: at h |ω| ≤ ε the explicit inertial terms add ½ h² ‖J⁻¹(ω × J ω)‖²_J
  // ≤ ε² of the body's rotational energy a step (ε = 1e-6: 1e-12, 1e-8 over ten thousand
  // steps), and change u⁺ by ~ε of the step's own change; a pass costs a third of a
  // resting step (a body at rest or sliding turns by the solver's noise, ~1e-13 rad a
  // step; a robot standing under servos, by ~1e-9)
  int midpoint_passes = 12;
  double midpoint_tolerance = 1e-10;
  double midpoint_spin = 1e-6;
  bool joint_limits = true;     // enforce the joints' JointProperties limits
  bool joint_friction = true;   // the joints' Coulomb friction (JointProperties friction)
  Stabilization stabilization;  // of the bilateral rows in the free velocity
};

struct MoreauStepStats {
  int rows = 0, iterations = 0;
  double residual = 0.0;
  bool converged = true;
  int impacts = 0;
  double penetration = 0.0;  // the largest penetration left after the projection
  int midpoint_passes = 0;   // fixed-point passes of the free velocity's midpoint
  // impulses applied at the step's start to rows closing within its first half (a fast
  // body the last step's rows did not cover); they are not in records()
  bool early_impulses = false;
  // the step's first half was looked at for such rows (its start was not the last step's end)
  bool first_half = false;
  // the step failed on a penetration deeper than its shapes allow (message in diagnostics)
  bool too_deep = false;
};

class MoreauStepper {
 public:
  // a row's identity from step to step: shapes, bodies, joint, side and friction; the
  // points of one pair of shapes are told apart by where they lie (match_previous)
  using Key = std::tuple<int, int, int, int, int>;
  static Key key_of(const ContactSample& r);
  // detector: null when the model has no shapes (joint limits only)
  MoreauStepper(const Model& m, std::unique_ptr<ContactDetector> detector,
                const MoreauOptions& o = {});
  // One step from (t, q, u) to t + h.  Returns Ok, or the recursion's failure status
  // (message in d.diagnostics).  d describes the end state's kinematics afterwards.
  SolveStatus step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& u, Data& d);

  const std::vector<ContactSample>& records() const { return records_; }
  const MoreauStepStats& stats() const { return stats_; }
  const MoreauOptions& options() const { return o_; }
  // whether the model has unilateral rows (shapes, or enforced joint limits)
  // half a shape's smallest extent (a plane: infinite)
  static double thickness(const Shape& s);
  static bool has_unilateral_rows(const Model& m, bool joint_limits = true,
                                  bool joint_friction = true);

 private:
  struct Limit {
    int tree_joint, constraint;
    double lower, upper;  // on the tree coordinate
  };
  // the closed rows at q (d's kinematics at q): records, rows, blocks, gaps
  void gather(const Eigen::VectorXd& q, Data& d, bool normal_only, double margin,
              std::vector<ContactSample>& out);
  // gather()'s second half: the rows of the detector's points_ and of the joint limits
  void rows_of_points(const Eigen::VectorXd& q, Data& d, bool normal_only, double margin,
                      std::vector<ContactSample>& out);
  // the deepest overlap at q among the detector's points_ and the joint limits, and
  // whether a point is deeper than too_deep() allows
  double penetration(const Eigen::VectorXd& q, bool& deep) const;
  void project(Eigen::VectorXd& q, const Eigen::VectorXd& u, double t, Data& d);
  // the step's contacts into records_ (impulses, velocities v after the step, states) and
  // the next step's warm starts
  void keep_records(const Eigen::VectorXd& v);
  // the end position q from the midpoint qm at the new velocity u, with the located
  // impulses' position correction
  void second_half(const Eigen::VectorXd& qm, const Eigen::VectorXd& u, double h,
                   Eigen::VectorXd& q);
  // the recursion's rates at (q, u) into d, bilateral rows held
  // (the applied forces at *u_forces when given)
  SolveStatus rates(const Eigen::VectorXd& q, const Eigen::VectorXd& u, Data& d,
                    const Eigen::VectorXd* u_forces = nullptr);
  // the explicit free velocity ustar_ (and udot_) of the step of size h from (q_m, u);
  // spinning_ when a body turns
  SolveStatus free_velocity(const Eigen::VectorXd& qm, const Eigen::VectorXd& u, double h, Data& d);
  // the joint-space route (joint_space_route_): u̇ = −M⁻¹ b at the terms on d (pass 1
  // and the forces, or new rates' velocities), by the factor of M kept in support_.factors
  SolveStatus joint_space_accelerations(Data& d);
  // ustar_ (and lambda_, with rows) at the implicit midpoint; res takes the solves' worst
  SolveStatus midpoint(const Eigen::VectorXd& qm, const Eigen::VectorXd& u, double h, Data& d,
                       ContactSolverResult& res);
  // the impulses lambda_ at the free velocity's row velocities gfree_ (and v0_): the normal
  // law's shifts, the solve, the located impacts and their later stages (lcorr_: the
  // position correction's impulses); warm: start from the last step's impulses (else from
  // lambda_)
  ContactSolverResult solve_rows(double h, bool warm);
  // solve_rows' first stage for block k: its law (law_, taub_), its shift in g_, its warm
  // start in lambda_
  void first_stage_law(int k, double h, bool warm);
  // solve_rows' later stages, on the rows the earlier stages' impulses close (res takes
  // their solves' worst; moreau_stages.cpp)
  void later_stages(double h, ContactSolverResult& res);
  // block k's law in a later stage, from island i's last impulses at tisl_[i]
  void later_stage_law(int k, size_t i, double h);
  // a row's law in the stage being solved: as before (Plain), Newton's at its instant of
  // contact (Impact), or left free (Free: an open row the stage's motion does not close)
  enum class Law : char { Plain, Impact, Free };
  // block k's instant of contact τ ≥ T (T when closed at T or not closing) and its
  // approach velocity v there, on its motion from the last stage's outcome
  void locate(size_t k, double h, double T, double& tau, double& v) const;
  // whether an open block k the stage's motion does not close can be left to the next step
  bool leave_free(size_t k, double h) const;
  // scales the located impulses so that the position correction changes no kinetic energy
  void keep_kinetic_energy(const Eigen::VectorXd& qm, double h, Data& d);
  // arest_: the rows' accelerations at q_m and rest (where a contact has restitution)
  SolveStatus rest_accelerations(const Eigen::VectorXd& qm, Data& d);
  // Newton's law at τ on block k into gs_ (and when_, law_, its record's impact)
  void impact_law(size_t k, double h, double tau, int stage);
  // impact_law on the stage's Impact blocks (taub_: their instants), one instant per island
  void impact_laws(double h, int stage);
  // the instants of the stage's impulses mu_ (when_)
  void stage_times(int stage);
  // the stage's impulses mu_ into the end-of-step row velocities yend_ and gaps gend_, the
  // position correction lcorr_ and the islands' times tisl_
  void account(double h);
  // whether the last step's rows cover this step's first half from (q, u)
  bool covered(const Eigen::VectorXd& q, const Eigen::VectorXd& u, double h) const;
  // impulses at the step's start on the rows the first half would close (u changes)
  SolveStatus first_half(double t, const Eigen::VectorXd& q, Eigen::VectorXd& u, double h, Data& d);
  // whether a contact among `rows` is deeper than its shapes allow; then d.diagnostics
  // says so (status Inconsistent)
  bool too_deep(const std::vector<ContactSample>& rows, const char* when, Data& d);
  // the depth a point of two shapes may reach before too_deep() reports it (half the
  // thinner shape's half-thickness); infinite on a point of no two of the model's shapes
  double deepest_allowed(const ContactPoint& p) const;
  // whether a body of the step's contact rows turns so fast that the rows' straight-line
  // prediction misses by more than the pair's thinner shape; then d.diagnostics says so
  bool too_fast(Data& d, double h);
  // the fastest closing speed of two bodies at d's state
  double closing_speed(const Data& d) const;
  // the distance within which a row enters the step of size h from d's state
  double step_margin(const Data& d, double h);
  // orders the gathered rows by island (bodies that no joint or bilateral row couples
  // apart), so that G is block diagonal: first_, islands_
  void order_islands(std::vector<ContactSample>& out);
  // solves each island's problem (all, or those with a flag set); returns the worst
  // blocks_[k].fixed for the rows the bodies cannot move (tree_delassus's diag0_ against G)
  void mark_fixed();
  // the first fixed row whose law the step's velocities v violate, −1 when none
  int violated_fixed_row(const Eigen::VectorXd& v) const;
  std::string fixed_row_message(const ContactSample& r, double t) const;
  ContactSolverResult solve_islands(const std::vector<char>* only = nullptr);
  // aux: the projection's and the first half's problems (workspaces of their own)
  ContactSolverResult solve_islands(const Eigen::VectorXd& g, Eigen::VectorXd& lambda,
                                    const ContactSolverOptions& so,
                                    const std::vector<char>* only = nullptr, bool aux = false);
  struct IslandSolve {
    ContactWorkspace solver;
    Eigen::VectorXd g, lambda;
    std::vector<ContactBlock> blocks;
  };
  std::vector<std::unique_ptr<IslandSolve>> solve_main_, solve_aux_;
  struct Island {
    int row0, rows, block0, blocks;
  };

  const Model& m_;
  std::unique_ptr<ContactDetector> det_;
  MoreauOptions o_;
  std::vector<Limit> limits_;
  struct Friction {
    int tree_joint, constraint;
    double force;  // F: |τ| ≤ F
  };
  std::vector<Friction> frictions_;
  std::vector<double> reach_;  // per body: its shapes' farthest point from its origin
  std::vector<int> root_;      // per tree joint: the top joint of its subtree
  std::vector<int> first_;     // per row: its island's first row
  std::vector<Island> islands_;
  ResponseSupport support_;
  std::vector<IslandMatrix> Gis_;  // G by island (the gathered rows' order)
  double h_ = 0.0;                 // the step being taken
  std::vector<ContactPoint> points_;
  std::vector<ContactSample> records_, scratch_;
  std::vector<TwistRow> rows_;
  std::vector<ContactBlock> blocks_;
  // the last step's rows: impulse, whether it pushed (in contact, not meeting) and, for a
  // contact point, where it lay in its body's frame; sorted by key, rebuilt each step in
  // the second vector and swapped (no allocation once their storage holds a step's rows)
  struct Previous {
    Key key;
    Eigen::Vector3d impulse;
    Vec3 at;
    bool pushed = false;
  };
  std::vector<Previous> warm_, warm_next_;
  std::vector<Vec3> at_;       // per block of the step: its point in its body's frame
  std::vector<int> previous_;  // per block: its row in warm_ (−1: new)
  void match_previous(const Data& d);
  // block k pushed at the last step: in contact, not meeting
  bool landed(int k) const { return previous_[k] >= 0 && warm_[previous_[k]].pushed; }
  // the step's scratch: the midpoint, the rows' velocities after it, the gathered gaps,
  // order_islands()'s permutation and reordered copies
  Eigen::VectorXd qm_, v_, gaps_scratch_;
  Eigen::VectorXd half_g_, half_mu_, delta_;  // first_half()'s and project()'s
  DelassusScratch dscratch_;
  std::vector<double> gap_list_;
  std::vector<int> union_parent_, block_key_, block_island_, block_order_;
  std::vector<ContactBlock> blocks_scratch_;
  std::vector<TwistRow> rows_scratch_;
  std::vector<ContactSample> records_scratch_;
  Eigen::MatrixXd G_, R_;
  Eigen::VectorXd lambda_, g_, gfree_, v0_, qdot_, udot_, ustar_, gaps_;
  Eigen::VectorXd ubar_, unext_, uplus_;  // the midpoint's passes
  Eigen::VectorXd last_q_, last_u_;       // the state the last step ended at
  double end_closing_ = 0.0;              // the closing speed there
  double margin_ = 0.0;                   // the last step's margin
  // the applied forces of the free velocity's evaluation at (q_m, u), for the midpoint passes
  std::vector<SpatialForce> kept_applied_;
  Eigen::VectorXd kept_F_, kept_tau_;
  std::vector<char> steady_spin_;  // per body: its inertial terms vanish (constructor)
  bool spinning_ = false;          // this step's velocity is the implicit midpoint
  // a small tree with joints below its roots (a robot; not loose bodies alone): the free
  // velocity by the mass matrix's factor, which G needs anyway, not by the articulated
  // passes (joint_space_applies; decided at the first step); joint_space_step_: this
  // step's free velocity went that way
  int joint_space_route_ = -1;
  bool joint_space_step_ = false;
  Eigen::VectorXd bias_;         // the joint-space route's b, then u̇
  double midpoint_scale_ = 0.0;  // ‖u* − u‖ of the explicit value: the passes' yardstick
  Eigen::VectorXd diag0_;        // the rows' responses on the tree alone (tree_delassus)
  // the stages of solve_rows (per row): free acceleration, end-of-step velocity and gap,
  // the instant of the stage's impulse (−1: the midpoint), the position correction's
  // impulses, the stage's shift and impulses; per block its law and its rank-policy flag;
  // per island the time of its last impulses and whether the stage solves it
  Eigen::VectorXd acc_, yend_, gend_, when_, lcorr_, gs_, mu_, w_, ucorr_, gmu_;
  Eigen::VectorXd arest_, uzero_;  // the rows' accelerations at rest; u = 0
  Eigen::VectorXd lloc_, qend_;    // the located impulses (of lcorr_); an end position
  std::vector<Law> law_;
  std::vector<double> taub_;  // per block: its instant of contact in the stage
  std::vector<char> fixed0_, resolve_;
  std::vector<double> tisl_;
  MoreauStepStats stats_;
};

}  // namespace appell
