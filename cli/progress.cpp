#include "cli/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace appell::cli {

namespace {

// the terminal's width in columns (80 when it cannot be asked)
int terminal_columns() {
  winsize w{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

}  // namespace

std::string Progress::line(double f, double t, int columns) {
  char tail[64];
  std::snprintf(tail, sizeof tail, " %3d%%  t = %.4g s", static_cast<int>(100 * f), t);
  // the bar takes what the text leaves, at most 40 columns; one column stays free so that
  // the cursor never wraps
  const int room = columns - 1 - static_cast<int>(std::string(tail).size()) - 2;
  const int width = std::min(40, room);
  std::string s;
  if (width >= 5) {
    const int fill = static_cast<int>(f * width);
    s = "[" + std::string(fill, '=') + std::string(width - fill, ' ') + "]";
  }
  s += tail;
  if (static_cast<int>(s.size()) > columns - 1) s.resize(std::max(0, columns - 1));
  return s;
}

void Progress::update(double t) {
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  const double f = T_ > 0 ? std::clamp(t / T_, 0.0, 1.0) : 1.0;
  // back to the start of the line, the line, and clear what an older, longer line left
  std::fprintf(stderr, "\r%s\033[K", line(f, t, terminal_columns()).c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (on_ && drawn_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace appell::cli
