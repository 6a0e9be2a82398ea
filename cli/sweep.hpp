// `appell sweep`: many runs of one scene with values replaced by JSON Pointer, the
// cartesian product of every --set, on a pool of threads; one summary row per run.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace appell::cli {

// the most worker threads --threads takes
constexpr int kMaxThreads = 1024;

struct SweepOptions {
  std::string scene;
  std::vector<std::string> set;  // POINTER=VALUES, in order
  std::string out;               // the summary CSV (empty: stdout)
  std::string formulation;       // empty: the scene's choice
  std::string threads;           // empty: every core; else a whole number 1..kMaxThreads
  bool quiet = false;
};

// Registers the subcommand on `app`, filling `o` when it is parsed.
CLI::App* add_sweep_command(CLI::App& app, SweepOptions& o);
int run_sweep(const SweepOptions& o);

}  // namespace appell::cli
