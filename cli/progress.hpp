// A progress bar on a terminal's stderr, redrawn at most 10 times a second.
#pragma once

#include <chrono>

namespace appell::cli {

class Progress {
 public:
  Progress(bool enabled, double duration) : on_(enabled), T_(duration) {}
  void update(double t);
  void finish();

 private:
  bool on_;
  double T_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace appell::cli
