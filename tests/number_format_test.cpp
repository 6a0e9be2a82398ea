// format_g17 (appell/number_format.hpp) against the C library's printf("%.17g") on a spread
// of doubles, and every text read back (strtod) to the same bits.
#include <gtest/gtest.h>

#include <appell/number_format.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

std::string printf_g17(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string ours(double v) {
  char buf[appell::kG17MaxChars];
  return std::string(buf, appell::format_g17(v, buf));
}

double from_bits(std::uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// equal to printf's bytes, and (finite) strtod gives the same bits back
void expect_same(double v) {
  const std::string s = ours(v);
  ASSERT_EQ(s, printf_g17(v)) << "bits " << std::hex << bits_of(v);
  if (std::isfinite(v)) {
    ASSERT_EQ(bits_of(std::strtod(s.c_str(), nullptr)), bits_of(v)) << s;
  }
}

TEST(NumberFormat, SpecialValues) {
  using L = std::numeric_limits<double>;
  for (double v : {0.0,
                   -0.0,
                   1.0,
                   -1.0,
                   0.1,
                   -0.1,
                   1.0 / 3.0,
                   2.0 / 3.0,
                   0.5,
                   1e-4,
                   9.9999e-5,
                   1e16,
                   1e17,
                   9.9999999999999999e16,
                   123456789012345678.0,
                   L::max(),
                   -L::max(),
                   L::min(),
                   L::denorm_min(),
                   -L::denorm_min(),
                   4.9406564584124654e-320,
                   L::epsilon(),
                   1e300,
                   -1e300,
                   1e-300,
                   1e-100,
                   1e100,
                   1e-70,
                   1e-71,
                   1e18,
                   1e19,
                   L::infinity(),
                   -L::infinity(),
                   M_PI,
                   1e22,
                   1e23,
                   9007199254740993.0})
    expect_same(v);
  EXPECT_EQ(ours(L::quiet_NaN()), printf_g17(L::quiet_NaN()));
  EXPECT_EQ(ours(-L::quiet_NaN()), printf_g17(-L::quiet_NaN()));
}

// Exact ties at the 17th digit round to even, as glibc does: x = odd/4 near 1e15 has 18
// significant digits ending in 5.
TEST(NumberFormat, TiesRoundToEven) {
  EXPECT_EQ(ours(1000000000000000.25), "1000000000000000.2");
  EXPECT_EQ(ours(1000000000000000.75), "1000000000000000.8");
  for (std::uint64_t odd = 4000000000000001; odd < 4000000000000401; odd += 2)
    expect_same(static_cast<double>(odd) / 4.0);
}

TEST(NumberFormat, IntegersAndPowers) {
  for (int k = -330; k <= 310; ++k) {
    expect_same(std::pow(10.0, k));
    expect_same(std::nextafter(std::pow(10.0, k), 0.0));
    expect_same(std::nextafter(std::pow(10.0, k), 1e308));
  }
  for (int k = -1074; k <= 1023; ++k) expect_same(std::ldexp(1.0, k));
  for (long long i = -2000; i <= 2000; ++i) expect_same(static_cast<double>(i));
  for (long long i = 1; i < (1LL << 62); i = i * 3 + 1) expect_same(static_cast<double>(i));
}

TEST(NumberFormat, RandomBitsAndRandomMagnitudes) {
  std::mt19937_64 gen(20240611);
  for (int i = 0; i < 300000; ++i) {
    const double v = from_bits(gen());
    if (!std::isnan(v)) expect_same(v);
  }
  std::uniform_real_distribution<double> exponent(-80.0, 25.0), mantissa(-10.0, 10.0);
  for (int i = 0; i < 300000; ++i) expect_same(mantissa(gen) * std::pow(10.0, exponent(gen)));
  for (int i = 0; i < 10000; ++i)  // subnormals
    expect_same(from_bits(gen() & ((std::uint64_t{1} << 52) - 1)));
}

TEST(NumberFormat, CsvRowIsCommaSeparatedWithNewline) {
  const std::vector<double> row = {0.0, -1.5, 0.1, 1e-300, 2.0 / 3.0};
  std::string expected;
  for (size_t i = 0; i < row.size(); ++i) expected += (i ? "," : "") + printf_g17(row[i]);
  expected += "\n";
  appell::CsvRowBuffer buffer;
  buffer.format(row);
  EXPECT_EQ(std::string(buffer.data(), buffer.size()), expected);
  buffer.format({7.0});  // reused, shorter
  EXPECT_EQ(std::string(buffer.data(), buffer.size()), "7\n");
  EXPECT_EQ(buffer.format({}), buffer.data());
  EXPECT_EQ(std::string(buffer.data(), buffer.size()), "\n");
}

}  // namespace
