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
//
// Threads that cannot start (std::system_error: a process or memory limit) do not stop a
// sweep: it runs on the threads that did start, on the calling thread when none did, and
// says so through SweepOptions::fewer_threads.
//
// Every outcome is a run's status as simulate() gives it, with one rule added (the rule
// `appell simulate` applies to its summary, appell/trajectory.hpp check_figures()): a run
// that completed with figures that are not finite has status NotFinite.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
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
  // How a worker thread is started (empty: std::thread(job)); an embedder may set stack
  // sizes or names here.  It may throw std::system_error, as std::thread does.
  std::function<std::thread(std::function<void()> job)> start_thread;
  // Called once on the calling thread, before the runs are reported, when only `started`
  // of the `wanted` threads could start (0: the runs go on on the calling thread); `why`
  // is the reason the first one that failed gave.
  std::function<void(int started, int wanted, const std::string& why)> fewer_threads;
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

// `count` runs, run i made by make_run(i) on the worker that takes it: the models exist
// one per thread at a time, whatever the count (`appell sweep` loads each run's scene
// this way).  Throws what make_run throws (the first failure stops the sweep), and
// std::invalid_argument naming the run when a run has no model or bad options.
std::vector<SweepOutcome> sweep(size_t count, const std::function<SweepRun(size_t)>& make_run,
                                const SweepOptions& options = {});

// One run, on the calling thread: what each worker of sweep() does.
SweepOutcome run_one(const SweepRun& run, bool record, bool forces = true);

}  // namespace appell
