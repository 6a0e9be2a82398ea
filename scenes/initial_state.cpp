// What the constraints demand of a scene at t = 0 (scenes/initial_state.hpp).
#include "scenes/initial_state.hpp"

#include <cmath>
#include <sstream>

#include "appell/contact.hpp"
#include "appell/data.hpp"
#include "appell/forward.hpp"
#include "appell/joint.hpp"
#include "appell/scene_document.hpp"
#include "appell/tree.hpp"

namespace appell {

// Holonomic rows must hold at t = 0 to 1e-6 (docs/scene-format.md "Initial conditions"): the
// first constraint in model order that does not is named.  In the joint coordinates of the
// initial State only the rows beyond the spanning tree can be violated (the tree's hold at
// every state, engine/model/tree.hpp).
static void check_initial_positions(const Model& m, const Data& d,
                                    const std::vector<Node>& constraints) {
  for (int c : m.tree().extra) {
    const Constraint& con = *m.constraints()[c];
    double worst = 0.0;
    for (int i = 0; i < con.rows(); ++i)
      if (con.holonomic(i))
        worst = std::max(worst, std::abs(d.position_residual(m.row_offset(c) + i)));
    if (!(worst <= 1e-6)) {
      std::ostringstream os;
      os << "constraint '" << con.name() << "' is violated at t = 0 by " << worst
         << "; positions must satisfy it to 1e-6";
      constraints[c].fail(os.str());
    }
  }
}

// Some velocity must satisfy the velocity rows at t = 0: the projection a run starts with
// (initial_conditions) must succeed.  Two linear rows demanding v = 0 and v = 1, or
// vx(p)^2 + 1 = 0, cannot; the constraints whose rows stay violated are named.  Rows of
// the spanning tree's joints alone always can (every joint rate satisfies them).
static void report_initial_velocities(const Model& m, const Data& d,
                                      const std::vector<Node>& constraints, const Node& list,
                                      double worst) {
  if (!std::isfinite(worst)) {
    list.fail(
        "the initial velocities' projection onto the velocity constraints is not finite (the "
        "mass matrix is beyond double precision: are masses or inertias many orders of "
        "magnitude apart?)");
    return;
  }
  std::string names;
  int first = -1;
  for (int c : m.tree().extra) {
    const int r0 = m.row_offset(c), n = m.constraints()[c]->rows();
    if (n == 0) continue;
    const double rc = d.velocity_residual.segment(r0, n).cwiseAbs().maxCoeff();
    if (!(rc <= 1e-3 * worst)) {
      names += (names.empty() ? "'" : ", '") + m.constraints()[c]->name() + "'";
      if (first < 0) first = c;
    }
  }
  std::ostringstream os;
  os << "no velocity satisfies the velocity constraints at t = 0 (" << names
     << "): still violated by " << worst << " after projecting the initial velocities";
  (first >= 0 ? constraints[first] : list).fail(os.str());
}

// What the constraints demand at t = 0, as a run starts (initial_conditions): positions
// (to 1e-6), then velocities.  `constraints`: every constraint's node, in model order;
// `list`: where a problem of the whole list is reported.
void check_initial_state(const ModelBuilder& b, const std::vector<Node>& constraints,
                         const Node& list) {
  const Model m = compile(b);
  if (m.nrows() == 0) return;
  if (m.nrows() > SceneLimits::kMaxRows)
    list.fail("the constraints have " + std::to_string(m.nrows()) +
              " rows, more than the limit of " + std::to_string(SceneLimits::kMaxRows));
  Data d(m);
  InitialConditions start;
  // a failure of the evaluation after the projection is a run's to report, not the scene's
  if (initial_conditions(m, d, m.initial_state(), SolverOptions{}, &start) == SolveStatus::Ok ||
      start.projected)
    return;
  check_initial_positions(m, d, constraints);
  report_initial_velocities(m, d, constraints, list, start.velocity_residual);
}

void check_joint_limits(const ModelBuilder& b, const std::vector<Node>& constraints,
                        const ContactSettings& contact, const std::string& scene_file) {
  if (!contact.joint_limits && !contact.joint_friction) return;
  // on the builder, before any Model: a scene without limits or friction is not compiled here
  bool any = false;
  for (const ConstraintPtr& c : b.constraints())
    if (const auto* j = dynamic_cast<const Joint*>(c.get()))
      any = any || (contact.joint_limits && j->properties().limited) ||
            (contact.joint_friction && j->properties().friction > 0);
  if (!any) return;
  const Model m = compile(b);
  if (constraints.size() != m.constraints().size()) return;  // no node for each
  const auto at = [&](int c, const char* key) {
    const Node& n = constraints[c];
    return n.has(key) ? n[key] : n;
  };
  for (const UnenforcedJoint& u :
       unenforced_joint_properties(m, contact.joint_limits, contact.joint_friction))
    at(u.constraint, u.limit ? "limit" : "friction").fail(describe(m, u));
  if (!contact.joint_limits) return;
  // a start the scene wrote (a URDF's or an MJCF's zero configuration may lie outside a
  // joint's range, as MuJoCo's published legged robots do: a run refuses it, a load not)
  const LimitViolation v = joint_limit_violation(m, m.initial_state().q);
  if (v.constraint >= 0 && constraints[v.constraint].file() == scene_file)
    at(v.constraint, constraints[v.constraint].has("q") ? "q" : "limit").fail(v.message);
}

}  // namespace appell
