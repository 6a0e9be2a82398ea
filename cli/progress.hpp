// A progress bar on a terminal's stderr, redrawn at most 10 times a second.  Each redraw
// returns to the start of the line and clears its rest (a shorter line leaves nothing
// behind), and the line fits the terminal's width, so it never wraps.
#pragma once

#include <chrono>
#include <string>

namespace appell::cli {

class Progress {
 public:
  Progress(bool enabled, double duration) : on_(enabled), T_(duration) {}
  void update(double t);
  void finish();
  // the line for fraction f of the run at time t, at most columns − 1 characters
  static std::string line(double f, double t, int columns);

 private:
  bool on_;
  double T_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace appell::cli
