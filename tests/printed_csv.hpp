// traj.csv or forces.csv of a run kept in memory (appell/trajectory.hpp), every number
// printed by C's printf("%.17g"): what `appell simulate` must write, byte for byte
// (README, Command line), obtained without the program's own formatting.
#pragma once

#include <cstdio>
#include <string>

#include "appell/trajectory.hpp"

namespace appell::testing {

// forces = false: traj.csv (t to the joint states); true: forces.csv (t, then the rest)
inline std::string printed_csv(const Trajectory& tr, bool forces) {
  const size_t split = tr.traj_columns();
  const size_t first = forces ? split : 1, last = forces ? tr.cols() : split;
  std::string out = "t";
  for (size_t c = first; c < last; ++c) out += "," + tr.columns()[c];
  out += "\n";
  char buf[40];
  for (size_t row = 0; row < tr.rows(); ++row) {
    const double* v = tr.values().data() + row * tr.cols();
    std::snprintf(buf, sizeof buf, "%.17g", v[0]);
    out += buf;
    for (size_t c = first; c < last; ++c) {
      std::snprintf(buf, sizeof buf, ",%.17g", v[c]);
      out += buf;
    }
    out += "\n";
  }
  return out;
}

}  // namespace appell::testing
