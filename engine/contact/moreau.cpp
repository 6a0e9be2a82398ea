// Moreau–Jean time stepping with contacts and joint limits (engine/contact/moreau.hpp).
#include "engine/contact/moreau.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <sstream>

#include "appell/forward.hpp"
#include "appell/joint.hpp"
#include "engine/formulations/rank_policy.hpp"
#include "engine/formulations/recursive.hpp"
#include "engine/formulations/recursive/workspace.hpp"
#include "engine/model/tree.hpp"

namespace appell {

namespace {

// a tangent basis of the plane normal to n, a fixed function of n (warm starts keep it)
void tangents(const Vec3& n, Vec3& t1, Vec3& t2) {
  const Vec3 e = std::abs(n.x()) < 0.6 ? Vec3::UnitX() : Vec3::UnitY();
  t1 = n.cross(e).normalized();
  t2 = n.cross(t1);
}

MoreauStepper::Key key_of(const ContactRecord& r) {
  return {r.point.shape_a, r.point.shape_b, r.point.body_a, r.point.body_b,
          r.joint * 4 + r.upper + 2 * r.friction};
}

}  // namespace

// half the shape's smallest extent: how deep another shape can go into it before its
// nearest way out is through the far side (a plane: no far side)
double MoreauStepper::thickness(const Shape& s) {
  return shape_thickness(s);
}

namespace {

TwistRow negated(TwistRow r) {
  for (auto& t : r.term) {
    t.force = -t.force;
    t.moment = -t.moment;
  }
  return r;
}

}  // namespace

bool MoreauStepper::has_unilateral_rows(const Model& m, bool joint_limits, bool joint_friction) {
  if (make_contact_detector(m)) return true;
  if (!joint_limits && !joint_friction) return false;
  for (const TreeJoint& t : m.tree().joints) {
    if (t.constraint < 0 || t.nq != 1 || t.nu != 1) continue;
    const auto* j = dynamic_cast<const Joint*>(m.constraints()[t.constraint].get());
    if (!j) continue;
    if (joint_limits && j->properties().limited) return true;
    if (joint_friction && j->properties().friction > 0) return true;
  }
  return false;
}

MoreauStepper::MoreauStepper(const Model& m, std::unique_ptr<ContactDetector> detector,
                             const MoreauOptions& o)
    : m_(m), det_(std::move(detector)), o_(o) {
  const TreeModel& tr = m.tree();
  root_.resize(tr.joints.size());
  for (size_t i = 0; i < tr.joints.size(); ++i)
    root_[i] = tr.joints[i].parent < 0 ? static_cast<int>(i) : root_[tr.joints[i].parent];
  reach_.assign(m.nbody(), 0.0);
  for (const Shape& sh : m.shapes()) {
    if (sh.body < 0) continue;
    reach_[sh.body] = std::max(reach_[sh.body], sh.position.norm() + shape_reach(sh));
  }
  const TreeModel& tree = m.tree();
  // bodies whose inertial terms vanish whatever they turn at: free on their own (a root
  // joint at the centre, nothing hanging from them) with an isotropic inertia, ω × J ω = 0
  // and no joint velocity products, so that the free velocity's midpoint passes would give
  // its explicit value again (a rolling ball)
  steady_spin_.assign(m.nbody(), 0);
  for (size_t i = 0; i < tree.joints.size(); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.parent >= 0 || t.type != &free_joint() || !tree.children[i].empty() || t.body < 0 ||
        t.body >= m.nbody() || t.armature != 0.0)
      continue;
    const Body& b = m.bodies()[t.body];
    const double mean = b.inertia.trace() / 3.0;
    steady_spin_[t.body] = b.rigid() && t.frames.X_C.squaredNorm() == 0.0 &&
                           (b.inertia - mean * Mat3::Identity()).norm() <= 1e-12 * mean;
  }
  for (int i = 0; i < static_cast<int>(tree.joints.size()); ++i) {
    const TreeJoint& t = tree.joints[i];
    if (t.constraint < 0 || t.nq != 1 || t.nu != 1) continue;
    const auto* j = dynamic_cast<const Joint*>(m.constraints()[t.constraint].get());
    if (!j) continue;
    const JointProperties& p = j->properties();
    if (o_.joint_friction && p.friction > 0) frictions_.push_back({i, t.constraint, p.friction});
    if (!o_.joint_limits || !p.limited) continue;
    // a reversed joint runs its coordinate backwards on the tree
    if (t.reversed)
      limits_.push_back({i, t.constraint, -p.upper, -p.lower});
    else
      limits_.push_back({i, t.constraint, p.lower, p.upper});
  }
}

void MoreauStepper::gather(const Eigen::VectorXd& q, Data& d, bool normal_only, double margin,
                           std::vector<ContactRecord>& out) {
  points_.clear();
  if (det_) det_->detect(m_, d, margin, points_);
  rows_of_points(q, d, normal_only, margin, out);
}

void MoreauStepper::rows_of_points(const Eigen::VectorXd& q, Data& d, bool normal_only,
                                   double margin, std::vector<ContactRecord>& out) {
  out.clear();
  rows_.clear();
  blocks_.clear();
  std::vector<double>& gaps = gap_list_;
  gaps.clear();
  auto add_block = [&](ContactBlock::Kind kind, double mu) {
    ContactBlock b;
    b.kind = kind;
    b.mu = mu;
    b.row = static_cast<int>(rows_.size());
    blocks_.push_back(b);
  };
  for (const ContactPoint& p : points_) {
    if (!(p.gap <= margin)) continue;
    ContactRecord r;
    r.point = p;
    tangents(p.normal, r.t1, r.t2);
    add_block(normal_only ? ContactBlock::Kind::Unilateral : ContactBlock::Kind::Contact,
              p.friction);
    rows_.push_back(point_row(d, p.body_a, p.body_b, p.point, p.normal));
    if (!normal_only) {
      rows_.push_back(point_row(d, p.body_a, p.body_b, p.point, r.t1));
      rows_.push_back(point_row(d, p.body_a, p.body_b, p.point, r.t2));
    }
    gaps.push_back(p.gap);
    out.push_back(r);
  }
  const TreeModel& tree = m_.tree();
  for (const Limit& l : limits_) {
    const TreeJoint& tj = tree.joints[l.tree_joint];
    const double x = q(tj.q_offset);
    // what the coordinate can travel in one step
    const double reach =
        margin > o_.closed_gap && udot_.size() == tree.nu && ustar_.size() == tree.nu
            ? std::max(
                  margin,
                  2.0 * h_ * (std::abs(ustar_(tj.u_offset)) + h_ * std::abs(udot_(tj.u_offset))))
            : margin;
    for (int side = 0; side < 2; ++side) {
      const double gap = side == 0 ? x - l.lower : l.upper - x;
      if (!(gap <= reach)) continue;
      ContactRecord r;
      r.joint = l.constraint;
      r.upper = side == 1;
      r.point.gap = gap;
      add_block(ContactBlock::Kind::Unilateral, 0.0);
      const TwistRow row = joint_row(m_, d, l.tree_joint);
      rows_.push_back(side == 0 ? row : negated(row));
      gaps.push_back(gap);
      out.push_back(r);
    }
  }
  if (!normal_only)
    for (const Friction& f : frictions_) {
      // the joint's Coulomb friction: a bounded row on its rate, |λ| ≤ F h, sticking at
      // u⁺ = 0 inside the bound, sliding against the motion on it
      ContactRecord r;
      r.joint = f.constraint;
      r.friction = true;
      add_block(ContactBlock::Kind::Bounded, 0.0);
      blocks_.back().bound = f.force * h_;
      rows_.push_back(joint_row(m_, d, f.tree_joint));
      gaps.push_back(0.0);
      out.push_back(r);
    }
  gaps_ = Eigen::Map<const Eigen::VectorXd>(gaps.data(), static_cast<int>(gaps.size()));
  order_islands(out);
}

void MoreauStepper::order_islands(std::vector<ContactRecord>& out) {
  const TreeModel& tree = m_.tree();
  const int nblocks = static_cast<int>(blocks_.size());
  // union–find on the subtrees' top joints; with bilateral extra rows, one island
  std::vector<int>& parent = union_parent_;
  parent.resize(root_.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
  const auto find = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::vector<int>& key = block_key_;
  key.assign(nblocks, -1);  // a subtree of the block's island, −1: the world only
  for (int k = 0; k < nblocks; ++k) {
    const TwistRow& r = rows_[blocks_[k].row];
    int roots[2] = {-1, -1};
    for (int s = 0; s < 2; ++s)
      if (r.body[s] != kWorld) roots[s] = root_[tree.tree_index[r.body[s]]];
    if (roots[0] >= 0 && roots[1] >= 0) parent[find(roots[0])] = find(roots[1]);
    key[k] = roots[1] >= 0 ? roots[1] : roots[0];
  }
  // with bilateral extra rows one island; a block on no body (none yet) one of its own
  std::vector<int>& island = block_island_;
  island.resize(nblocks);
  for (int k = 0; k < nblocks; ++k)
    island[k] = tree.nrows_extra > 0 ? 0 : key[k] < 0 ? -(k + 1) : find(key[k]);
  islands_.clear();
  first_.assign(rows_.size(), 0);
  // already in the order below (one body, one robot, islands found in turn): the blocks
  // stay where they are, and only the islands are marked
  if (std::is_sorted(island.begin(), island.end())) {
    for (int k = 0; k < nblocks; ++k) {
      const ContactBlock& b = blocks_[k];
      if (k == 0 || island[k] != island[k - 1]) islands_.push_back({b.row, 0, k, 0});
      Island& is = islands_.back();
      is.rows += b.size();
      is.blocks += 1;
      for (int j = 0; j < b.size(); ++j) first_[b.row + j] = is.row0;
    }
    return;
  }
  std::vector<int>& order = block_order_;
  order.resize(nblocks);
  for (int k = 0; k < nblocks; ++k) order[k] = k;
  // by island, the gathered order within one (std::sort: no temporary buffer to allocate)
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return island[a] != island[b] ? island[a] < island[b] : a < b; });
  // the blocks, their rows, records and gaps in that order
  std::vector<ContactBlock>& blocks = blocks_scratch_;
  std::vector<TwistRow>& rows = rows_scratch_;
  std::vector<ContactRecord>& records = records_scratch_;
  Eigen::VectorXd& gaps = gaps_scratch_;
  blocks.clear();
  rows.clear();
  records.clear();
  gaps.resize(gaps_.size());
  blocks.reserve(nblocks);
  rows.reserve(rows_.size());
  records.reserve(out.size());
  for (int i = 0; i < nblocks; ++i) {
    const int k = order[i];
    ContactBlock b = blocks_[k];
    const int row = static_cast<int>(rows.size());
    for (int j = 0; j < b.size(); ++j) rows.push_back(rows_[b.row + j]);
    b.row = row;
    if (i == 0 || island[k] != island[order[i - 1]]) islands_.push_back({row, 0, i, 0});
    Island& is = islands_.back();
    is.rows += b.size();
    is.blocks += 1;
    for (int j = 0; j < b.size(); ++j) first_[row + j] = is.row0;
    gaps(i) = gaps_(k);
    blocks.push_back(b);
    records.push_back(out[k]);
  }
  blocks_.swap(blocks);
  rows_.swap(rows);
  out.swap(records);
  gaps_.swap(gaps);
}

void MoreauStepper::match_previous(const Data& d) {
  // A row's last impulse (its warm start) and whether it pushed (in contact, not meeting).
  // The detectors number a pair's points in the order they find them, and that order is
  // not kept from step to step (a box–box face's clipped corners start anywhere on the
  // polygon): by number, a pile of boxes warm-started its corners with each other's
  // impulses and took thousands of iterations on a resting step.  A contact point takes
  // the last step's point of its pair nearest to it in its body's frame, where that is
  // clearly the nearest (under half the distance to the second nearest).
  const size_t nb = records_.size();
  at_.resize(nb);
  previous_.assign(nb, -1);
  for (size_t k = 0; k < nb; ++k) {
    const ContactRecord& r = records_[k];
    const int body = r.point.body_b != kWorld ? r.point.body_b : r.point.body_a;
    at_[k] = r.joint < 0 && body != kWorld
                 ? Vec3(d.body[body].Q.transpose() * (r.point.point - d.body[body].x))
                 : r.point.point;
    const Key key = key_of(r);
    const auto first = std::lower_bound(warm_.begin(), warm_.end(), key,
                                        [](const Previous& w, const Key& k) { return w.key < k; });
    auto last = first;
    while (last != warm_.end() && last->key == key) ++last;
    if (first == last) continue;
    if (r.joint >= 0 || last - first == 1) {
      previous_[k] = static_cast<int>(first - warm_.begin());
      continue;
    }
    double d1 = std::numeric_limits<double>::infinity(), d2 = d1;
    for (auto it = first; it != last; ++it) {
      const double dist = (it->at - at_[k]).norm();
      if (dist < d1) {
        d2 = d1;
        d1 = dist;
        previous_[k] = static_cast<int>(it - warm_.begin());
      } else {
        d2 = std::min(d2, dist);
      }
    }
    if (!(d1 < 0.5 * d2)) previous_[k] = -1;
  }
}

ContactSolverResult MoreauStepper::solve_islands(const std::vector<char>* only) {
  return solve_islands(g_, lambda_, o_.solver, only);
}

ContactSolverResult MoreauStepper::solve_islands(const Eigen::VectorXd& g, Eigen::VectorXd& lambda,
                                                 const ContactSolverOptions& so,
                                                 const std::vector<char>* only, bool aux) {
  ContactSolverResult worst;
  worst.converged = true;
  // one workspace per island (the step's own problems, or the projection's and the first
  // half's): an island keeps its sizes from step to step, so nothing is resized
  std::vector<std::unique_ptr<IslandSolve>>& pool = aux ? solve_aux_ : solve_main_;
  while (pool.size() < islands_.size()) pool.push_back(std::make_unique<IslandSolve>());
  for (size_t i = 0; i < islands_.size(); ++i) {
    if (only && !(*only)[i]) continue;
    const Island& is = islands_[i];
    IslandSolve& w = *pool[i];
    w.g = g.segment(is.row0, is.rows);
    w.lambda = lambda.segment(is.row0, is.rows);
    w.blocks.assign(blocks_.begin() + is.block0, blocks_.begin() + is.block0 + is.blocks);
    for (ContactBlock& b : w.blocks) b.row -= is.row0;
    const ContactSolverResult r =
        Gis_[i].factored
            ? solve_contact_problem(Gis_[i].low_rank, w.g, w.blocks, w.lambda, so, &w.solver)
        : Gis_[i].sparse
            ? solve_contact_problem(Gis_[i].coupled, w.g, w.blocks, w.lambda, so, &w.solver)
            : solve_contact_problem(Gis_[i].dense, w.g, w.blocks, w.lambda, so, &w.solver);
    lambda.segment(is.row0, is.rows) = w.lambda;
    worst.iterations = std::max(worst.iterations, r.iterations + r.newton_iterations);
    worst.residual = std::max(worst.residual, r.residual);
    worst.converged = worst.converged && r.converged;
  }
  return worst;
}

namespace {

// The first s in [0, span] at which a row's gap g + w s + ½ a s² (g > 0) reaches zero;
// false when it stays open (Numerical Recipes' stable roots of a quadratic, §5.6).
bool first_contact(double g, double w, double a, double span, double& s) {
  const double disc = w * w - 2.0 * a * g;
  if (!(disc >= 0)) return false;
  const double q = -(w + std::copysign(std::sqrt(disc), w));
  s = std::numeric_limits<double>::infinity();
  if (a != 0) {
    const double r = q / a;
    if (r >= 0) s = std::min(s, r);
  }
  if (q != 0) {
    const double r = 2.0 * g / q;
    if (r >= 0) s = std::min(s, r);
  }
  if (!(s <= span)) return false;
  return true;
}

void combine(ContactSolverResult& res, const ContactSolverResult& more) {
  res.iterations = std::max(res.iterations, more.iterations);
  res.residual = std::max(res.residual, more.residual);
  res.converged = res.converged && more.converged;
}

}  // namespace

bool MoreauStepper::leave_free(size_t k, double h) const {
  // an open row the stage's motion does not close may still close within the next step's
  // first half: the next step's rows (at its midpoint) then see it overlap, by up to its
  // approach over half a step.  Where that would be deep for the pair's thinner shape (a
  // fast body, a thin wall), it bounces now, at the step's end (τ = h: no position
  // change, Newton's law at its velocity then), short of the surface by its end gap.
  const ContactRecord& r = records_[k];
  const int i = blocks_[k].row, nshapes = static_cast<int>(m_.shapes().size());
  const ContactPoint& p = r.point;
  double thin = std::numeric_limits<double>::infinity();
  if (p.shape_a >= 0 && p.shape_b >= 0 && p.shape_a < nshapes && p.shape_b < nshapes)
    thin = std::min(thickness(m_.shapes()[p.shape_a]), thickness(m_.shapes()[p.shape_b]));
  return !(gend_(i) + 0.5 * h * yend_(i) < -0.25 * thin);
}

void MoreauStepper::locate(size_t k, double h, double T, double& tau, double& v) const {
  // the row's motion from T (the last impulses on it) to the step's end, at its free
  // acceleration a: g(t) = g_end − y (h − t) + ½ a (h − t)², velocity y − a (h − t)
  const int i = blocks_[k].row;
  const double s = h - T, a = acc_(i);
  const double gT = gend_(i) - yend_(i) * s + 0.5 * a * s * s, wT = yend_(i) - a * s;
  double ds = 0.0;
  if (gT <= o_.closed_gap || !first_contact(gT, wT, a, s, ds)) ds = 0.0;
  tau = T + ds;
  v = wT + a * ds;
}

SolveStatus MoreauStepper::rest_accelerations(const Eigen::VectorXd& qm, Data& d) {
  // the rows' accelerations at q_m from the forces that do not depend on the motion
  // (gravity, springs, servos' position terms, through the bilateral rows): the recursion at
  // u = 0.  Only where a contact with restitution may meet (located impacts, impact_law).
  bool any = false;
  for (size_t k = 0; k < records_.size(); ++k) {
    const ContactRecord& r = records_[k];
    any = any || (r.joint < 0 && !r.friction && r.point.restitution > 0 && !landed(k));
  }
  if (!any) return SolveStatus::Ok;
  uzero_.setZero(m_.tree().nu);
  const SolveStatus st = rates(qm, uzero_, d);
  if (st != SolveStatus::Ok) return st;
  row_velocities(m_, d, rows_, joint_accelerations(m_, d), arest_, &dscratch_);
  return SolveStatus::Ok;
}

void MoreauStepper::impact_law(size_t k, double h, double tau, int stage) {
  // Newton's law at the instant τ of contact, free flight after it:
  //   u_n⁺ ≥ −e v_τ + a (h − τ)                                               (L1)
  // and the impulse's position error undone, (h − τ) Δu where the scheme moves h/2 Δu
  // (step(), lcorr_).  In the step's own solve a is the row's acceleration at rest,
  // a_r (rest_accelerations), and v_τ = v₀ + a_r τ: the impulse then does the work
  // λ a_r (h/2 − τ) in the midpoint rule's energy balance (ū_n = a_r (h/2 − τ) for e = 1)
  // and the position correction the opposite, −λ a_r (h/2 − τ), through the potential:
  // an elastic impact keeps the energy also on a spinning body, whose row's free
  // acceleration has gyroscopic and centripetal parts (they still locate τ).  For a ball
  // a_r = a.  A row that would come back within the step (L1's right side ≤ 0) does not
  // separate: it lands (stage 1: the plain law of an open row, u_n⁺ + g/h ≥ 0, or
  // u_n⁺ ≥ 0 on a closed one; later stages: u_n⁺ ≥ 0 at τ).
  const ContactRecord& r = records_[k];
  const int i = blocks_[k].row;
  const double e = r.joint < 0 ? r.point.restitution : 0.0;
  const double a = stage == 0 && arest_.size() == acc_.size() ? arest_(i) : acc_(i);
  // the approach velocity at τ: from the step's start (stage 1) or back from the last
  // stage's outcome
  const double v = stage == 0 ? v0_(i) + a * tau : yend_(i) - a * (h - tau);
  const double sep = -e * v + a * (h - tau);
  records_[k].impact = records_[k].impact || v < -1e-9;
  law_[k] = Law::Impact;
  if (sep > 0) {
    gs_(i) = yend_(i) - sep;
    when_(i) = tau;
  } else if (stage == 0) {
    gs_(i) = yend_(i) + std::max(r.point.gap, 0.0) / h;
  } else {
    gs_(i) = yend_(i);
    when_(i) = tau;
  }
}

ContactSolverResult MoreauStepper::solve_rows(double h, bool warm) {
  // Stage 1, the step's own problem: the normal law's shift, Newton's law on a closed
  // row's approach velocity, the gap on an open one; a row with e > 0 that the free
  // motion closes within the step (or that is closed and approaching at its start) gets
  // Newton's law at its instant of contact (impact_law); an open one with e > 0 that the
  // free motion does not close is left free in this stage.
  const int n = static_cast<int>(gfree_.size());
  const int nb = static_cast<int>(blocks_.size());
  g_ = gfree_;
  if (warm) lambda_.setZero(n);
  acc_ = (gfree_ - v0_) / h;
  yend_ = gfree_;
  gend_ = gfree_ * (0.5 * h);
  when_.setConstant(n, -1.0);  // −1: the impulse acts at the midpoint, as the scheme has it
  lcorr_.setZero(n);
  lloc_.setZero(n);
  w_.resize(n);
  gs_ = gfree_;
  law_.assign(nb, Law::Plain);
  taub_.assign(nb, 0.0);
  fixed0_.resize(nb);
  tisl_.assign(islands_.size(), 0.0);
  resolve_.assign(islands_.size(), 0);
  for (int k = 0; k < nb; ++k) {
    const ContactBlock& b = blocks_[k];
    ContactRecord& r = records_[k];
    fixed0_[k] = b.fixed;
    r.impact = false;
    gend_(b.row) += r.point.gap;
    const bool located =
        !r.friction && r.joint < 0 && r.point.restitution > 0 && !b.fixed && !landed(k);
    double tau = 0.0, v = 0.0;
    if (located) locate(k, h, 0.0, tau, v);
    const double g0 = r.point.gap - 0.5 * h * v0_(b.row);  // the gap at the step's start
    if (r.friction) {
      // no gap and no impact: the bound alone
    } else if (located && (g0 > o_.closed_gap || v0_(b.row) < -1e-9)) {
      if (g0 > o_.closed_gap && tau == 0.0 && leave_free(k, h)) {
        law_[k] = Law::Free;  // the free motion does not close it
      } else {
        law_[k] = Law::Impact;  // at τ (the step's end where it does not close: too deep)
        taub_[k] = g0 > o_.closed_gap && tau == 0.0 ? h : tau;
      }
    } else if (r.point.gap <= o_.closed_gap && v0_(b.row) < 0) {
      // a row that already pushed at the last step is in contact, not meeting
      r.impact = v0_(b.row) < -1e-9 && !landed(k);
      if (r.joint < 0) g_(b.row) += r.point.restitution * v0_(b.row);
    } else if (r.point.gap > o_.closed_gap || (r.point.gap > 0 && v0_(b.row) > 0)) {
      // (a closed row at rest, 0 < g ≤ closed_gap and u_n = 0, takes no shift: the gaps of
      // a resting face's corners carry the collision test's noise, ~1e-12 m, which g/h would
      // make into targets its redundant rows cannot all meet, and the solver would stall at
      // 1e-9 m/s; a separating one keeps it)
      g_(b.row) += r.point.gap / h;
    }
    if (warm && previous_[k] >= 0)
      lambda_.segment(b.row, b.size()) = warm_[previous_[k]].impulse.head(b.size());
  }
  impact_laws(h, 0);
  for (int k = 0; k < nb; ++k) {
    const ContactBlock& b = blocks_[k];
    if (law_[k] == Law::Free) {  // held at zero impulse (a fixed block), warm start too
      blocks_[k].fixed = true;
      lambda_.segment(b.row, b.size()).setZero();
    }
    if (law_[k] == Law::Impact) g_(b.row) = gs_(b.row);
  }
  ContactSolverResult res = solve_islands();
  // an open row without restitution (e = 0, a limit) that pushes closes within the step:
  // an impact, which the gap law lands exactly
  for (int k = 0; k < nb; ++k) {
    const ContactBlock& b = blocks_[k];
    ContactRecord& r = records_[k];
    if (law_[k] != Law::Plain || r.friction) continue;
    if (!(r.point.gap > o_.closed_gap && lambda_(b.row) > 0 && v0_(b.row) < -1e-9)) continue;
    if (landed(k)) continue;  // in contact already
    r.impact = true;
  }
  // Later stages: the impulses of stage 1 may drive a row it left free closed (Newton's
  // cradle with gaps: ball 2, struck, meets ball 3).  Each stage starts from the last one's
  // outcome, at the time T of its impulses, and puts Newton's law on the rows it closes at
  // the approach velocity they have then; the others keep non-penetration
  // (u_n⁺ ≥ min(u_n, 0) on a closed one).  Impulses at different instants are separate
  // (each ≥ 0): a stage solves for its own, from zero.
  mu_ = lambda_;
  stage_times(0);
  for (int stage = 1;; ++stage) {
    account(h);
    bool again = false;
    std::fill(resolve_.begin(), resolve_.end(), 0);
    for (size_t i = 0; i < islands_.size(); ++i) {
      const Island& is = islands_[i];
      for (int k = is.block0; k < is.block0 + is.blocks; ++k)
        if (law_[k] == Law::Free && gend_(blocks_[k].row) < -1e-3 * o_.closed_gap) resolve_[i] = 1;
      again = again || resolve_[i];
    }
    if (!again || stage > 2 * nb + 2) break;
    // the next stage's rows
    gs_ = yend_;
    for (size_t i = 0; i < islands_.size(); ++i) {
      if (!resolve_[i]) continue;
      const Island& is = islands_[i];
      for (int k = is.block0; k < is.block0 + is.blocks; ++k) {
        ContactBlock& b = blocks_[k];
        const int row = b.row;
        law_[k] = Law::Plain;
        when_.segment(row, b.size()).setConstant(-1.0);
        b.fixed = fixed0_[k] || b.kind == ContactBlock::Kind::Bounded;  // no impulse there
        if (b.fixed) continue;
        double tau = 0.0, v = 0.0;
        locate(k, h, tisl_[i], tau, v);
        const double s = h - tisl_[i];
        const double gT = gend_(row) - yend_(row) * s + 0.5 * acc_(row) * s * s;
        if (gT <= o_.closed_gap) {
          if (v < -1e-9 && !landed(k)) {
            law_[k] = Law::Impact;
            taub_[k] = tau;
          } else {
            gs_(row) = std::max(yend_(row), 0.0);  // u_n⁺ ≥ min(u_n, 0)
          }
        } else if (gend_(row) < 0) {
          law_[k] = Law::Impact;
          taub_[k] = tau;
        } else if (!leave_free(k, h)) {
          law_[k] = Law::Impact;
          taub_[k] = h;
        } else {
          law_[k] = Law::Free;
          b.fixed = true;
        }
      }
    }
    impact_laws(h, stage);
    mu_.setZero(n);
    combine(res, solve_islands(gs_, mu_, o_.solver, &resolve_));
    lambda_ += mu_;
    stage_times(stage);
  }
  for (int k = 0; k < nb; ++k) blocks_[k].fixed = fixed0_[k];
  return res;
}

void MoreauStepper::impact_laws(double h, int stage) {
  // Newton's law on the stage's impact rows at one instant per island, its earliest τ
  // (a row found later, as the step's end τ = h, keeps its own): the rows' shifts are then
  // J times one velocity, in the range of G, as the laws of a rigid motion must be (several
  // corners of a box meeting the ground at different τ, with Newton's law at each, ask a
  // motion no impulses give: the solver then stalls)
  for (size_t i = 0; i < islands_.size(); ++i) {
    if (stage > 0 && !resolve_[i]) continue;
    const Island& is = islands_[i];
    double first = std::numeric_limits<double>::infinity();
    for (int k = is.block0; k < is.block0 + is.blocks; ++k)
      if (law_[k] == Law::Impact && taub_[k] < h) first = std::min(first, taub_[k]);
    // with resting contacts in the island (rows closed that pushed at the last step: a
    // ball landing on a box on the ground) Newton's law stays on the start's velocity,
    // e u_n⁻, as on the resting rows, at the midpoint: their shifts e J u, and the located
    // ones, are not one velocity's
    bool resting = false;
    for (int k = is.block0; stage == 0 && k < is.block0 + is.blocks; ++k) {
      const ContactRecord& r = records_[k];
      resting = resting ||
                (law_[k] == Law::Plain && !r.friction && r.point.gap <= o_.closed_gap && landed(k));
    }
    for (int k = is.block0; k < is.block0 + is.blocks; ++k) {
      if (law_[k] != Law::Impact) continue;
      if (!resting) {
        impact_law(k, h, taub_[k] < h ? first : h, stage);
        continue;
      }
      const int row = blocks_[k].row;
      records_[k].impact = true;
      gs_(row) = gfree_(row) + records_[k].point.restitution * std::min(v0_(row), 0.0);
    }
  }
}

void MoreauStepper::stage_times(int stage) {
  // the instant each of the stage's impulses acts at (when_): a row's own contact instant,
  // or for the rows that push with it in its island (a touching ball struck, a later
  // stage's) the island's earliest; a resting row's impulse stays at the midpoint
  for (size_t i = 0; i < islands_.size(); ++i) {
    if (stage > 0 && !resolve_[i]) continue;
    const Island& is = islands_[i];
    double first = std::numeric_limits<double>::infinity();
    for (int k = is.block0; k < is.block0 + is.blocks; ++k)
      if (law_[k] == Law::Impact && when_(blocks_[k].row) >= 0)
        first = std::min(first, when_(blocks_[k].row));
    if (!std::isfinite(first)) continue;
    for (int k = is.block0; k < is.block0 + is.blocks; ++k) {
      const ContactBlock& b = blocks_[k];
      const double tau = when_(b.row);
      if (law_[k] == Law::Impact) {
        if (tau >= 0) when_.segment(b.row, b.size()).setConstant(tau);  // not a landing
      } else if (mu_(b.row) != 0 && b.kind != ContactBlock::Kind::Bounded &&
                 (stage > 0 || !landed(k))) {
        when_.segment(b.row, b.size()).setConstant(first);
      }
    }
  }
}

void MoreauStepper::account(double h) {
  // the stage's impulses mu_ at their instants: the end-of-step row velocities and gaps,
  // the position correction, and each island's time
  for (size_t i = 0; i < islands_.size(); ++i) {
    const Island& is = islands_[i];
    auto mu = mu_.segment(is.row0, is.rows);
    if (!(mu.lpNorm<Eigen::Infinity>() > 0)) continue;
    auto when = when_.segment(is.row0, is.rows);
    auto w = w_.segment(is.row0, is.rows);
    bool located = false;
    for (int j = 0; j < is.rows; ++j) {
      const double t = when(j) >= 0 ? when(j) : 0.5 * h;
      w(j) = (h - t) * mu(j);
      lcorr_(is.row0 + j) += (0.5 * h - t) * mu(j);
      if (when(j) >= 0) lloc_(is.row0 + j) += mu(j);
      if (when(j) >= 0 && mu(j) != 0) tisl_[i] = std::max(tisl_[i], when(j));
      located = located || when(j) >= 0;
    }
    if (located) {
      Gis_[i].add_product(mu, yend_.segment(is.row0, is.rows));
      Gis_[i].add_product(w, gend_.segment(is.row0, is.rows));
      continue;
    }
    // every impulse at the midpoint (w = h/2 μ): one product for both
    if (gmu_.size() != mu_.size()) gmu_.resize(mu_.size());
    auto gmu = gmu_.segment(is.row0, is.rows);
    gmu.setZero();
    Gis_[i].add_product(mu, gmu);
    yend_.segment(is.row0, is.rows) += gmu;
    gend_.segment(is.row0, is.rows) += (0.5 * h) * gmu;
  }
}

void MoreauStepper::keep_kinetic_energy(const Eigen::VectorXd& qm, double h, Data& d) {
  // The position correction turns bodies about the impulses' change of ω, not about ω
  // itself as the midpoint form's half-steps do: with the velocities held that changes
  // the kinetic energy where M(q) depends on q (a spinning box, whose ω is in the world
  // frame, by ω · (δθ × L)).  The located impulses λ_loc are scaled by 1 + c so that
  // the kinetic energy at the corrected end position is the one at the uncorrected:
  //   KE(q_c, u⁺ + c R Jᵀ λ_loc) = KE(q⁺, u⁺),   to first order in c: ½ A c² + B c + δ = 0
  // with B = λ_locᵀ u_n⁺, A = λ_locᵀ G λ_loc, δ = KE(q_c, u⁺) − KE(q⁺, u⁺).  A ball, or a
  // body on one hinge (M constant), has δ = 0.
  if (!(lloc_.size() == lambda_.size() && lcorr_.lpNorm<Eigen::Infinity>() > 0)) return;
  const TreeModel& tree = m_.tree();
  uplus_ = ustar_;
  add_response(R_, support_, lambda_, uplus_);
  const auto kinetic = [&](const Eigen::VectorXd& uq) {
    tree_qdot(tree, qm, uq, qdot_);
    qend_ = qm + 0.5 * h * qdot_;
    tree_normalize(tree, qend_);
    tree_kinematics(m_, qend_, uplus_, d);
    return kinetic_energy(m_, d);
  };
  const double plain = kinetic(uplus_);
  ucorr_ = uplus_;
  w_ = lcorr_ * (2.0 / h);
  add_response(R_, support_, w_, ucorr_);
  const double delta = kinetic(ucorr_) - plain;
  double A = 0.0, B = 0.0;
  for (size_t i = 0; i < islands_.size(); ++i) {
    const Island& is = islands_[i];
    const auto l = lloc_.segment(is.row0, is.rows);
    if (!(l.lpNorm<Eigen::Infinity>() > 0)) continue;
    auto gl = w_.segment(is.row0, is.rows);  // scratch: G λ, then G λ_loc
    gl.setZero();
    Gis_[i].add_product(lambda_.segment(is.row0, is.rows), gl);
    B += l.dot(gfree_.segment(is.row0, is.rows) + gl);
    gl.setZero();
    Gis_[i].add_product(l, gl);
    A += l.dot(gl);
  }
  if (!(B > 0) || delta == 0) return;
  const double disc = B * B - 2.0 * A * delta;
  const double c = disc >= 0 ? -2.0 * delta / (B + std::sqrt(disc)) : -B / A;
  lambda_ += std::clamp(c, -0.5, 0.5) * lloc_;
}

SolveStatus MoreauStepper::step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& u,
                                Data& d) {
  const TreeModel& tree = m_.tree();
  stats_ = MoreauStepStats{};
  // the first half of the step moves at u: rows that could close within it and that the
  // last step's predictive rows did not cover act first
  if (!covered(q, u, h)) {
    const SolveStatus st0 = first_half(t, q, u, h, d);
    if (st0 != SolveStatus::Ok) return st0;
  }
  // the midpoint of the positions
  qdot_.resize(tree.nq);
  tree_qdot(tree, q, u, qdot_);
  qm_ = q + 0.5 * h * qdot_;
  Eigen::VectorXd& qm = qm_;
  tree_normalize(tree, qm);
  // the free velocity, the bilateral rows held
  d.t = t + 0.5 * h;
  const SolveStatus st = free_velocity(qm, u, h, d);
  if (st != SolveStatus::Ok) return st;
  gather(qm, d, false, step_margin(d, h), records_);
  if (too_deep(records_, "", d) || too_fast(d, h)) return d.diagnostics.status;
  if (!rows_.empty()) {
    match_previous(d);
    tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_, &diag0_, &dscratch_);
    mark_fixed();
    row_velocities(m_, d, rows_, ustar_, gfree_, &dscratch_);
    row_velocities(m_, d, rows_, u, v0_, &dscratch_);
    const SolveStatus st1 = rest_accelerations(qm, d);
    if (st1 != SolveStatus::Ok) return st1;
    ContactSolverResult res = solve_rows(h, true);
    if (spinning_) {
      const SolveStatus st2 = midpoint(qm, u, h, d, res);
      if (st2 != SolveStatus::Ok) return st2;
    }
    stats_.rows = static_cast<int>(g_.size());
    stats_.iterations = res.iterations;
    stats_.residual = res.residual;
    stats_.converged = res.converged;
    keep_kinetic_energy(qm, h, d);
    add_response(R_, support_, lambda_, ustar_);
    // the rows' velocities after the step (G by island)
    Eigen::VectorXd& v = v_;
    v = gfree_;
    for (size_t i = 0; i < islands_.size(); ++i)
      Gis_[i].add_product(lambda_.segment(islands_[i].row0, islands_[i].rows),
                          v.segment(islands_[i].row0, islands_[i].rows));
    // a row the bodies cannot move that the imposed motion closes: no force can act
    if (const int k = violated_fixed_row(v); k >= 0) {
      d.diagnostics.status = SolveStatus::Inconsistent;
      d.diagnostics.message = fixed_row_message(records_[k], t);
      return d.diagnostics.status;
    }
    warm_next_.clear();
    for (size_t k = 0; k < blocks_.size(); ++k) {
      const ContactBlock& b = blocks_[k];
      ContactRecord& r = records_[k];
      stats_.impacts += r.impact;
      r.impulse.head(b.size()) = lambda_.segment(b.row, b.size());
      r.velocity.head(b.size()) = v.segment(b.row, b.size());
      const double scale = std::max(1.0, std::abs(v0_(b.row)));
      if (r.friction)
        r.state = std::abs(r.velocity(0)) > 1e3 * o_.solver.tolerance * scale
                      ? ContactRecord::State::Slip
                      : ContactRecord::State::Stick;
      else if (!(r.impulse(0) > 0))
        r.state = ContactRecord::State::Open;
      else if (b.size() == 3 && r.velocity.tail<2>().norm() > 1e3 * o_.solver.tolerance * scale)
        r.state = ContactRecord::State::Slip;
      else
        r.state = ContactRecord::State::Stick;
      warm_next_.push_back({key_of(r), r.impulse, at_[k], r.impulse(0) > 0 && !r.friction});
    }
    // sorted for lookups by key (std::sort: no buffer; the vectors keep their storage)
    std::sort(warm_next_.begin(), warm_next_.end(),
              [](const Previous& a, const Previous& b) { return a.key < b.key; });
    warm_.swap(warm_next_);
  } else {
    warm_.clear();
    if (spinning_) {
      ContactSolverResult none;
      const SolveStatus st2 = midpoint(qm, u, h, d, none);
      if (st2 != SolveStatus::Ok) return st2;
    }
  }
  u = ustar_;
  // the second half of the positions, at the new velocity; an impulse at τ moves the end
  // position by (h − τ) Δu, where the midpoint form moves it by h/2 Δu: the rest,
  // (h/2 − τ) R J_iᵀ λ_i over the located impulses (solve_rows, lcorr_), at N(q_m)
  ucorr_ = u;
  if (!rows_.empty() && lcorr_.size() == lambda_.size() && lcorr_.lpNorm<Eigen::Infinity>() > 0) {
    lcorr_ *= 2.0 / h;
    add_response(R_, support_, lcorr_, ucorr_);
  }
  tree_qdot(tree, qm, ucorr_, qdot_);
  q = qm + 0.5 * h * qdot_;
  tree_normalize(tree, q);
  project(q, u, t + h, d);
  if (d.diagnostics.status != SolveStatus::Ok) return d.diagnostics.status;
  if (too_deep(scratch_, " after the step's projection", d)) return d.diagnostics.status;
  // what the next step's first half may move without rows of its own (first_half)
  last_q_ = q;
  last_u_ = u;
  end_closing_ = closing_speed(d);
  return SolveStatus::Ok;
}

bool MoreauStepper::covered(const Eigen::VectorXd& q, const Eigen::VectorXd& u, double h) const {
  // the last step's rows within margin_ of q_m keep their gaps ≥ 0 at the next midpoint
  // q_m + h u⁺; the pairs farther apart close by at most h × the closing speed at u⁺
  // q as the last step left it, up to the run's own normalization of its quaternions
  // (Simulation::accept normalizes them again: an ulp's change, a third of the steps)
  if (last_u_.size() != u.size() || last_q_.size() != q.size() || u != last_u_) return false;
  const double moved = (q - last_q_).lpNorm<Eigen::Infinity>();
  return moved <= 8 * std::numeric_limits<double>::epsilon() * (1 + q.lpNorm<Eigen::Infinity>()) &&
         h * end_closing_ <= margin_;
}

SolveStatus MoreauStepper::first_half(double t, const Eigen::VectorXd& q, Eigen::VectorXd& u,
                                      double h, Data& d) {
  // the rows at q within what the first half could close (twice it), the law
  // u_n' + g / (h/2) ≥ 0 on the open ones: an open row that would close within the first
  // half lands on it (u' = u + R J_nᵀ λ, the least change of u in the mass metric: no
  // energy is added); a closed row keeps its approach, min(u_n, 0), for the step's own
  // Newton law
  d.t = t;
  stats_.first_half = true;
  const SolveStatus st = rates(q, u, d);
  if (st != SolveStatus::Ok) return st;
  const double reach = h * closing_speed(d);
  if (!(reach > o_.closed_gap)) return SolveStatus::Ok;
  gather(q, d, true, std::isfinite(reach) ? reach : o_.closed_gap, scratch_);
  if (too_deep(scratch_, "", d)) return d.diagnostics.status;
  if (rows_.empty()) return SolveStatus::Ok;
  tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_, &diag0_, &dscratch_);
  mark_fixed();
  row_velocities(m_, d, rows_, u, gfree_, &dscratch_);
  Eigen::VectorXd &g = half_g_, &mu = half_mu_;
  g = gfree_;
  mu.setZero(gfree_.size());
  for (size_t k = 0; k < blocks_.size(); ++k) {
    const int row = blocks_[k].row;
    const double gap = scratch_[k].point.gap;
    g(row) = gap > o_.closed_gap ? gfree_(row) + gap / (0.5 * h)
                                 : gfree_(row) - std::min(gfree_(row), 0.0);
  }
  const ContactSolverResult res = solve_islands(g, mu, o_.solver, nullptr, true);
  if (!(mu.lpNorm<Eigen::Infinity>() > 0)) return SolveStatus::Ok;
  add_response(R_, support_, mu, u);
  stats_.early_impulses = true;
  stats_.iterations = std::max(stats_.iterations, res.iterations);
  stats_.residual = std::max(stats_.residual, res.residual);
  stats_.converged = stats_.converged && res.converged;
  return SolveStatus::Ok;
}

bool MoreauStepper::too_fast(Data& d, double h) {
  // the rows predict each gap along a straight line over the step; a point at r from a
  // body's centre turning at ω leaves that line by about ½ r (ω h)².  Where that exceeds
  // the thinner shape of a pair the step's rows hold, the pair could pass through each
  // other unseen.
  const int nshapes = static_cast<int>(m_.shapes().size());
  const auto off = [&](int body) {
    if (body < 0) return 0.0;
    const double turn = d.body[body].w.norm() * h;
    return 0.5 * reach_[body] * turn * turn;
  };
  for (const ContactRecord& r : records_) {
    const ContactPoint& p = r.point;
    if (r.joint >= 0 || p.shape_a < 0 || p.shape_b < 0 || p.shape_a >= nshapes ||
        p.shape_b >= nshapes)
      continue;
    const double thin =
        std::min(thickness(m_.shapes()[p.shape_a]), thickness(m_.shapes()[p.shape_b]));
    const double miss = off(p.body_a) + off(p.body_b);
    if (!(miss > thin)) continue;
    // a pair farther apart than its bodies' points move in a step cannot meet in it
    const auto moves = [&](int body) {
      return body < 0 ? 0.0 : h * (d.body[body].v.norm() + d.body[body].w.norm() * reach_[body]);
    };
    if (p.gap > moves(p.body_a) + moves(p.body_b)) continue;
    const int body = off(p.body_a) > off(p.body_b) ? p.body_a : p.body_b;
    char what[400];
    std::snprintf(what, sizeof what,
                  "turns %.6g rad in one step: its shapes' farthest point (%.6g m "
                  "out) leaves the straight path the contact rows predict by %.6g m, more than "
                  "the thinner shape of a pair it is near (%.6g m); lower dt",
                  d.body[body].w.norm() * h, reach_[body], miss, thin);
    stats_.too_deep = true;
    d.diagnostics.status = SolveStatus::Inconsistent;
    d.diagnostics.message = "contact: body '" + m_.bodies()[body].name + "' " + what;
    return true;
  }
  return false;
}

bool MoreauStepper::too_deep(const std::vector<ContactRecord>& rows, const char* when, Data& d) {
  // a penetration deeper than half the thinner shape's half-thickness: the detector's
  // normal may already point through the thinner shape (a body passing through another),
  // or the scene started with one inside the other
  const int nshapes = static_cast<int>(m_.shapes().size());
  for (const ContactRecord& r : rows) {
    const ContactPoint& p = r.point;
    if (r.joint >= 0 || p.shape_a < 0 || p.shape_b < 0 || p.shape_a >= nshapes ||
        p.shape_b >= nshapes || !(p.gap < 0))
      continue;
    const double limit =
        0.5 * std::min(thickness(m_.shapes()[p.shape_a]), thickness(m_.shapes()[p.shape_b]));
    if (!(-p.gap > limit)) continue;
    const auto name = [&](int sh) {
      const Shape& s = m_.shapes()[sh];
      const std::string body = s.body == kWorld ? "world" : m_.bodies()[s.body].name;
      return "shape '" + (s.name.empty() ? "shape" + std::to_string(sh) : s.name) + "' of " +
             (s.body == kWorld ? body : "body '" + body + "'");
    };
    char depth[96];
    std::snprintf(depth, sizeof depth, "%.6g m%s, more than %.6g m", -p.gap, when, limit);
    stats_.too_deep = true;
    d.diagnostics.status = SolveStatus::Inconsistent;
    d.diagnostics.message =
        "contact: " + name(p.shape_a) + " and " + name(p.shape_b) + " overlap by " + depth +
        " (half the thinner shape's half-thickness): one passed into the other within a "
        "step, or the scene starts with one inside the other; lower dt or separate them";
    return true;
  }
  return false;
}

SolveStatus MoreauStepper::rates(const Eigen::VectorXd& q, const Eigen::VectorXd& u, Data& d,
                                 const Eigen::VectorXd* u_forces) {
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
  const SolveStatus st = rates(qm, u, d);
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
    SolveStatus st = velocity_only
                         ? recursive_rates_new_velocity(m_, d, qm, ubar_)
                         : recursive_rates_kept_forces(m_, d, qm, ubar_, o_.stabilization);
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

void MoreauStepper::mark_fixed() {
  // a unilateral row whose response G_kk is below τ² of its response on the tree alone
  // stands within τ of the bilateral rows (a limit on a prescribed joint) or moves nothing
  // (a contact of welded bodies): the rank policy's dependent row (rank_policy.hpp, P2),
  // held at zero impulse rather than given the 1/G_kk a penalty would
  constexpr double tau2 = kDependentSine * kDependentSine;
  for (size_t i = 0; i < islands_.size(); ++i) {
    const Island& is = islands_[i];
    for (int k = is.block0; k < is.block0 + is.blocks; ++k) {
      ContactBlock& b = blocks_[k];
      const double g = Gis_[i].diagonal(b.row - is.row0);
      b.fixed = b.kind != ContactBlock::Kind::Bounded && !(g > tau2 * diag0_(b.row));
    }
  }
}

int MoreauStepper::violated_fixed_row(const Eigen::VectorXd& v) const {
  for (size_t k = 0; k < blocks_.size(); ++k) {
    const ContactBlock& b = blocks_[k];
    if (!b.fixed) continue;
    // the normal law's velocity after the step: u_n⁺ (+ g/h on an open row)
    const double un = v(b.row) + (g_(b.row) - gfree_(b.row));
    const double scale = std::max(1.0, std::abs(v0_(b.row)));
    if (un < -1e3 * o_.solver.tolerance * scale) return static_cast<int>(k);
  }
  return -1;
}

std::string MoreauStepper::fixed_row_message(const ContactRecord& r, double t) const {
  std::string what;
  if (r.joint >= 0) {
    bool reversed = false;  // the record's side is on the tree coordinate
    for (const TreeJoint& tj : m_.tree().joints)
      if (tj.constraint == r.joint) reversed = tj.reversed;
    what = "joint '" + m_.constraints()[r.joint]->name() + "' is driven past its " +
           (r.upper != reversed ? "upper" : "lower") + " limit";
  } else {
    const auto name = [&](int shape) {
      if (shape < 0) return std::string("the world");
      const std::string& n = m_.shapes()[shape].name;
      return "'" + (n.empty() ? "shape" + std::to_string(shape) : n) + "'";
    };
    what = "shapes " + name(r.point.shape_a) + " and " + name(r.point.shape_b) +
           " are driven into each other";
  }
  std::ostringstream at;
  at << t;
  return what + " at t = " + at.str() +
         " by motion its bodies cannot deviate from (a prescribed joint, a weld or other "
         "bilateral rows): the row has no response, so no force of the limit or contact can "
         "act; remove the limit (contact) or change the prescribed motion";
}

double MoreauStepper::closing_speed(const Data& d) const {
  // each body's fastest point moves at most |v| + |ω| reach; two bodies close at most at
  // the sum of the two fastest
  double fastest = 0.0, second = 0.0;
  for (int b = 0; b < m_.nbody(); ++b) {
    const double s = d.body[b].v.norm() + d.body[b].w.norm() * reach_[b];
    if (s > fastest) {
      second = fastest;
      fastest = s;
    } else {
      second = std::max(second, s);
    }
  }
  return fastest + second;
}

double MoreauStepper::step_margin(const Data& d, double h) {
  // a contact enters the step when it could close within it; gravity adds g h over the step
  const double closing = closing_speed(d) + 2.0 * h * m_.gravity().norm();
  h_ = h;
  const double margin = std::max(o_.margin, 2.0 * h * closing);
  margin_ = std::isfinite(margin) ? std::max(o_.closed_gap, margin) : o_.closed_gap;
  return margin_;
}

double MoreauStepper::penetration(const Eigen::VectorXd& q, bool& deep) const {
  const int nshapes = static_cast<int>(m_.shapes().size());
  double lowest = 0.0;
  deep = false;
  for (const ContactPoint& p : points_) {
    if (!(p.gap < 0)) continue;
    lowest = std::min(lowest, p.gap);
    // too_deep()'s test
    if (p.shape_a >= 0 && p.shape_b >= 0 && p.shape_a < nshapes && p.shape_b < nshapes &&
        -p.gap >
            0.5 * std::min(thickness(m_.shapes()[p.shape_a]), thickness(m_.shapes()[p.shape_b])))
      deep = true;
  }
  for (const Limit& l : limits_) {
    const double x = q(m_.tree().joints[l.tree_joint].q_offset);
    lowest = std::min({lowest, x - l.lower, l.upper - x});
  }
  return -lowest;
}

void MoreauStepper::project(Eigen::VectorXd& q, const Eigen::VectorXd& u, double t, Data& d) {
  const TreeModel& tree = m_.tree();
  d.t = t;
  for (int pass = 0;; ++pass) {
    // the kinematics find the rows; the recursion's passes run only where they are projected
    // (a resting step: one recursion in three saved)
    kinematics_BaseToTip(m_, tree, q, u, d, recursive_workspace(m_, d));
    points_.clear();
    if (det_) det_->detect(m_, d, o_.closed_gap, points_);
    // most steps end with nothing to project: their rows are not formed
    bool deep = false;
    const double pen = penetration(q, deep);
    stats_.penetration = pen;
    if (!deep && (pen <= o_.projection_tolerance || pass == o_.projection_passes)) {
      scratch_.clear();
      return;
    }
    rows_of_points(q, d, true, o_.closed_gap, scratch_);
    if (pen <= o_.projection_tolerance || pass == o_.projection_passes) return;
    if (rates(q, u, d) != SolveStatus::Ok) return;
    tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_, &diag0_, &dscratch_);
    mark_fixed();
    Eigen::VectorXd& mu = half_mu_;
    mu.setZero(gaps_.size());
    ContactSolverOptions so = o_.solver;
    so.tolerance = 0.01 * o_.projection_tolerance;
    solve_islands(gaps_, mu, so, nullptr, true);
    Eigen::VectorXd& delta = delta_;
    delta.setZero(tree.nu);
    add_response(R_, support_, mu, delta);
    tree_qdot(tree, q, delta, qdot_);
    q += qdot_;
    tree_normalize(tree, q);
  }
}

}  // namespace appell
