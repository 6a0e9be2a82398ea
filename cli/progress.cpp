#include "cli/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace appell::cli {

void Progress::update(double t) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  const double f = T_ > 0 ? std::min(1.0, t / T_) : 1.0;
  const int width = 40, fill = static_cast<int>(f * width);
  std::fprintf(stderr, "\r[%s%s] %3d%%  t = %.4g s", std::string(fill, '=').c_str(),
               std::string(width - fill, ' ').c_str(), static_cast<int>(100 * f), t);
  std::fflush(stderr);
}

void Progress::finish() {
  if (on_ && drawn_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace appell::cli
