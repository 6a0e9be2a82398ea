// The `appell` command line (README, Command line).  All I/O of the project happens here.
#include <CLI/CLI.hpp>
#include <iostream>

#include "appell/integrators.hpp"
#include "cli/commands.hpp"
#include "cli/linearize.hpp"
#include "cli/report.hpp"
#include "cli/sweep.hpp"

// --json / --table: the output format of check and eval (default: a table on a terminal)
static void add_output_flags(CLI::App* cmd, appell::cli::Output& output) {
  auto* json = cmd->add_flag_callback(
      "--json", [&output] { output = appell::cli::Output::Json; }, "JSON output");
  cmd->add_flag_callback(
         "--table", [&output] { output = appell::cli::Output::Table; },
         "tables for people (the default on a terminal)")
      ->excludes(json);
}

// --joint-frame: the frame of free and spherical joints' rates and forces
static void add_joint_frame(CLI::App* cmd, std::string& frame) {
  cmd->add_option("--joint-frame", frame,
                  "free and spherical joints' rates, accelerations and forces in the parent "
                  "joint frame (parent, the default: the world for a floating base) or the "
                  "child's (child: the body frame, as Pinocchio)");
}

// appell check SCENE [--json | --table]
static CLI::App* add_check_command(CLI::App& app, std::string& scene, appell::cli::Output& output) {
  CLI::App* check =
      app.add_subcommand("check", "validate a scene; print bodies, constraints, DoF, rank");
  check->add_option("SCENE", scene, "scene file (JSON)")->required();
  add_output_flags(check, output);
  return check;
}

// appell eval SCENE [--formulation F] [--json | --table] [--joint-frame F]
static CLI::App* add_eval_command(CLI::App& app, appell::cli::EvalOptions& eval) {
  CLI::App* ev = app.add_subcommand("eval", "equations of motion at t = 0, JSON on stdout");
  ev->add_option("SCENE", eval.scene, "scene file (JSON)")->required();
  ev->add_option("--formulation", eval.formulation,
                 "auto | recursive | gibbs-appell | pinv | sparse");
  add_output_flags(ev, eval.output);
  add_joint_frame(ev, eval.joint_frame);
  return ev;
}

// appell simulate SCENE [options]: the run and its output files
static CLI::App* add_simulate_command(CLI::App& app, appell::cli::SimulateOptions& sim) {
  CLI::App* simulate =
      app.add_subcommand("simulate", "integrate a scene; trajectory, forces, summary");
  simulate->add_option("SCENE", sim.scene, "scene file (JSON)")->required();
  simulate->add_option("--formulation", sim.formulation,
                       "auto | recursive | gibbs-appell | pinv | sparse");
  std::string methods;  // the registry's (appell/integrators.hpp)
  for (const appell::IntegratorInfo& i : appell::integrators())
    methods += (methods.empty() ? "" : " | ") + std::string(i.name);
  simulate->add_option("--integrator", sim.integrator, methods);
  simulate->add_option("--dt", sim.dt, "step (rk4) or output spacing (adaptive), s");
  simulate->add_option("--duration", sim.duration, "simulated time, s");
  simulate->add_option("--out", sim.out, "trajectory CSV");
  simulate->add_option("--summary", sim.summary, "summary JSON (default: stdout)");
  simulate->add_option("--forces", sim.forces, "constraint forces CSV");
  simulate->add_option("--contacts", sim.contacts,
                       "contact points and joint limits CSV: forces, state (moreau runs)");
  simulate->add_option("--report", sim.report, "HTML report: 3D animation and plots");
  simulate->add_flag("--quiet", sim.quiet, "no summary on stdout, no progress bar");
  add_joint_frame(simulate, sim.joint_frame);
  return simulate;
}

// appell report SCENE TRAJ [FORCES] -o OUT [--summary S]
static CLI::App* add_report_command(CLI::App& app, appell::cli::ReportOptions& report) {
  CLI::App* rep = app.add_subcommand(
      "report", "HTML report (3D animation, plots) of a simulate run's traj.csv [forces.csv]");
  rep->add_option("SCENE", report.scene, "scene file (JSON)")->required();
  rep->add_option("TRAJ", report.traj, "traj.csv written by simulate --out")->required();
  rep->add_option("FORCES", report.forces, "forces.csv written by simulate --forces");
  rep->add_option("-o,--out", report.out, "the report (HTML)")->required();
  rep->add_option("--summary", report.summary, "summary.json of the run (for the run time)");
  return rep;
}

// appell inverse SCENE [--q Q] [--qd QD] [--qdd QDD] [--t T] [--joint-frame F] [--actuated J]
static CLI::App* add_inverse_command(CLI::App& app, appell::cli::InverseOptions& inv) {
  CLI::App* inverse =
      app.add_subcommand("inverse", "inverse dynamics: joint forces for a motion, JSON on stdout");
  inverse->add_option("SCENE", inv.scene, "scene file (JSON)")->required();
  inverse->add_option("--q", inv.q,
                      "joint coordinates: every one in tree order (0.3,-1.2) or by joint "
                      "(elbow=-1.2; several values: base=0,0,1,1,0,0,0); default: the scene's");
  inverse->add_option("--qd", inv.qd, "joint rates, as --q (default: the scene's)");
  inverse->add_option("--qdd", inv.qdd, "joint accelerations, as --q (default: 0)");
  inverse->add_option("--t", inv.t, "time, s (default 0)");
  add_joint_frame(inverse, inv.joint_frame);
  inverse->add_option("--actuated", inv.actuated,
                      "actuated joints, comma-separated (default: every tree joint)");
  return inverse;
}

int main(int argc, char** argv) {
  CLI::App app{"appell: equations of motion of constrained multibody systems (Gauss's principle)"};
  app.set_version_flag("--version", std::string("appell ") + APPELL_VERSION);
  app.require_subcommand(1);

  std::string check_scene;
  appell::cli::Output check_output = appell::cli::Output::Auto;
  CLI::App* check = add_check_command(app, check_scene, check_output);
  appell::cli::EvalOptions eval;
  CLI::App* ev = add_eval_command(app, eval);
  appell::cli::SimulateOptions sim;
  CLI::App* simulate = add_simulate_command(app, sim);
  appell::cli::ReportOptions report;
  CLI::App* rep = add_report_command(app, report);
  appell::cli::InverseOptions inv;
  CLI::App* inverse = add_inverse_command(app, inv);
  appell::cli::SweepOptions sweep_options;
  CLI::App* sweep = appell::cli::add_sweep_command(app, sweep_options);
  appell::cli::LinearizeOptions lin;
  CLI::App* linearize = appell::cli::add_linearize_command(app, lin);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // one line, as every error: what is wrong, then where the usage is
    std::cerr << "error: " << e.what() << " (usage: appell --help)\n";
    return 2;
  }
  try {
    using appell::cli::finish_stdout;
    if (check->parsed()) return finish_stdout(appell::cli::run_check(check_scene, check_output));
    if (ev->parsed()) return finish_stdout(appell::cli::run_eval(eval));
    if (simulate->parsed()) return finish_stdout(appell::cli::run_simulate(sim));
    if (rep->parsed()) return finish_stdout(appell::cli::run_report(report));
    if (inverse->parsed()) return finish_stdout(appell::cli::run_inverse(inv));
    if (sweep->parsed()) return finish_stdout(appell::cli::run_sweep(sweep_options));
    if (linearize->parsed()) return finish_stdout(appell::cli::run_linearize(lin));
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
