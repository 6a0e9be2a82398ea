// Numbers as text, byte for byte as C's printf("%.17g") writes them: 17 significant digits,
// enough for every double to read back to itself.  traj.csv, forces.csv and the Python
// module's Result.to_csv all use this form (README, Command line), so files written by either
// are identical.  Formatting goes into the caller's buffer; nothing is printed.
//
// The digits are the exactly rounded (ties to even, as glibc rounds) leading 17 digits of the
// double's binary value, computed with integer arithmetic for magnitudes from about 1e-70 to
// 1e18 (every number a simulation writes in practice) and by std::to_chars elsewhere
// (subnormals, huge values, infinities, NaN), which gives the same bytes more slowly.
#pragma once

#include <cstddef>
#include <vector>

namespace appell {

// the longest "%.17g" text of a double: "-1.2345678901234567e-308"
constexpr std::size_t kG17MaxChars = 24;

// Writes v at `out`, which has room for kG17MaxChars characters, as "%.17g" would (no
// terminating NUL); returns the end of what was written.
char* format_g17(double v, char* out);

// room a CSV row of n values needs: n numbers, n − 1 commas and a newline
constexpr std::size_t csv_row_capacity(std::size_t n) {
  return n * (kG17MaxChars + 1) + 1;
}

// Writes the n values comma-separated and a newline at `out` (room for csv_row_capacity(n));
// returns the end.
char* format_csv_row(const double* values, std::size_t n, char* out);

// One CSV row at a time into a buffer that grows once and is reused.
class CsvRowBuffer {
 public:
  // the row of `values`; valid until the next call
  const char* format(const std::vector<double>& values) {
    if (buffer_.size() < csv_row_capacity(values.size()))
      buffer_.resize(csv_row_capacity(values.size()));
    end_ = format_csv_row(values.data(), values.size(), buffer_.data());
    return buffer_.data();
  }
  const char* data() const { return buffer_.data(); }
  std::size_t size() const { return static_cast<std::size_t>(end_ - buffer_.data()); }

 private:
  std::vector<char> buffer_;
  const char* end_ = nullptr;
};

}  // namespace appell
