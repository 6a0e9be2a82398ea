// The contact stepper's rows (engine/contact/moreau.hpp): the margin within which a pair
// enters a step, the detector's points and the joint limits as rows, ordered by island,
// matched to the last step's for warm starts, and the islands' solves.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/contact/moreau.hpp"
#include "engine/model/tree.hpp"

namespace appell {

namespace {

// a tangent basis of the plane normal to n, a fixed function of n (warm starts keep it)
void tangents(const Vec3& n, Vec3& t1, Vec3& t2) {
  const Vec3 e = std::abs(n.x()) < 0.6 ? Vec3::UnitX() : Vec3::UnitY();
  t1 = n.cross(e).normalized();
  t2 = n.cross(t1);
}

}  // namespace

MoreauStepper::Key MoreauStepper::key_of(const ContactSample& r) {
  return {r.point.shape_a, r.point.shape_b, r.point.body_a, r.point.body_b,
          r.joint * 4 + r.upper + 2 * r.joint_friction};
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

void MoreauStepper::gather(const Eigen::VectorXd& q, Data& d, bool normal_only, double margin,
                           std::vector<ContactSample>& out) {
  points_.clear();
  if (det_) det_->detect(m_, d, margin, points_);
  rows_of_points(q, d, normal_only, margin, out);
}

void MoreauStepper::rows_of_points(const Eigen::VectorXd& q, Data& d, bool normal_only,
                                   double margin, std::vector<ContactSample>& out) {
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
    ContactSample r;
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
      ContactSample r;
      r.joint = l.constraint;
      r.upper = (side == 1) != tj.reversed;  // the joint's own side: a reversed joint runs
                                             // its coordinate backwards on the tree
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
      ContactSample r;
      r.joint = f.constraint;
      r.joint_friction = true;
      add_block(ContactBlock::Kind::Bounded, 0.0);
      blocks_.back().bound = f.force * h_;
      rows_.push_back(joint_row(m_, d, f.tree_joint));
      gaps.push_back(0.0);
      out.push_back(r);
    }
  gaps_ = Eigen::Map<const Eigen::VectorXd>(gaps.data(), static_cast<int>(gaps.size()));
  order_islands(out);
}

void MoreauStepper::order_islands(std::vector<ContactSample>& out) {
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
  std::vector<ContactSample>& records = records_scratch_;
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
    const ContactSample& r = records_[k];
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

}  // namespace appell
