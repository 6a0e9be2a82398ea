// The `appell` command line (SPEC §3).  All I/O of the project happens here.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"appell: equations of motion of constrained multibody systems (Gauss's principle)"};
  app.set_version_flag("--version", std::string("appell ") + APPELL_VERSION);
  app.require_subcommand(1);

  appell::cli::EvalOptions eval;
  std::string check_scene;
  CLI::App* check =
      app.add_subcommand("check", "validate a scene; print bodies, constraints, DoF, rank");
  check->add_option("SCENE", check_scene, "scene file (JSON)")->required();
  CLI::App* ev = app.add_subcommand("eval", "equations of motion at t = 0, JSON on stdout");
  ev->add_option("SCENE", eval.scene, "scene file (JSON)")->required();
  ev->add_option("--formulation", eval.formulation,
                 "auto | recursive | gibbs-appell | pinv | sparse")
      ->check(CLI::IsMember({"auto", "recursive", "gibbs-appell", "pinv", "sparse"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << "\n"
              << "run 'appell --help' for usage\n";
    return 2;
  }
  try {
    if (check->parsed()) return appell::cli::run_check(check_scene);
    if (ev->parsed()) return appell::cli::run_eval(eval);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
