// "%.17g" without printf (appell/number_format.hpp).
//
// A finite double is x = m·2^e (m < 2^53).  With E′ = ⌊log10 2^p⌋, p the position of m's
// leading bit plus e, the decimal exponent E of x is E′ or E′ + 1, so
//   Q = ⌊x·10^s⌋,  s = 16 − E′,  computed as  (m·5^s) · 2^(e+s)
// has 17 or 18 digits, and the bits shifted out say exactly whether the rest is below,
// at, or above one half of the last digit.  An 18th digit is folded into that verdict; the
// 17 digits are then rounded to nearest, ties to even, and laid out by the C standard's %g
// rule: fixed notation when −4 ≤ E < 17, else d.ddd…e±XX; trailing zeros removed.
// m·5^s fits 128 bits for s ≤ 27 (x above about 1e-11) and four 64-bit words for s ≤ 87.
#include "appell/number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace appell {

namespace {

using u64 = std::uint64_t;
__extension__ typedef unsigned __int128 u128;

constexpr u64 kPow10_16 = 10000000000000000ULL, kPow10_17 = 100000000000000000ULL,
              kPow10_18 = 1000000000000000000ULL;

// 5^0 … 5^27, the powers of 5 below 2^64
struct Pow5 {
  u64 p[28];
  constexpr Pow5() : p() {
    p[0] = 1;
    for (int i = 1; i < 28; ++i) p[i] = 5 * p[i - 1];
  }
};
constexpr Pow5 kPow5;

// where the discarded part of x·10^s lies, in units of the last kept digit
enum class Rest { Zero, Below, Half, Above };

Rest rest_of(bool half_bit, bool lower_bits) {
  if (half_bit) return lower_bits ? Rest::Above : Rest::Half;
  return lower_bits ? Rest::Below : Rest::Zero;
}

// Q = ⌊P / 2^k⌋ of P = m·5^s (s ≤ 27) in 128 bits
bool shift128(u128 P, int k, u64& Q, Rest& rest) {
  if (k <= 0) {
    if (-k >= 64 || (P >> (64 + k)) != 0) return false;  // Q would not fit 64 bits
    Q = static_cast<u64>(P) << -k;
    rest = Rest::Zero;
    return true;
  }
  if (k >= 128) return false;
  Q = static_cast<u64>(P >> k);
  const u128 low = P & ((static_cast<u128>(1) << (k - 1)) - 1);
  rest = rest_of((P >> (k - 1)) & 1, low != 0);
  return true;
}

// the same for s ≤ 87 in four 64-bit words (x·10^s < 2^60: Q sits in two of them)
bool shift256(u64 m, int s, int k, u64& Q, Rest& rest) {
  if (k <= 0 || k >= 256) return false;
  u64 w[4] = {m, 0, 0, 0};
  while (s > 0) {
    const int step = s < 27 ? s : 27;
    const u64 f = kPow5.p[step];
    u128 carry = 0;
    for (u64& word : w) {
      const u128 p = static_cast<u128>(word) * f + carry;
      word = static_cast<u64>(p);
      carry = p >> 64;
    }
    s -= step;
  }
  auto bit = [&w](int i) { return (w[i / 64] >> (i % 64)) & 1; };
  const int limb = k / 64, off = k % 64;
  Q = w[limb] >> off;
  if (off && limb + 1 < 4) Q |= w[limb + 1] << (64 - off);
  bool lower = false;
  for (int i = 0; i < (k - 1) / 64 && !lower; ++i) lower = w[i] != 0;
  const int b = (k - 1) % 64;
  if (!lower && b > 0) lower = (w[(k - 1) / 64] & ((u64{1} << b) - 1)) != 0;
  rest = rest_of(bit(k - 1), lower);
  return true;
}

// The exactly rounded 17 digits D (10^16 ≤ D < 10^17) and decimal exponent E of
// x = m·2^e, m > 0; false when x is outside the range handled here.
bool digits17(u64 m, int e, u64& D, int& E) {
  const int p = 63 - __builtin_clzll(m) + e;  // 2^p ≤ x < 2^(p+1)
  const int E0 = static_cast<int>(std::floor(p * 0.30102999566398120));
  const int s = 16 - E0;
  if (s < 0 || s > 87) return false;
  u64 Q;
  Rest rest;
  const bool ok = s <= 27 ? shift128(static_cast<u128>(m) * kPow5.p[s], -(e + s), Q, rest)
                          : shift256(m, s, -(e + s), Q, rest);
  if (!ok || Q < kPow10_16 || Q >= kPow10_18) return false;
  E = E0;
  if (Q >= kPow10_17) {  // 18 digits: the last one joins the rest
    const u64 r = Q % 10;
    Q /= 10;
    ++E;
    rest = r > 5    ? Rest::Above
           : r == 5 ? (rest == Rest::Zero ? Rest::Half : Rest::Above)
           : r > 0  ? Rest::Below
                    : (rest == Rest::Zero ? Rest::Zero : Rest::Below);
  }
  if (rest == Rest::Above || (rest == Rest::Half && (Q & 1))) ++Q;
  if (Q == kPow10_17) {
    Q = kPow10_16;
    ++E;
  }
  D = Q;
  return true;
}

constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// the 8 digits of v < 10^8 at d
void write8(u64 v, char* d) {
  for (int i = 6; i >= 0; i -= 2) {
    std::memcpy(d + i, kPairs + 2 * (v % 100), 2);
    v /= 100;
  }
}

// the 17 digits of D (10^16 ≤ D < 10^17) at d, as two independent halves
void write17(u64 D, char* d) {
  const u64 hi = D / 100000000, lo = D % 100000000;  // 9 and 8 digits
  d[0] = static_cast<char>('0' + hi / 100000000);
  write8(hi % 100000000, d + 1);
  write8(lo, d + 9);
}

// The %g layout of the 17 digits d (readable up to d[40]) and exponent E at t (room 48);
// returns the end.  Every copy has a fixed size, and bytes past the end are scratch.
char* layout(const char* d, int E, char* t) {
  int n = 17;
  while (n > 1 && d[n - 1] == '0') --n;  // %g drops trailing zeros
  if (E >= 0 && E < 17) {
    std::memcpy(t, d, 17);
    t += E + 1;
    if (n <= E + 1) return t;
    *t = '.';
    std::memcpy(t + 1, d + E + 1, 16);
    return t + 1 + (n - E - 1);
  }
  if (E < 0 && E >= -4) {
    std::memcpy(t, "0.000", 5);
    t += 2 + (-E - 1);
    std::memcpy(t, d, 17);
    return t + n;
  }
  t[0] = d[0];
  t[1] = '.';
  std::memcpy(t + 2, d + 1, 16);
  t += n > 1 ? n + 1 : 1;
  *t++ = 'e';
  *t++ = E < 0 ? '-' : '+';
  int a = E < 0 ? -E : E;
  if (a >= 100) {
    *t++ = static_cast<char>('0' + a / 100);
    a %= 100;
  }
  std::memcpy(t, kPairs + 2 * a, 2);
  return t + 2;
}

}  // namespace

char* format_g17(double v, char* out) {
  u64 bits;
  std::memcpy(&bits, &v, sizeof bits);
  const bool negative = bits >> 63;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const u64 fraction = bits & ((u64{1} << 52) - 1);
  if (biased == 0 && fraction == 0) {
    if (negative) *out++ = '-';
    *out++ = '0';
    return out;
  }
  u64 D;
  int E;
  if (biased == 0 || biased == 0x7ff || !digits17(fraction | (u64{1} << 52), biased - 1075, D, E))
    return std::to_chars(out, out + kG17MaxChars, v, std::chars_format::general, 17).ptr;
  char d[40] = {}, t[48];
  write17(D, d);
  t[0] = '-';
  const char* end = layout(d, E, t + negative);
  std::memcpy(out, t, kG17MaxChars);  // the text and scratch, within the caller's room
  return out + (end - t);
}

char* format_csv_row(const double* values, std::size_t n, char* out) {
  for (std::size_t i = 0; i < n; ++i) {
    if (i) *out++ = ',';
    out = format_g17(values[i], out);
  }
  *out++ = '\n';
  return out;
}

}  // namespace appell
