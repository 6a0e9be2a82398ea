// The ratio table of engines_bench: a console reporter that also keeps every benchmark's CPU
// time per iteration, and after the run prints, per chain length n, the ratios between
// benchmarks of that run (README, Benchmarks), and writes them with the raw times as JSON
// when asked (--ratios_out=FILE).  A benchmark whose iteration is a whole run of many steps
// (counter steps_per_iteration, bench/simulate_command.cpp) is kept as wall time per step.
#pragma once

#include <benchmark/benchmark.h>

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
    for (const Run& r : runs)
      if (!r.error_occurred && r.run_type == Run::RT_Iteration && r.iterations > 0) {
        const auto steps = r.counters.find("steps_per_iteration");
        std::string name = r.benchmark_name();  // "BM_X/n", without "/real_time"
        if (const size_t at = name.find("/real_time"); at != std::string::npos) name.erase(at);
        ns_[name] = steps == r.counters.end()
                        ? 1e9 * r.cpu_accumulated_time / static_cast<double>(r.iterations)
                        : 1e9 * r.real_accumulated_time / static_cast<double>(r.iterations) /
                              steps->second.value;
      }
  }
  // CPU ns per iteration of "BM_X/n" (wall ns per step for whole runs), or 0 when it did not run
  double ns(const std::string& name, int n) const {
    const auto it = ns_.find(name + "/" + std::to_string(n));
    return it == ns_.end() ? 0.0 : it->second;
  }
  const std::map<std::string, double>& all() const { return ns_; }

 private:
  std::map<std::string, double> ns_;
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

// Runs the benchmarks of argv, prints the ratios, and writes them with the raw times to the
// file of --ratios_out=FILE when given.  The exit status of a main().
inline int run_with_ratios(int argc, char** argv, const std::vector<Ratio>& ratios,
                           const std::vector<int>& sizes) {
  std::string out;
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
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  CollectingReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  const nlohmann::ordered_json table = ratio_table(rep, ratios, sizes);
  print_ratio_table(table, ratios);
  if (out.empty()) return 0;
  nlohmann::ordered_json doc;
  doc["unit"] =
      "CPU nanoseconds per iteration (BM_SimulateCommand*: wall nanoseconds per step); ratios "
      "of times from this one run";
  doc["ratios"] = table;
  doc["cpu_ns"] = rep.all();
  std::ofstream f(out);
  f << doc.dump(2) << "\n";
  if (!f) {
    std::fprintf(stderr, "error: cannot write '%s'\n", out.c_str());
    return 1;
  }
  std::printf("ratios and times written to %s\n", out.c_str());
  return 0;
}

}  // namespace appell::bench
