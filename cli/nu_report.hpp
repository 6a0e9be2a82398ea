// What `appell eval`, `simulate` and `linearize` print of a system in its quasi-velocities
// (docs/lagrangian.md): a Lagrangian system (cli/lagrangian.cpp) or a scene of bodies with
// "quasi_velocities" (cli/rigid_nu.cpp).  Both are a LagrangianData after an evaluation.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "appell/lagrangian_run.hpp"
#include "cli/commands.hpp"
#include "cli/linearize.hpp"

namespace appell::cli {

struct NuSystemView {
  std::string kind;                      // "lagrangian" or "rigid"
  std::vector<std::string> coordinates;  // q's entries (n, or the tree's nq)
  std::vector<std::string> rates;        // the n rates the rows act on: q̇, or the tree's u
  std::vector<std::string> nu, nu_text;  // the quasi-velocities' names and expressions
  std::vector<std::string> rows;         // the constraint rows' names (m)
  bool chosen = true;                    // the user's ν (else the default)
  double lagrangian = 0.0;               // L (a Lagrangian system's; not printed for "rigid")
  double energy = 0.0;
};

// eval's report at (t, q, rates) from d after both forms; exit status 0, or 3 when a number
// is not finite
int print_nu_eval(const NuSystemView& v, const std::string& scene, double t,
                  const Eigen::VectorXd& q, const Eigen::VectorXd& rates, const LagrangianData& d,
                  Output output);

// simulate's options checked against `run` (changed by them), then the run: traj.csv in the
// columns of appell::nu_traj_schema (t, q.<c>, qd.<rate>, nu.<ν>, energy, violations), and
// the summary
using NuIntegrate = std::function<LagrangianRunResult(
    const LagrangianRun&, const std::function<void(const LagrangianSample&)>&)>;
int refused_nu_options(const SimulateOptions& o);  // --formulation, --forces...: 0, or 2
int checked_nu_run(const SimulateOptions& o, LagrangianRun& run);  // --dt...: 0, or 2
int write_nu_run(const NuSystemView& v, const SimulateOptions& o, const LagrangianRun& run,
                 const NuIntegrate& integrate);

// linearize's report of A in x = (q, ν)
int print_nu_linear(const NuSystemView& v, const LinearizeOptions& o, double at,
                    const Eigen::MatrixXd& A);

}  // namespace appell::cli
