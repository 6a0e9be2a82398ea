// What the constraints demand of a scene at t = 0 (scenes/initial_state.hpp).
#include "scenes/initial_state.hpp"

#include <cmath>
#include <sstream>

#include "appell/data.hpp"
#include "engine/assembly/stages.hpp"
#include "engine/formulations/projection.hpp"
#include "appell/scene_document.hpp"

namespace appell {

// Holonomic rows must hold at t = 0 to 1e-6 (docs/scene-format.md "Initial conditions").
static void check_initial_positions(const Model& m, Data& d, const std::vector<Node>& constraints) {
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
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

// Some velocity must satisfy the velocity rows at t = 0: the projection a simulation
// starts with (engine/formulations/projection.hpp) must succeed.  Two linear rows demanding v = 0
// and v = 1, or vx(p)^2 + 1 = 0, cannot; the constraints whose rows stay violated are named. Rows
// of the spanning tree's joints alone always can (every joint rate satisfies them,
// engine/model/tree.hpp; project_velocities then does nothing).
static void check_initial_velocities(const Model& m, Data& d, const std::vector<Node>& constraints,
                                     const Node& list) {
  if (project_velocities(m, d) == SolveStatus::Ok) return;
  const double worst = d.velocity_residual.cwiseAbs().maxCoeff();
  std::string names;
  int first = -1;
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c) {
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

// What the constraints demand at t = 0: positions (to 1e-6), then velocities.
// `constraints`: every constraint's node, in model order; `list`: where a problem of the
// whole list is reported.
void check_initial_state(const ModelBuilder& b, const std::vector<Node>& constraints,
                         const Node& list) {
  const Model m = compile(b);
  if (m.nrows() == 0) return;
  if (m.nrows() > SceneLimits::kMaxRows)
    list.fail("the constraints have " + std::to_string(m.nrows()) +
              " rows, more than the limit of " + std::to_string(SceneLimits::kMaxRows));
  Data d(m);  // the initial state
  kinematics(m, d);
  constraint_rows(m, d);
  check_initial_positions(m, d, constraints);
  check_initial_velocities(m, d, constraints, list);
}

}  // namespace appell
