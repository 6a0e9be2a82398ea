// Moreau–Jean time stepping with contacts and joint limits (engine/contact/moreau.hpp).
#include "engine/contact/moreau.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "appell/joint.hpp"
#include "engine/formulations/recursive.hpp"
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
  return {r.point.shape_a, r.point.shape_b, r.point.body_a,
          r.point.body_b,  r.point.feature, r.joint * 4 + r.upper + 2 * r.friction};
}

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
    double r = 0.0;  // the shape's extent about its own origin
    switch (sh.type) {
      case ShapeType::Plane:
        r = 0.0;
        break;  // a plane on a body sweeps at its origin's pace
      case ShapeType::Sphere:
        r = sh.radius;
        break;
      case ShapeType::Capsule:
        r = sh.radius + 0.5 * sh.length;
        break;
      case ShapeType::Box:
        r = sh.half_extents.norm();
        break;
      case ShapeType::Cylinder:
        r = std::hypot(sh.radius, 0.5 * sh.length);
        break;
      case ShapeType::ConvexMesh:
        r = sh.mesh ? sh.mesh->radius : 0.0;
        break;
    }
    reach_[sh.body] = std::max(reach_[sh.body], sh.position.norm() + r);
  }
  const TreeModel& tree = m.tree();
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
  out.clear();
  rows_.clear();
  blocks_.clear();
  points_.clear();
  if (det_) det_->detect(m_, d, margin, points_);
  std::vector<double> gaps;
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
  std::vector<int> parent(root_.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = static_cast<int>(i);
  const auto find = [&](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::vector<int> key(nblocks, -1);  // a subtree of the block's island, −1: the world only
  for (int k = 0; k < nblocks; ++k) {
    const TwistRow& r = rows_[blocks_[k].row];
    int roots[2] = {-1, -1};
    for (int s = 0; s < 2; ++s)
      if (r.body[s] != kWorld) roots[s] = root_[tree.tree_index[r.body[s]]];
    if (roots[0] >= 0 && roots[1] >= 0) parent[find(roots[0])] = find(roots[1]);
    key[k] = roots[1] >= 0 ? roots[1] : roots[0];
  }
  // with bilateral extra rows one island; a block on no body (none yet) one of its own
  std::vector<int> island(nblocks);
  for (int k = 0; k < nblocks; ++k)
    island[k] = tree.nrows_extra > 0 ? 0 : key[k] < 0 ? -(k + 1) : find(key[k]);
  std::vector<int> order(nblocks);
  for (int k = 0; k < nblocks; ++k) order[k] = k;
  // by island, the gathered order within one (std::sort: no temporary buffer to allocate)
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return island[a] != island[b] ? island[a] < island[b] : a < b; });
  // the blocks, their rows, records and gaps in that order
  std::vector<ContactBlock> blocks;
  std::vector<TwistRow> rows;
  std::vector<ContactRecord> records;
  Eigen::VectorXd gaps(gaps_.size());
  blocks.reserve(nblocks);
  rows.reserve(rows_.size());
  records.reserve(out.size());
  islands_.clear();
  first_.assign(rows_.size(), 0);
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

ContactSolverResult MoreauStepper::solve_islands(const std::vector<char>* only) {
  return solve_islands(g_, lambda_, o_.solver, only);
}

ContactSolverResult MoreauStepper::solve_islands(const Eigen::VectorXd& g, Eigen::VectorXd& lambda,
                                                 const ContactSolverOptions& so,
                                                 const std::vector<char>* only) {
  ContactSolverResult worst;
  worst.converged = true;
  for (size_t i = 0; i < islands_.size(); ++i) {
    if (only && !(*only)[i]) continue;
    const Island& is = islands_[i];
    gi_ = g.segment(is.row0, is.rows);
    li_ = lambda.segment(is.row0, is.rows);
    island_blocks_.assign(blocks_.begin() + is.block0, blocks_.begin() + is.block0 + is.blocks);
    for (ContactBlock& b : island_blocks_) b.row -= is.row0;
    const ContactSolverResult r = solve_contact_problem(Gis_[i], gi_, island_blocks_, li_, so);
    lambda.segment(is.row0, is.rows) = li_;
    worst.iterations = std::max(worst.iterations, r.iterations);
    worst.residual = std::max(worst.residual, r.residual);
    worst.converged = worst.converged && r.converged;
  }
  return worst;
}

SolveStatus MoreauStepper::step(double t, double h, Eigen::VectorXd& q, Eigen::VectorXd& u,
                                Data& d) {
  const TreeModel& tree = m_.tree();
  stats_ = MoreauStepStats{};
  // the midpoint of the positions
  qdot_.resize(tree.nq);
  tree_qdot(tree, q, u, qdot_);
  Eigen::VectorXd qm = q + 0.5 * h * qdot_;
  tree_normalize(tree, qm);
  // the free velocity, the bilateral rows held
  d.t = t + 0.5 * h;
  SolveStatus st = recursive_rates(m_, d, qm, u, o_.stabilization);
  if (st == SolveStatus::Inconsistent) {  // provisional: confirmed on every row
    solve_recursive(m_, d);
    st = d.diagnostics.status;
  }
  if (st != SolveStatus::Ok) return st;
  udot_ = joint_accelerations(m_, d);
  ustar_ = u + h * udot_;
  gather(qm, d, false, step_margin(d, h), records_);
  if (!rows_.empty()) {
    tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_);
    row_velocities(m_, d, rows_, ustar_, gfree_);
    row_velocities(m_, d, rows_, u, v0_);
    // the normal law's shift: Newton's law on a closed row's approach velocity, the gap on
    // an open one
    g_ = gfree_;
    lambda_.setZero(g_.size());
    std::set<Key> landed;
    for (size_t k = 0; k < blocks_.size(); ++k) {
      const ContactBlock& b = blocks_[k];
      ContactRecord& r = records_[k];
      const Key key = key_of(r);
      if (r.friction) {
        // no gap and no impact: the bound alone
      } else if (r.point.gap <= o_.closed_gap && v0_(b.row) < 0) {
        // a row that already pushed at the last step is in contact, not meeting
        r.impact = v0_(b.row) < -1e-9 && !landed_.count(key);
        if (r.joint < 0) g_(b.row) += r.point.restitution * v0_(b.row);
      } else if (r.point.gap > 0) {
        g_(b.row) += r.point.gap / h;
      }
      const auto it = warm_.find(key);
      if (it != warm_.end()) lambda_.segment(b.row, b.size()) = it->second.head(b.size());
    }
    ContactSolverResult res = solve_islands();
    // an open row that pushes closes within the step: an impact.  It lands exactly (e = 0),
    // or Newton's law acts on its approach velocity at once, in a second solve.
    bool again = false;
    std::vector<char> resolve(islands_.size(), 0);
    for (size_t k = 0; k < blocks_.size(); ++k) {
      const ContactBlock& b = blocks_[k];
      ContactRecord& r = records_[k];
      if (!(r.point.gap > o_.closed_gap && lambda_(b.row) > 0 && v0_(b.row) < -1e-9)) continue;
      if (landed_.count(key_of(r))) continue;  // in contact already
      r.impact = true;
      const double e = r.joint < 0 ? r.point.restitution : 0.0;
      if (e > 0) {
        g_(b.row) = gfree_(b.row) + e * v0_(b.row);
        again = true;
        for (size_t i = 0; i < islands_.size(); ++i)
          if (islands_[i].block0 <= static_cast<int>(k) &&
              static_cast<int>(k) < islands_[i].block0 + islands_[i].blocks)
            resolve[i] = 1;
      }
    }
    if (again) {
      const ContactSolverResult second = solve_islands(&resolve);
      res.iterations = std::max(res.iterations, second.iterations);
      res.residual = std::max(res.residual, second.residual);
      res.converged = res.converged && second.converged;
    }
    stats_.rows = static_cast<int>(g_.size());
    stats_.iterations = res.iterations;
    stats_.residual = res.residual;
    stats_.converged = res.converged;
    add_response(R_, support_, lambda_, ustar_);
    // the rows' velocities after the step (G by island)
    Eigen::VectorXd v = gfree_;
    for (size_t i = 0; i < islands_.size(); ++i)
      v.segment(islands_[i].row0, islands_[i].rows).noalias() +=
          Gis_[i] * lambda_.segment(islands_[i].row0, islands_[i].rows);
    warm_.clear();
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
      warm_[key_of(r)] = r.impulse;
      if (r.impulse(0) > 0 && !r.friction) landed.insert(key_of(r));
    }
    landed_.swap(landed);
  } else {
    warm_.clear();
    landed_.clear();
  }
  u = ustar_;
  // the second half of the positions, at the new velocity
  tree_qdot(tree, qm, u, qdot_);
  q = qm + 0.5 * h * qdot_;
  tree_normalize(tree, q);
  project(q, u, t + h, d);
  return d.diagnostics.status;
}

double MoreauStepper::step_margin(const Data& d, double h) {
  // a contact enters the step when it could close within it: each body's fastest point
  // moves at most |v| + |ω| reach, and gravity adds g h over the step
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
  const double closing = fastest + second + 2.0 * h * m_.gravity().norm();
  h_ = h;
  const double margin = std::max(o_.margin, 2.0 * h * closing);
  return std::isfinite(margin) ? std::max(o_.closed_gap, margin) : o_.closed_gap;
}

void MoreauStepper::project(Eigen::VectorXd& q, const Eigen::VectorXd& u, double t, Data& d) {
  const TreeModel& tree = m_.tree();
  d.t = t;
  for (int pass = 0;; ++pass) {
    SolveStatus st = recursive_rates(m_, d, q, u, o_.stabilization);
    if (st == SolveStatus::Inconsistent) {
      solve_recursive(m_, d);
      st = d.diagnostics.status;
    }
    if (st != SolveStatus::Ok) return;
    gather(q, d, true, o_.closed_gap, scratch_);
    const double pen = gaps_.size() > 0 ? std::max(0.0, -gaps_.minCoeff()) : 0.0;
    stats_.penetration = pen;
    if (pen <= o_.projection_tolerance || pass == o_.projection_passes) return;
    tree_delassus(m_, d, rows_, G_, R_, &first_, &support_, &Gis_);
    Eigen::VectorXd mu = Eigen::VectorXd::Zero(gaps_.size());
    ContactSolverOptions so = o_.solver;
    so.tolerance = 0.01 * o_.projection_tolerance;
    solve_islands(gaps_, mu, so);
    Eigen::VectorXd delta = Eigen::VectorXd::Zero(tree.nu);
    add_response(R_, support_, mu, delta);
    tree_qdot(tree, q, delta, qdot_);
    q += qdot_;
    tree_normalize(tree, q);
  }
}

}  // namespace appell
