// sweep() (appell/sweep.hpp): a pool of worker threads takes runs one at a time from a
// shared counter (making each when it takes it, in the lazy form); the calling thread
// waits, reporting progress, or does the runs itself when no worker could start.  Outcomes are
// written to their own slots, so no lock is held while a simulation runs.
#include "appell/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

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
  check_figures(out.summary, out.result);
  out.ran = true;
  return out;
}

namespace {

std::invalid_argument bad_run(size_t i, const std::string& why) {
  return std::invalid_argument("sweep(): run " + std::to_string(i) + why);
}

// a run is checked before it starts: a bad one is the caller's mistake
void check_run(const SweepRun& run, size_t i) {
  if (!run.model) throw bad_run(i, " has no model");
  try {
    Simulation probe(*run.model, run.options);
  } catch (const std::invalid_argument& e) {
    throw bad_run(i, std::string(": ") + e.what());
  }
}

struct Pool {
  Pool(size_t n, std::function<SweepOutcome(size_t)> r, const SweepOptions& opt,
       std::vector<SweepOutcome>& o)
      : count(n), run(std::move(r)), o(opt), out(o) {}
  const size_t count;
  const std::function<SweepOutcome(size_t)> run;  // run i, on the thread that takes it
  const SweepOptions& o;
  std::vector<SweepOutcome>& out;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards done, error
  std::condition_variable changed;
  size_t done = 0;
  std::exception_ptr error;

  // takes runs until none is left; `here`: on the calling thread (no worker started), so
  // progress is reported between runs
  void work(bool here = false) {
    for (size_t i = next++; i < count && !stop; i = next++) {
      try {
        out[i] = run(i);
      } catch (...) {
        fail(std::current_exception());
      }
      std::unique_lock<std::mutex> lock(mutex);
      const size_t d = ++done;
      changed.notify_all();
      lock.unlock();
      if (here && o.progress && !stop && d < count && !report(d)) stop = true;
    }
  }

  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!error) error = e;
    stop = true;
  }

  // starts up to `wanted` workers; those that cannot start are not waited for
  void start(int wanted, std::vector<std::thread>& workers) {
    std::string why;
    workers.reserve(wanted);
    for (int k = 0; k < wanted; ++k) {
      const std::function<void()> job = [this] { work(); };
      try {
        std::thread t = o.start_thread ? o.start_thread(job) : std::thread(job);
        if (!t.joinable())
          throw std::system_error(std::make_error_code(std::errc::invalid_argument),
                                  "start_thread returned no thread");
        workers.push_back(std::move(t));
      } catch (const std::system_error& e) {
        why = e.what();
        break;
      } catch (...) {  // anything else from the hook stops the sweep (workers joined)
        fail(std::current_exception());
        return;
      }
    }
    const int started = static_cast<int>(workers.size());
    if (started == wanted || !o.fewer_threads) return;
    try {
      o.fewer_threads(started, wanted, why);
    } catch (...) {
      fail(std::current_exception());
    }
  }

  // on the calling thread: progress until every worker has finished.  An exception from
  // the progress callback stops the sweep like one from a run (the workers are joined
  // first: a thread is never left running).
  void wait(std::vector<std::thread>& workers) {
    using namespace std::chrono_literals;
    if (workers.empty()) work(true);
    std::unique_lock<std::mutex> lock(mutex);
    while (done < count && !stop) {
      if (changed.wait_for(lock, 100ms, [&] { return done >= count || stop; })) break;
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
      return o.progress(d, count);
    } catch (...) {
      fail(std::current_exception());
      return false;
    }
  }
};

std::vector<SweepOutcome> run_pool(size_t count, std::function<SweepOutcome(size_t)> run,
                                   const SweepOptions& o) {
  std::vector<SweepOutcome> out(count);
  if (count == 0) return out;
  const int threads =
      o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  const int wanted = static_cast<int>(
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), count)));
  Pool pool(count, std::move(run), o, out);
  std::vector<std::thread> workers;
  pool.start(wanted, workers);
  pool.wait(workers);
  if (pool.error) std::rethrow_exception(pool.error);
  return out;
}

}  // namespace

std::vector<SweepOutcome> sweep(const std::vector<SweepRun>& runs, const SweepOptions& o) {
  for (size_t i = 0; i < runs.size(); ++i) check_run(runs[i], i);
  return run_pool(
      runs.size(), [&](size_t i) { return run_one(runs[i], o.record, o.forces); }, o);
}

std::vector<SweepOutcome> sweep(size_t count, const std::function<SweepRun(size_t)>& make_run,
                                const SweepOptions& o) {
  return run_pool(
      count,
      [&](size_t i) {
        const SweepRun run = make_run(i);
        check_run(run, i);
        return run_one(run, o.record, o.forces);
      },
      o);
}

}  // namespace appell
