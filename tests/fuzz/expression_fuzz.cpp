// libFuzzer target: bytes → Expression::parse → values, gradients and Taylor coefficients.
//
// Any text must either parse or throw ExpressionError with a column inside the text (or
// just past its end); evaluation of a parsed expression never crashes, and check_finite
// reports non-finite nodes as ExpressionError.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "appell/expression.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace appell;
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(bytes), size);
  const std::map<std::string, double> parameters{{"a", 0.3}, {"w", 2.0}};
  // two bodies: a particle p and a rigid body r
  const auto lookup = [](const std::string& name) {
    if (name == "p") return Expression::BodyInfo{0, false};
    if (name == "r") return Expression::BodyInfo{1, true};
    return Expression::BodyInfo{};
  };
  Expression e;
  try {
    e = Expression::parse(text, parameters, lookup);
  } catch (const ExpressionError& err) {
    if (err.column() < 1 || err.column() > static_cast<int>(size) + 1) __builtin_trap();
    return 0;
  }
  std::vector<BodyState> bodies(2);
  bodies[0].x = Vec3(0.1, -0.2, 0.3);
  bodies[0].v = Vec3(1.0, 0.5, -0.25);
  bodies[1].x = Vec3(-1.0, 2.0, 0.5);
  bodies[1].w = Vec3(0.3, 0.2, 0.1);
  std::vector<double> scratch(e.scratch_size(true));
  const StateView s{bodies.data(), 0.7, scratch.data(), scratch.size()};
  std::vector<double> gradient(e.variables().size());
  e.value(s);
  e.evaluate(s, gradient.data(), true);
  try {
    e.check_finite(s, "at t = 0.7");
  } catch (const ExpressionError&) {
  }
  return 0;
}
