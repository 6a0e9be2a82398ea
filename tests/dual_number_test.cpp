// Dual numbers (bodies/dual_number.hpp): first derivatives of every elementary function,
// and second derivatives through a dual of duals, against their closed forms; and the
// expression tape swept in nested duals (constraints/expression_scalar.hpp) against the
// same closed forms.
#include "bodies/dual_number.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "appell/expression.hpp"
#include "constraints/expression_scalar.hpp"

namespace appell {
namespace {

using D = DualNumber<1>;
using DD = DualNumber<1, DualNumber<1>>;

// f(x), f'(x), f''(x) of x seeded in both levels: x + ε + δ
struct Case {
  const char* name;
  std::function<DD(const DD&)> f;
  std::function<double(double)> f0, f1, f2;
  double x;
};

TEST(DualNumber, NestedDualsCarryExactSecondDerivatives) {
  const Case cases[] = {
      {"sin", [](const DD& a) { return sin(a); }, [](double x) { return std::sin(x); },
       [](double x) { return std::cos(x); }, [](double x) { return -std::sin(x); }, 0.7},
      {"cos", [](const DD& a) { return cos(a); }, [](double x) { return std::cos(x); },
       [](double x) { return -std::sin(x); }, [](double x) { return -std::cos(x); }, 0.7},
      {"tan", [](const DD& a) { return tan(a); }, [](double x) { return std::tan(x); },
       [](double x) { return 1 / (std::cos(x) * std::cos(x)); },
       [](double x) { return 2 * std::tan(x) / (std::cos(x) * std::cos(x)); }, 0.4},
      {"sqrt", [](const DD& a) { return sqrt(a); }, [](double x) { return std::sqrt(x); },
       [](double x) { return 0.5 / std::sqrt(x); },
       [](double x) { return -0.25 / (x * std::sqrt(x)); }, 1.7},
      {"asin", [](const DD& a) { return asin(a); }, [](double x) { return std::asin(x); },
       [](double x) { return 1 / std::sqrt(1 - x * x); },
       [](double x) { return x / std::pow(1 - x * x, 1.5); }, 0.3},
      {"acos", [](const DD& a) { return acos(a); }, [](double x) { return std::acos(x); },
       [](double x) { return -1 / std::sqrt(1 - x * x); },
       [](double x) { return -x / std::pow(1 - x * x, 1.5); }, -0.6},
      {"atan", [](const DD& a) { return atan(a); }, [](double x) { return std::atan(x); },
       [](double x) { return 1 / (1 + x * x); },
       [](double x) { return -2 * x / ((1 + x * x) * (1 + x * x)); }, 1.3},
      {"sinh", [](const DD& a) { return sinh(a); }, [](double x) { return std::sinh(x); },
       [](double x) { return std::cosh(x); }, [](double x) { return std::sinh(x); }, 0.9},
      {"cosh", [](const DD& a) { return cosh(a); }, [](double x) { return std::cosh(x); },
       [](double x) { return std::sinh(x); }, [](double x) { return std::cosh(x); }, -0.9},
      {"tanh", [](const DD& a) { return tanh(a); }, [](double x) { return std::tanh(x); },
       [](double x) { return 1 / (std::cosh(x) * std::cosh(x)); },
       [](double x) { return -2 * std::tanh(x) / (std::cosh(x) * std::cosh(x)); }, 0.5},
      {"exp", [](const DD& a) { return exp(a); }, [](double x) { return std::exp(x); },
       [](double x) { return std::exp(x); }, [](double x) { return std::exp(x); }, 0.2},
      {"log", [](const DD& a) { return log(a); }, [](double x) { return std::log(x); },
       [](double x) { return 1 / x; }, [](double x) { return -1 / (x * x); }, 2.5},
      {"x^3.5", [](const DD& a) { return pow(a, 3.5); }, [](double x) { return std::pow(x, 3.5); },
       [](double x) { return 3.5 * std::pow(x, 2.5); },
       [](double x) { return 8.75 * std::pow(x, 1.5); }, 1.1},
      {"x^x", [](const DD& a) { return pow(a, a); }, [](double x) { return std::pow(x, x); },
       [](double x) { return std::pow(x, x) * (std::log(x) + 1); },
       [](double x) {
         const double l = std::log(x) + 1;
         return std::pow(x, x) * (l * l + 1 / x);
       },
       1.4},
      {"atan2(x, 2 - x)", [](const DD& a) { return atan2(a, DD(2.0) - a); },
       [](double x) { return std::atan2(x, 2 - x); },
       [](double x) { return 2 / (x * x + (2 - x) * (2 - x)); },
       [](double x) {
         const double r = x * x + (2 - x) * (2 - x);
         return -2 * (4 * x - 4) / (r * r);
       },
       0.3},
      {"1/x", [](const DD& a) { return 1.0 / a; }, [](double x) { return 1 / x; },
       [](double x) { return -1 / (x * x); }, [](double x) { return 2 / (x * x * x); }, 0.8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    DD x(D(c.x, {1.0}));
    x.d[0] = D(1.0);
    const DD r = c.f(x);
    EXPECT_NEAR(r.v.v, c.f0(c.x), 1e-14);
    EXPECT_NEAR(r.v.d[0], c.f1(c.x), 1e-13);
    EXPECT_NEAR(r.d[0].v, c.f1(c.x), 1e-13);
    EXPECT_NEAR(r.d[0].d[0], c.f2(c.x), 1e-12);
  }
}

// The tape of "q(a)^2*sin(q(b)) + exp(q(a)*q(b))" swept in DualNumber<1, DualNumber<2>>:
// the Hessian in (a, b) equals the closed form.
TEST(DualNumber, ExpressionTapeInNestedDualsGivesTheHessian) {
  const Expression e = Expression::parse(
      "q(a)^2*sin(q(b)) + exp(q(a)*q(b))", {},
      [](const std::string&) { return Expression::BodyInfo{}; }, nullptr,
      [](const std::string& n) { return n == "a"   ? 0
                                        : n == "b" ? 1
                                                   : -1; });
  ASSERT_EQ(e.variables().size(), 2u);
  const double a = 0.6, b = -1.1;
  using T = DualNumber<1, DualNumber<2>>;
  for (int i = 0; i < 2; ++i) {
    T x[2], w[16];
    ASSERT_LE(e.size(), 16);
    for (int k = 0; k < 2; ++k) {
      const int var = e.variables()[k].axis;
      DualNumber<2> inner(var == 0 ? a : b);
      inner.d[var] = 1.0;
      x[k] = T(inner);
      if (var == i) x[k].d[0] = DualNumber<2>(1.0);
    }
    const T r = e.value_as(x, w);
    const double E = std::exp(a * b);
    const double H[2][2] = {
        {2 * std::sin(b) + b * b * E, 2 * a * std::cos(b) + E + a * b * E},
        {2 * a * std::cos(b) + E + a * b * E, -a * a * std::sin(b) + a * a * E}};
    EXPECT_NEAR(r.v.v, a * a * std::sin(b) + E, 1e-14);
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(r.d[0].d[j], H[i][j], 1e-13);
  }
}

}  // namespace
}  // namespace appell
