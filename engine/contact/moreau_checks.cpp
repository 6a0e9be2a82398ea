// The contact stepper's checks (engine/contact/moreau.hpp): contacts deeper than their
// shapes allow, bodies turning too fast for the rows' straight-line prediction, and rows
// the bodies cannot move (the rank policy's dependent rows).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "engine/contact/moreau.hpp"
#include "engine/formulations/rank_policy.hpp"
#include "engine/model/tree.hpp"

namespace appell {

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
  for (const ContactSample& r : records_) {
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

double MoreauStepper::deepest_allowed(const ContactPoint& p) const {
  const int nshapes = static_cast<int>(m_.shapes().size());
  if (p.shape_a < 0 || p.shape_b < 0 || p.shape_a >= nshapes || p.shape_b >= nshapes)
    return std::numeric_limits<double>::infinity();
  return 0.5 * std::min(thickness(m_.shapes()[p.shape_a]), thickness(m_.shapes()[p.shape_b]));
}

bool MoreauStepper::too_deep(const std::vector<ContactSample>& rows, const char* when, Data& d) {
  // a penetration deeper than half the thinner shape's half-thickness: the detector's
  // normal may already point through the thinner shape (a body passing through another),
  // or the scene started with one inside the other
  for (const ContactSample& r : rows) {
    const ContactPoint& p = r.point;
    if (r.joint >= 0 || !(p.gap < 0)) continue;
    const double limit = deepest_allowed(p);
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

std::string MoreauStepper::fixed_row_message(const ContactSample& r, double t) const {
  std::string what;
  if (r.joint >= 0) {
    what = "joint '" + m_.constraints()[r.joint]->name() + "' is driven past its " +
           (r.upper ? "upper" : "lower") + " limit";
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

}  // namespace appell
