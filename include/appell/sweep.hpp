// Many simulations on a pool of threads: one Model from many States, or many Models (a
// parameter sweep: appell/overrides.hpp builds them from one scene).
//
//   std::vector<appell::SweepRun> runs;
//   for (const appell::State& s : starts) runs.push_back({model, s, opts});
//   std::vector<appell::SweepOutcome> out = appell::sweep(runs, {/*threads*/ 2});
//
// Each run is a Simulation of its own, with its own Data, on whichever thread takes it; a
// Model is constant and is shared by every thread that runs it.  Nothing else is shared,
// and a run's arithmetic does not depend on the thread or on the other runs, so every
// outcome is identical, bit for bit, to the same simulate() called alone (tests/sweep_test).
//
// Cost: Σ runs / threads of the simulations, plus O(runs) to hand them out.  Callables in
// a model (CallableForce, CallableConstraint) run on the worker threads: they must be
// thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "appell/trajectory.hpp"

namespace appell {

struct SweepRun {
  std::shared_ptr<const Model> model;
  std::optional<State> initial;  // none: the model's initial state
  SimulationOptions options;     // its `progress` is not called in a sweep
};

struct SweepOptions {
  int threads = 0;      // 0: the hardware's concurrency
  bool record = false;  // keep every sample (SweepOutcome::trajectory)
  bool forces = true;   // with recording: keep the constraint forces too
  // Called on the calling thread about ten times a second and once at the end with the
  // number of runs finished; returning false cancels the runs not yet started.
  std::function<bool(size_t done, size_t total)> progress;
};

struct SweepOutcome {
  bool ran = false;  // false only for runs cancelled before they started
  SimulationResult result;
  RunSummary summary;
  std::shared_ptr<Trajectory> trajectory;  // when SweepOptions::record
};

// Runs every run; outcome i belongs to run i.  Throws std::invalid_argument naming the run
// when one has no model or bad options (before any run starts); an exception thrown by a
// callable or an observer inside a run stops the sweep and is rethrown here.
std::vector<SweepOutcome> sweep(const std::vector<SweepRun>& runs,
                                const SweepOptions& options = {});

// One run, on the calling thread: what each worker of sweep() does.
SweepOutcome run_one(const SweepRun& run, bool record, bool forces = true);

}  // namespace appell
