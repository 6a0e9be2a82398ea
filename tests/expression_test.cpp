// The expression language: grammar, exact derivatives (E1–E3, X1–X2), located errors
// and evaluation without allocation.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <vector>

// Counts every allocation of the test binary, to check that evaluation allocates nothing.
static std::atomic<long> g_allocations{0};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#pragma GCC diagnostic pop

#include "engine/assembly/stages.hpp"
#include "maximal_formulations.hpp"

namespace {

using appell::testing::maximal_formulations;

using appell::Expression;
using appell::Vec3;

// one particle "p" (index 0) and one rigid body "r" (index 1)
Expression::BodyInfo lookup(const std::string& name) {
  Expression::BodyInfo b;
  if (name == "p") b = {0, false};
  if (name == "r") b = {1, true};
  return b;
}

Expression parse(const std::string& text, const std::map<std::string, double>& params = {}) {
  return Expression::parse(text, params, lookup);
}

double eval(const std::string& text) {
  appell::BodyState s[2];
  return parse(text).value(appell::StateView{s, 0.0});
}

TEST(Expression, PrecedenceAndAssociativity) {
  EXPECT_DOUBLE_EQ(eval("-2^2"), -4.0);
  EXPECT_DOUBLE_EQ(eval("2^3^2"), 512.0);
  EXPECT_DOUBLE_EQ(eval("1 - 2 - 3"), -4.0);
  EXPECT_DOUBLE_EQ(eval("8/2/2"), 2.0);
  EXPECT_DOUBLE_EQ(eval("2*3 + 4*5"), 26.0);
  EXPECT_DOUBLE_EQ(eval("2^-1"), 0.5);
  EXPECT_DOUBLE_EQ(eval("(1 + 2) * -3"), -9.0);
  EXPECT_DOUBLE_EQ(eval("pow(2, 10) + max(1, 2) - min(1, 2) + abs(-3)"), 1028.0);
  EXPECT_DOUBLE_EQ(eval("atan2(1, 1)"), M_PI / 4);
  EXPECT_DOUBLE_EQ(eval("1.5e1 + .5"), 15.5);
  EXPECT_DOUBLE_EQ(eval("2*3 = 1 + 2"), 3.0);  // lhs = rhs is lhs − rhs
}

TEST(Expression, ConstantsFoldAndVariablesAreShared) {
  EXPECT_EQ(parse("2*3 + x(p)").size(), 3);        // 6, x, +
  EXPECT_EQ(parse("x(p)*x(p) - x(p)").size(), 3);  // x, *, −
  EXPECT_EQ(parse("a^2*sin(pi/2)", {{"a", 3.0}}).size(), 1);
  EXPECT_DOUBLE_EQ(eval("9*sin(pi/2)"), 9.0);
  // a constant that is not finite is left for the check at t = 0, which locates it
  appell::BodyState s[2];
  EXPECT_THROW(parse("x(p) + 1/0").check_finite(appell::StateView{s, 0.0}, "at t = 0"),
               appell::ExpressionError);
}

// g = x² y + sin(x t) at the position level: A, π and b (X2) against the hand derivatives.
TEST(Expression, PositionLevelRowsAreExact) {
  appell::ModelBuilder m_b;
  appell::Body b;
  b.name = "p";
  b.type = appell::BodyType::Particle;
  b.position = Vec3(0.7, -1.3, 0.4);
  b.velocity = Vec3(0.9, 0.5, -0.2);
  m_b.add_body(b);
  appell::ExpressionConstraint c("g",
                                 Expression::parse("x(p)^2*y(p) + sin(x(p)*t)", {},
                                                   [](const std::string&) {
                                                     return Expression::BodyInfo{0, false};
                                                   }),
                                 appell::ExpressionConstraint::Level::Position);
  appell::BodyState s = m_b.initial_state(0);
  const double t = 0.8, x = s.x.x(), y = s.x.y(), vx = s.v.x(), vy = s.v.y();
  appell::SpatialForce term;
  double bb, vel, pos;
  c.evaluate(appell::StateView{&s, t}, appell::RowSpan{&term, &bb, &vel, &pos, 1});
  const double gx = 2 * x * y + t * std::cos(x * t), gy = x * x, gt = x * std::cos(x * t);
  const double gxx = 2 * y - t * t * std::sin(x * t), gxy = 2 * x,
               gxt = std::cos(x * t) - x * t * std::sin(x * t), gtt = -x * x * std::sin(x * t);
  EXPECT_NEAR(term.force.x(), gx, 1e-14);
  EXPECT_NEAR(term.force.y(), gy, 1e-14);
  EXPECT_EQ(term.force.z(), 0.0);
  EXPECT_NEAR(vel, gx * vx + gy * vy + gt, 1e-14);
  EXPECT_NEAR(pos, x * x * y + std::sin(x * t), 1e-14);
  EXPECT_NEAR(bb, -(gxx * vx * vx + 2 * gxy * vx * vy + 2 * gxt * vx + gtt), 1e-13);
}

// Every function: the gradient and the second Taylor coefficient agree with central
// differences of the value (the test may difference; the library never does).
TEST(Expression, EveryFunctionDifferentiatesExactly) {
  const std::string text =
      "sin(x(r)) + cos(y(r)) + tan(0.3*z(r)) + asin(0.2*x(r)) + acos(0.1*y(r)) + atan(z(r)) + "
      "sinh(0.5*x(r)) + cosh(0.3*y(r)) + tanh(z(r)) + exp(0.2*x(r)*y(r)) + log(2 + y(r)) + "
      "sqrt(3 + x(r)) + abs(x(r) - 5) + atan2(y(r), x(r) + 2) + pow(2 + x(r), 1.5) + "
      "min(x(r), y(r)) + max(y(r), z(r)) + (1 + x(r))^(0.5*y(r)) + t^2*x(r) + k/(3 + z(r))";
  const Expression e = parse(text, {{"k", 0.7}});
  appell::BodyState s[2];
  s[1].x = Vec3(0.3, 0.6, -0.4);
  s[1].v = Vec3(0.8, -0.5, 0.3);
  const double t = 0.45;
  double grad[16];
  const Expression::Jet j = e.evaluate(appell::StateView{s, t}, grad, true);
  auto G = [&](const Vec3& dx, double dt) {
    appell::BodyState q[2] = {s[0], s[1]};
    q[1].x += dx;
    return e.value(appell::StateView{q, t + dt});
  };
  const double h = 1e-5;
  for (size_t k = 0; k < e.variables().size(); ++k) {
    const appell::ExprVariable& v = e.variables()[k];
    Vec3 dx = Vec3::Zero();
    double dt = 0;
    if (v.kind == appell::ExprVariable::Kind::Time)
      dt = h;
    else
      dx(v.axis) = h;
    EXPECT_NEAR(grad[k], (G(dx, dt) - G(-dx, -dt)) / (2 * h), 1e-8) << v.text;
  }
  // along the motion: G(σ) = g(x + v σ, t + σ);  f₁ = G'(0), 2 f₂ = G''(0)
  const double hs = 1e-4;
  const double Gp = G(s[1].v * hs, hs), Gm = G(-s[1].v * hs, -hs), G0 = G(Vec3::Zero(), 0);
  EXPECT_NEAR(j.value, G0, 1e-15);
  EXPECT_NEAR(j.d1, (Gp - Gm) / (2 * hs), 1e-7);
  EXPECT_NEAR(2 * j.d2, (Gp - 2 * G0 + Gm) / (hs * hs), 1e-5);
}

// Velocity level, nonlinear in v̄ and ω (X1): A = ∂φ/∂(v̄, ω), b = −(∂φ/∂x̄·v̄ + ∂φ/∂t).
TEST(Expression, VelocityLevelRowsAreExact) {
  const Expression e = parse("vx(r)*wz(r)^2 + x(r)*vy(r) + wx(r)*t");
  appell::ExpressionConstraint c("phi", e, appell::ExpressionConstraint::Level::Velocity);
  appell::BodyState s[2];
  s[1].x = Vec3(1.5, 0, 0);
  s[1].v = Vec3(0.4, -0.6, 0.2);
  s[1].w = Vec3(0.3, 0.1, -0.9);
  appell::SpatialForce term;
  double bb, vel, pos;
  c.evaluate(appell::StateView{s, 2.0}, appell::RowSpan{&term, &bb, &vel, &pos, 1});
  ASSERT_EQ(c.bodies().size(), 1u);
  EXPECT_NEAR(term.force.x(), 0.81, 1e-15);
  EXPECT_NEAR(term.force.y(), 1.5, 1e-15);
  EXPECT_NEAR(term.moment.z(), 2 * 0.4 * -0.9, 1e-15);
  EXPECT_NEAR(term.moment.x(), 2.0, 1e-15);
  EXPECT_NEAR(bb, -(0.4 * -0.6 + 0.3), 1e-15);  // −(∂φ/∂x·ẋ + ∂φ/∂t)
  EXPECT_NEAR(vel, 0.4 * 0.81 + 1.5 * -0.6 + 0.3 * 2.0, 1e-15);
  EXPECT_FALSE(c.holonomic(0));
}

TEST(Expression, ParseErrorsAreLocated) {
  auto error = [](const std::string& text) -> std::string {
    try {
      parse(text, {{"a", 1.0}});
    } catch (const appell::ExpressionError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error("vx(p) - 0.25*sinn(t)"), "column 14: unknown function 'sinn'");
  EXPECT_EQ(error("x(q) + 1"), "column 3: unknown body 'q'");
  EXPECT_EQ(error("wx(p)"), "column 1: 'p' is a particle; it has no angular velocity");
  EXPECT_EQ(error("1 + b"),
            "column 5: unknown name 'b'; expected t, a parameter or a variable such as x(body)");
  EXPECT_EQ(error("atan2(1)"), "column 1: 'atan2' takes 2 arguments, got 1");
  EXPECT_EQ(error("(1 + 2"), "column 7: unexpected end of the equation; expected ')'");
  EXPECT_EQ(error("1 + * 2"), "column 5: unexpected '*'");
  EXPECT_EQ(error("1 2"), "column 3: unexpected '2'");
  EXPECT_EQ(error("1 = 2 = 3"), "column 7: unexpected '='");
  EXPECT_EQ(error("   "), "column 1: empty equation");
  EXPECT_EQ(error("x(world)"), "column 3: 'world' has no state; expected a body name");
  EXPECT_EQ(error("x + 1"), "column 1: 'x' needs a body: x(body)");
}

// The scene loader: errors carry the JSON pointer and the column; the CLI exits with 2.
std::string scene_with(const std::string& constraint, const std::string& forces = "[]") {
  return R"({"bodies": [{"name": "p", "type": "particle", "mass": 1, "position": [0, 1, 0]}],
             "constraints": [)" +
         constraint + R"(], "forces": )" + forces + "}";
}

std::string load_error(const std::string& text) {
  try {
    appell::load_model_from_string(text, "s.json");
  } catch (const appell::SceneError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Expression, SceneErrorsAreLocated) {
  EXPECT_EQ(
      load_error(scene_with(
          R"J({"type": "expression", "level": "velocity", "equation": "vx(p) - 0.25*sinn(t)"})J")),
      "s.json: /constraints/0/equation: column 14: unknown function 'sinn'");
  EXPECT_EQ(load_error(scene_with(
                R"J({"type": "expression", "level": "position", "equation": "x(p) - vx(p)"})J")),
            "s.json: /constraints/0/equation: column 8: velocity variable 'vx(p)' in a "
            "position-level equation; use level \"velocity\"");
  EXPECT_EQ(load_error(scene_with(
                R"J({"type": "expression", "level": "position", "equation": "x(p)/t"})J")),
            "s.json: /constraints/0/equation: column 5: division by zero at t = 0");
  EXPECT_EQ(load_error(scene_with(
                R"J({"type": "expression", "level": "position", "equation": "x(ghost)"})J")),
            "s.json: /constraints/0/equation: column 3: unknown body 'ghost'");
  EXPECT_EQ(
      load_error(scene_with(R"J({"type": "expression", "level": "position", "equation": "t"})J")),
      "s.json: /constraints/0/equation: column 1: the equation names no body; it constrains "
      "nothing");
  EXPECT_EQ(
      load_error(
          scene_with(R"J({"type": "expression", "level": "sideways", "equation": "x(p)"})J")),
      "s.json: /constraints/0/level: unknown level 'sideways'; expected position or velocity");
  EXPECT_EQ(
      load_error(scene_with(
          R"J({"type": "expression", "level": "position", "equation": "x(p)", "parameters": {"sin": 1}})J")),
      "s.json: /constraints/0/parameters/sin: 'sin' cannot name a parameter: expected an "
      "identifier that is not t, pi, a function or a variable");
  EXPECT_EQ(
      load_error(scene_with(
          "", R"J([{"type": "expression", "body": "p", "vector": ["1", "log(x(p))", "0"]}])J")),
      "s.json: /forces/0/vector/1: column 1: 'log' is not finite (or not differentiable) at t = 0");
}

TEST(Expression, CliExitsWithTwoOnABadEquation) {
  const std::string path = testing::TempDir() + "bad_expression.json";
  std::ofstream(path) << scene_with(
      R"J({"type": "expression", "level": "velocity", "equation": "vx(p) - 0.25*sinn(t)"})J");
  const std::string cmd = std::string(APPELL_CLI_PATH) + " eval " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[1024];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_EQ(out,
            "error: " + path + ": /constraints/0/equation: column 14: unknown function 'sinn'\n");
}

TEST(Expression, EvaluationDoesNotAllocate) {
  const appell::Model m = appell::load_model(std::string(APPELL_SOURCE_DIR) +
                                             "/scenes/examples/time_dependent_constraint.json");
  appell::Data d(m);
  appell::forward(m, d, appell::Formulation::Pinv);  // warms the thread's workspace
  const appell::Constraint& c = *m.constraints()[0];
  appell::SpatialForce term;
  double bb, vel, pos;
  const appell::RowSpan span{&term, &bb, &vel, &pos, 1};
  appell::SpatialForce w[1];
  const long before = g_allocations.load();
  for (int i = 0; i < 100; ++i) {
    d.t = 0.01 * i;
    c.evaluate(d.view(), span);
    m.forces()[0]->apply(d.view(), w);
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
}

// Identities between algorithms: an expression written for a hand-written row gives the
// same equations of motion.  Distance (K5) between two particles, at the position level.
appell::Data forward_of(const std::string& text, appell::Formulation f, appell::Model& m) {
  m = appell::load_model_from_string(text, "identity.json");
  appell::Data d(m);
  EXPECT_EQ(appell::forward(m, d, f), appell::SolveStatus::Ok);
  return d;
}

TEST(Expression, DistanceExpressionMatchesDistancePrimitive) {
  const std::string bodies = R"J({"gravity": [0, -1, -9.81], "bodies": [
      {"name": "a", "type": "particle", "mass": 1.2, "position": [0.1, 0.2, 0.3], "velocity": [0.5, -0.4, 0.3]},
      {"name": "b", "type": "particle", "mass": 0.7, "position": [0.9, -0.4, 1.1], "velocity": [-0.2, 0.6, 0.1]}],
      "constraints": [)J";
  const std::string primitive =
      bodies +
      R"J({"type": "distance", "bodies": ["a", "b"], "points": [[0.1, 0.2, 0.3], [0.9, -0.4, 1.1]]}]})J";
  const std::string expression =
      bodies +
      R"J({"type": "expression", "level": "position", "parameters": {"L": 1.2806248474865698},
        "equation": "sqrt((x(b) - x(a))^2 + (y(b) - y(a))^2 + (z(b) - z(a))^2) - L"}]})J";
  for (appell::Formulation f : maximal_formulations()) {
    appell::Model m1, m2;
    const appell::Data d1 = forward_of(primitive, f, m1), d2 = forward_of(expression, f, m2);
    EXPECT_LT((d1.udot - d2.udot).norm(), 1e-13 * d1.udot.norm());
    EXPECT_NEAR(d1.b(0), d2.b(0), 1e-13);
    EXPECT_NEAR(d1.velocity_residual(0), d2.velocity_residual(0), 1e-14);
  }
}

// A sphere rolling on the horizontal plane z = r: the rolling rows (R2) as expressions,
// contact velocity v̄ + ω × (−r e_z) = (v_x − r ω_y, v_y + r ω_x, v_z).
TEST(Expression, RollingExpressionsMatchRollingPrimitive) {
  const std::string bodies = R"J({"gravity": [0.5, 0, -9.81], "bodies": [
      {"name": "s", "mass": 1.5, "inertia": {"principal": [0.02, 0.03, 0.04]}, "position": [0, 0, 0.3],
       "orientation": {"axis_angle": [1, -1, 2, 0.8]}, "velocity": [0.6, -0.3, 0],
       "angular_velocity": [1, 2, 0.5]}],
      "constraints": [)J";
  const std::string primitive =
      bodies +
      R"J({"type": "rolling", "body": "s", "radius": 0.3, "shape": "sphere", "normal": [0, 0, 1]}]})J";
  const std::string expression = bodies + R"J(
      {"type": "expression", "level": "position", "equation": "z(s) - 0.3"},
      {"type": "expression", "level": "velocity", "equation": "vx(s) - 0.3*wy(s)"},
      {"type": "expression", "level": "velocity", "equation": "vy(s) + 0.3*wx(s)"}]})J";
  for (appell::Formulation f : maximal_formulations()) {
    appell::Model m1, m2;
    const appell::Data d1 = forward_of(primitive, f, m1), d2 = forward_of(expression, f, m2);
    EXPECT_LT((d1.udot - d2.udot).norm(), 1e-12 * d1.udot.norm());
    // the same contact force
    Vec3 F2 = Vec3::Zero();
    for (int c = 0; c < 3; ++c) F2 += d2.reaction[c].force;
    EXPECT_LT((d1.reaction[0].force - F2).norm(), 1e-12 * F2.norm());
  }
}

}  // namespace

// No equation a user can type exhausts the stack: nesting is bounded, with a located error.
TEST(ExpressionParse, DeepNestingIsALocatedError) {
  const std::string eq = std::string(100000, '(') + "x(p)" + std::string(100000, ')');
  const std::string scene = R"({"bodies": [{"name": "p", "type": "particle", "mass": 1}],
      "constraints": [{"type": "expression", "level": "position", "equation": ")" +
                            eq + R"("}]})";
  try {
    appell::load_model_from_string(scene, "s.json");
    FAIL() << "no SceneError";
  } catch (const appell::SceneError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.json: /constraints/0/equation: column 257: the equation is nested too deeply "
              "(more than 256 levels)");
  }
}
