// sweep() (appell/sweep.hpp): a pool of worker threads takes runs one at a time from a
// shared counter; the calling thread waits, reporting progress.  Outcomes are written to
// their own slots, so no lock is held while a simulation runs.
#include "appell/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace appell {

SweepOutcome run_one(const SweepRun& run, bool record, bool forces) {
  SweepOutcome out;
  SimulationOptions o = run.options;
  o.progress = nullptr;
  const Model& m = *run.model;
  if (record) out.trajectory = std::make_shared<Trajectory>(m, forces);
  Simulation sim(m, o);
  Trajectory* tr = out.trajectory.get();
  const Observer observe = [&](const Sample& s) {
    out.summary.record(s);
    if (tr) tr->record(s);
  };
  out.result = run.initial ? sim.run(*run.initial, observe) : sim.run(observe);
  out.ran = true;
  return out;
}

namespace {

// the runs are checked before any starts: a bad one is the caller's mistake
void check_runs(const std::vector<SweepRun>& runs) {
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].model)
      throw std::invalid_argument("sweep(): run " + std::to_string(i) + " has no model");
    try {
      Simulation probe(*runs[i].model, runs[i].options);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("sweep(): run " + std::to_string(i) + ": " + e.what());
    }
  }
}

struct Pool {
  Pool(const std::vector<SweepRun>& r, const SweepOptions& opt, std::vector<SweepOutcome>& o)
      : runs(r), o(opt), out(o) {}
  const std::vector<SweepRun>& runs;
  const SweepOptions& o;
  std::vector<SweepOutcome>& out;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards done, error
  std::condition_variable changed;
  size_t done = 0;
  std::exception_ptr error;

  void work() {
    for (size_t i = next++; i < runs.size() && !stop; i = next++) {
      try {
        out[i] = run_one(runs[i], o.record, o.forces);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++done;
      changed.notify_all();
    }
  }

  // on the calling thread: progress until every worker has finished.  An exception from
  // the progress callback stops the sweep like one from a run (the workers are joined
  // first: a thread is never left running).
  void wait(std::vector<std::thread>& workers) {
    using namespace std::chrono_literals;
    std::unique_lock<std::mutex> lock(mutex);
    while (done < runs.size() && !stop) {
      if (changed.wait_for(lock, 100ms, [&] { return done >= runs.size() || stop; })) break;
      if (!o.progress) continue;
      const size_t d = done;
      lock.unlock();
      const bool go_on = report(d);
      lock.lock();
      if (!go_on) stop = true;
    }
    lock.unlock();
    for (std::thread& w : workers) w.join();
    if (!error && !stop && o.progress) report(done);
  }

  bool report(size_t d) {
    try {
      return o.progress(d, runs.size());
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
      stop = true;
      return false;
    }
  }
};

}  // namespace

std::vector<SweepOutcome> sweep(const std::vector<SweepRun>& runs, const SweepOptions& o) {
  check_runs(runs);
  std::vector<SweepOutcome> out(runs.size());
  if (runs.empty()) return out;
  int threads = o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min<int>(threads, static_cast<int>(runs.size())));
  Pool pool(runs, o, out);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (int k = 0; k < threads; ++k) workers.emplace_back([&pool] { pool.work(); });
  pool.wait(workers);
  if (pool.error) std::rethrow_exception(pool.error);
  return out;
}

}  // namespace appell
