// The ratio tables: a console reporter that also keeps every benchmark's CPU time per
// iteration and counters; after the run engines_bench prints, per chain length n, the ratios
// between benchmarks of that run (README, Benchmarks), contact_bench one row per scene with
// both engines' times, ratio and contacts (run_with_pairs); both write them with the raw
// times as JSON when asked (--ratios_out=FILE).  A benchmark whose iteration is a whole run of many
// steps (counter steps_per_iteration, bench/simulate_command.cpp) is kept as wall time per step.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace appell::bench {

class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      // "BM_X/n", without "/real_time", "/iterations:N" or "/min_time:T"
      std::string name = r.benchmark_name();
      for (const char* suffix : {"/real_time", "/iterations:", "/min_time:"})
        if (const size_t at = name.find(suffix); at != std::string::npos) name.erase(at);
      if (r.error_occurred) errors_[name] = r.error_message;
      if (!r.error_occurred && r.run_type == Run::RT_Iteration && r.iterations > 0) {
        const auto steps = r.counters.find("steps_per_iteration");
        for (const auto& [key, counter] : r.counters) counters_[name][key] = counter.value;
        const double ns = steps == r.counters.end()
                              ? 1e9 * r.cpu_accumulated_time / static_cast<double>(r.iterations)
                              : 1e9 * r.real_accumulated_time / static_cast<double>(r.iterations) /
                                    steps->second.value;
        // repeated (--benchmark_repetitions): the fastest run, the one least disturbed by
        // other work on the machine
        const auto it = ns_.find(name);
        ns_[name] = it == ns_.end() ? ns : std::min(it->second, ns);
      }
    }
  }
  // CPU ns per iteration of "BM_X/n" (n < 0: of "BM_X"; wall ns per step for whole runs), or
  // 0 when it did not run
  double ns(const std::string& name, int n) const {
    const auto it = ns_.find(n < 0 ? name : name + "/" + std::to_string(n));
    return it == ns_.end() ? 0.0 : it->second;
  }
  const std::map<std::string, double>& all() const { return ns_; }
  // a counter of "BM_X/..." (its name without suffixes), or NaN when it did not run
  double counter(const std::string& name, const std::string& key) const {
    const auto it = counters_.find(name);
    if (it == counters_.end()) return std::nan("");
    const auto c = it->second.find(key);
    return c == it->second.end() ? std::nan("") : c->second;
  }
  const std::map<std::string, std::map<std::string, double>>& counters() const { return counters_; }
  // why "BM_X/..." was skipped, or "" when it ran
  std::string error(const std::string& name) const {
    const auto it = errors_.find(name);
    return it == errors_.end() ? "" : it->second;
  }

 private:
  std::map<std::string, double> ns_;
  std::map<std::string, std::map<std::string, double>> counters_;
  std::map<std::string, std::string> errors_;
};

// A ratio a / (k b) of two benchmarks at the same n; absent (null) when either is missing.
struct Ratio {
  const char* name;
  const char* numerator;
  const char* denominator;
  double k;
};

inline nlohmann::ordered_json ratio_table(const CollectingReporter& rep,
                                          const std::vector<Ratio>& ratios,
                                          const std::vector<int>& sizes) {
  nlohmann::ordered_json table = nlohmann::ordered_json::object();
  for (int n : sizes) {
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (const Ratio& r : ratios) {
      const double a = rep.ns(r.numerator, n), b = rep.ns(r.denominator, n);
      row[r.name] = a > 0 && b > 0 ? nlohmann::ordered_json(a / (r.k * b)) : nullptr;
    }
    table[std::to_string(n)] = row;
  }
  return table;
}

inline void print_ratio_table(const nlohmann::ordered_json& table,
                              const std::vector<Ratio>& ratios) {
  std::printf("\nratios of CPU time per iteration, one run\n%-6s", "n");
  for (const Ratio& r : ratios) std::printf(" %22s", r.name);
  std::printf("\n");
  for (const auto& [n, row] : table.items()) {
    std::printf("%-6s", n.c_str());
    for (const Ratio& r : ratios) {
      const auto& v = row[r.name];
      if (v.is_null())
        std::printf(" %22s", "-");
      else
        std::printf(" %22.3f", v.get<double>());
    }
    std::printf("\n");
  }
}

// Runs the benchmarks of argv (less --ratios_out=FILE, returned in `out`) into `rep`; false
// on an unrecognized argument.
inline bool run_benchmarks(int argc, char** argv, CollectingReporter& rep, std::string& out) {
  std::vector<char*> rest;
  const std::string flag = "--ratios_out=";
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind(flag, 0) == 0)
      out = a.substr(flag.size());
    else
      rest.push_back(argv[i]);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return false;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return true;
}

inline int write_json(const std::string& out, const nlohmann::ordered_json& doc) {
  std::ofstream f(out);
  f << doc.dump(2) << "\n";
  if (!f) {
    std::fprintf(stderr, "error: cannot write '%s'\n", out.c_str());
    return 1;
  }
  std::printf("ratios and times written to %s\n", out.c_str());
  return 0;
}

// Runs the benchmarks of argv, prints the ratios, and writes them with the raw times to the
// file of --ratios_out=FILE when given.  The exit status of a main().
inline int run_with_ratios(int argc, char** argv, const std::vector<Ratio>& ratios,
                           const std::vector<int>& sizes) {
  std::string out;
  CollectingReporter rep;
  if (!run_benchmarks(argc, argv, rep, out)) return 1;
  const nlohmann::ordered_json table = ratio_table(rep, ratios, sizes);
  print_ratio_table(table, ratios);
  if (out.empty()) return 0;
  nlohmann::ordered_json doc;
  doc["unit"] =
      "CPU nanoseconds per iteration (BM_SimulateCommand*: wall nanoseconds per step); ratios "
      "of times from this one run";
  doc["ratios"] = table;
  doc["cpu_ns"] = rep.all();
  return write_json(out, doc);
}

// One row of a two-engine table (bench/contact_bench.cpp): a scene, our benchmark and the
// other engine's, each an iteration per time step with the counters "contacts",
// "max_contacts" and "penetration" (and ours "iterations" and "residual": its contact
// solver's largest of a step).
struct PairRow {
  std::string scene, ours, theirs;
};

// Runs the benchmarks of argv and prints, per row, µs per iteration of each, the ratio ours /
// theirs, the contacts and the largest penetration each side (a skipped benchmark: its
// reason), our solver's largest iterations and residual of a step, then `flags` (how each
// side was compiled); writes the table with the raw times
// and counters to --ratios_out=FILE when given.  The exit status of a main().
inline int run_with_pairs(int argc, char** argv, const std::vector<PairRow>& rows,
                          const std::string& flags) {
  std::string out;
  CollectingReporter rep;
  if (!run_benchmarks(argc, argv, rep, out)) return 1;
  nlohmann::ordered_json table = nlohmann::ordered_json::object();
  std::printf(
      "\nCPU time per step (µs), one run (repeated: the fastest repetition); contacts: the most "
      "points kept at one step "
      "of the window; penetration: the largest (m); iter., residual: appell's contact solver, "
      "the largest of a step over the run\n");
  std::printf("%-16s %12s %12s %8s %10s %10s %10s %10s %6s %9s\n", "scene", "appell", "MuJoCo",
              "ratio", "contacts", "(MuJoCo)", "pen. m", "(MuJoCo)", "iter.", "residual");
  auto cell = [](double v) {
    return std::isnan(v) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v);
  };
  for (const PairRow& r : rows) {
    const double a = rep.ns(r.ours, -1), b = rep.ns(r.theirs, -1);
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    row["ours_us"] = a > 0 ? cell(a / 1e3) : nullptr;
    row["theirs_us"] = b > 0 ? cell(b / 1e3) : nullptr;
    row["ratio"] = a > 0 && b > 0 ? cell(a / b) : nullptr;
    for (const char* key : {"contacts", "max_contacts", "penetration"}) {
      row[std::string("ours_") + key] = cell(rep.counter(r.ours, key));
      row[std::string("theirs_") + key] = cell(rep.counter(r.theirs, key));
    }
    for (const char* key : {"iterations", "residual"})
      row[std::string("ours_") + key] = cell(rep.counter(r.ours, key));
    for (const auto& [side, name] : {std::pair{"ours_error", r.ours}, {"theirs_error", r.theirs}})
      if (const std::string e = rep.error(name); !e.empty()) row[side] = e;
    // a time, "skipped" (with its reason below the table), or "-" when filtered out
    auto us = [&rep](double ns, const std::string& name) {
      char t[32] = "-";
      if (ns > 0)
        std::snprintf(t, sizeof t, "%.2f", ns / 1e3);
      else if (!rep.error(name).empty())
        std::snprintf(t, sizeof t, "skipped");
      return std::string(t);
    };
    auto fmt = [](const char* f, double v) {
      char t[32] = "-";
      if (!std::isnan(v)) std::snprintf(t, sizeof t, f, v);
      return std::string(t);
    };
    std::printf("%-16s %12s %12s %8s %10s %10s %10s %10s %6s %9s\n", r.scene.c_str(),
                us(a, r.ours).c_str(), us(b, r.theirs).c_str(),
                fmt("%.2f", a > 0 && b > 0 ? a / b : std::nan("")).c_str(),
                fmt("%.0f", rep.counter(r.ours, "max_contacts")).c_str(),
                fmt("%.0f", rep.counter(r.theirs, "max_contacts")).c_str(),
                fmt("%.1e", rep.counter(r.ours, "penetration")).c_str(),
                fmt("%.1e", rep.counter(r.theirs, "penetration")).c_str(),
                fmt("%.0f", rep.counter(r.ours, "iterations")).c_str(),
                fmt("%.1e", rep.counter(r.ours, "residual")).c_str());
    table[r.scene] = row;
  }
  for (const PairRow& r : rows)
    for (const std::string& name : {r.ours, r.theirs})
      if (const std::string e = rep.error(name); !e.empty())
        std::printf("skipped %s: %s\n", name.c_str(), e.c_str());
  std::printf("\ncompiled with\n%s\n", flags.c_str());
  if (out.empty()) return 0;
  nlohmann::ordered_json doc;
  doc["unit"] = "CPU microseconds per time step; ratios of times from this one run";
  doc["flags"] = flags;
  doc["scenes"] = table;
  doc["cpu_ns"] = rep.all();
  doc["counters"] = rep.counters();
  return write_json(out, doc);
}

}  // namespace appell::bench
