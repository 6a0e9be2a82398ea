// The "lagrangian" object of a scene (docs/scene-format.md "Lagrangian systems").
#include "appell/lagrangian_scene.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "appell/integrators.hpp"
#include "appell/scene_document.hpp"
#include "scenes/reader.hpp"
#include "scenes/scene_parts.hpp"

namespace appell {

namespace {

using json = nlohmann::json;

constexpr int kMaxCoordinates = 256;

bool identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string num(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

// parses the expression at n in the system's variables
Expression parse_in(const Node& n, const std::map<std::string, double>& params,
                    const std::vector<std::string>& coordinates) {
  try {
    return Expression::parse(
        n.string(), params, [](const std::string&) { return Expression::BodyInfo{}; }, nullptr,
        [&](const std::string& name) {
          const auto it = std::find(coordinates.begin(), coordinates.end(), name);
          return it == coordinates.end() ? -1 : static_cast<int>(it - coordinates.begin());
        });
  } catch (const ExpressionError& e) {
    n.fail(e.what());
  }
}

bool reads(const Expression& e, ExprVariable::Kind kind) {
  for (const ExprVariable& v : e.variables())
    if (v.kind == kind) return true;
  return false;
}

// a row not finite at t = 0: its column when its value is the culprit
[[noreturn]] void not_finite_row(const Node& n, const Expression& e, const LagrangianState& x) {
  const std::vector<double> values = variable_values_at(e, x);
  std::vector<double> work(static_cast<size_t>(std::max(e.size(), 1)));
  const int column = e.first_nonfinite_column(values.data(), work.data());
  n.fail("at t = 0: " + (column > 0 ? "column " + std::to_string(column) + ": " : std::string()) +
         "not finite (or not differentiable)");
}

LagrangianRow parse_row(const Node& n, const std::string& key, int index,
                        const std::map<std::string, double>& outer_params,
                        const std::vector<std::string>& coordinates, bool quasi) {
  LagrangianRow row;
  std::map<std::string, double> params = outer_params;
  if (quasi) {
    n.object({"name", "expression", "parameters"});
    row.name = n["name"].name("quasi-velocity");
  } else {
    n.object({"name", "level", "equation", "parameters"});
    row.name = n.has("name") ? n["name"].name("constraint") : key + std::to_string(index);
    const std::string level = n["level"].string();
    if (level == "position")
      row.holonomic = true;
    else if (level != "velocity")
      n["level"].fail("unknown level '" + level + "'; expected position or velocity");
  }
  for (const auto& [k, v] : parse_parameters(n)) params[k] = v;
  const Node e = n[quasi ? "expression" : "equation"];
  row.e = parse_in(e, params, coordinates);
  if (row.holonomic && reads(row.e, ExprVariable::Kind::Rate))
    e.fail(
        "a position-level constraint g(q, t) = 0 may not read rates qd(...); write it at "
        "level velocity");
  if (!row.holonomic && !reads(row.e, ExprVariable::Kind::Rate))
    e.fail(std::string("reads no rate qd(...); ") +
           (quasi ? "a quasi-velocity is a combination of rates"
                  : "a constraint of q and t alone is level position"));
  // a velocity row nonlinear in the rates, φ(q, q̇, t) = 0 (read off its tape)
  row.nonlinear = !quasi && !row.holonomic && !affine_in_rates(row.e);
  return row;
}

void parse_run(const Node& root, LagrangianRun& run) {
  if (root.has("integrator")) {
    const Node n = root["integrator"];
    n.object({"method", "dt", "duration", "rtol", "atol"});
    if (n.has("method")) {
      run.method = n["method"].string();
      const IntegratorInfo* in = find_integrator(run.method);
      if (!in || !in->quasi_velocities)
        n["method"].fail("a Lagrangian system integrates with " + integrator_names(true) +
                         ", got '" + run.method + "'");
    }
    if (n.has("dt")) run.dt = n["dt"].positive();
    if (n.has("duration")) run.duration = n["duration"].nonnegative();
    if (n.has("rtol")) run.rtol = n["rtol"].positive();
    if (n.has("atol")) run.atol = n["atol"].positive();
  }
  if (root.has("output")) {
    const Node n = root["output"];
    n.object({"every"});
    if (n.has("every")) run.every = n["every"].positive_int();
  }
  const double steps = run.duration / run.dt;
  if (steps > SceneLimits::kMaxSteps || steps / run.every > SceneLimits::kMaxOutputRows)
    root["integrator"].fail("duration / dt = " + num(steps) +
                            " steps; the limits are 1e9 steps and 1e7 output rows");
}

// The default quasi-velocities: the rates of the coordinates left independent when the
// constraint rows are solved for the rates of the last coordinates they can be solved for
// (dependent columns chosen from the last coordinate back; docs/lagrangian.md).
std::vector<LagrangianRow> default_quasi_velocities(const LagrangianSystem& s,
                                                    const Eigen::MatrixXd& A) {
  const int n = s.n(), m = s.m();
  std::vector<int> dependent;
  Eigen::MatrixXd cols(m, 0);
  int rank = 0;
  for (int j = n - 1; j >= 0 && rank < m; --j) {
    Eigen::MatrixXd trial(m, cols.cols() + 1);
    trial << cols, A.col(j);
    Eigen::FullPivLU<Eigen::MatrixXd> lu(trial);
    lu.setThreshold(1e-10);
    if (lu.rank() > rank) {
      cols = trial;
      rank = lu.rank();
      dependent.push_back(j);
    }
  }
  std::vector<LagrangianRow> out;
  for (int j = 0; j < n; ++j) {
    if (std::find(dependent.begin(), dependent.end(), j) != dependent.end()) continue;
    LagrangianRow r;
    r.name = s.coordinates[j];
    r.e = Expression::parse(
        "qd(" + s.coordinates[j] + ")", {},
        [](const std::string&) { return Expression::BodyInfo{}; }, nullptr,
        [&](const std::string& name) { return name == s.coordinates[j] ? j : -1; });
    // the single variable is q̇_j
    out.push_back(std::move(r));
  }
  return out;
}

// the coordinates' names and initial values (out.initial), the system's coordinates
void parse_coordinates(const Node& lag, const std::map<std::string, double>& params,
                       LagrangianScene& out) {
  LagrangianSystem& s = out.system;
  const Node cs = lag["coordinates"];
  const size_t n = cs.size();
  if (n == 0) cs.fail("expected at least one coordinate");
  if (n > static_cast<size_t>(kMaxCoordinates))
    cs.fail("at most " + std::to_string(kMaxCoordinates) + " coordinates, got " +
            std::to_string(n));
  out.initial.q.setZero(n);
  out.initial.qd.setZero(n);
  for (size_t i = 0; i < n; ++i) {
    const Node c = cs.at(i);
    c.object({"name", "q", "rate"});
    const std::string name = c["name"].string();
    if (!identifier(name))
      c["name"].fail("'" + printable(name) + "' cannot name a coordinate: expected an identifier");
    if (std::find(s.coordinates.begin(), s.coordinates.end(), name) != s.coordinates.end())
      c["name"].fail("a second coordinate called '" + name + "'");
    if (params.count(name)) c["name"].fail("'" + name + "' is also a parameter");
    s.coordinates.push_back(name);
    out.initial.q(i) = c.has("q") ? c["q"].number() : 0.0;
    out.initial.qd(i) = c.has("rate") ? c["rate"].number() : 0.0;
  }
}

// the generalized forces {coordinate: expression} (s.forces, s.has_force)
void parse_forces(const Node& lag, const std::map<std::string, double>& params,
                  LagrangianSystem& s) {
  const size_t n = s.coordinates.size();
  s.forces.resize(n);
  s.has_force.assign(n, false);
  if (!lag.has("forces")) return;
  const Node fs = lag["forces"];
  if (!fs.json().is_object())
    fs.fail("expected an object {coordinate: expression}, got " + type_name(fs.json()));
  for (auto it = fs.json().begin(); it != fs.json().end(); ++it) {
    const Node f = fs[it.key().c_str()];
    const auto k = std::find(s.coordinates.begin(), s.coordinates.end(), it.key());
    if (k == s.coordinates.end()) f.fail("unknown coordinate '" + printable(it.key()) + "'");
    const size_t i = static_cast<size_t>(k - s.coordinates.begin());
    s.forces[i] = parse_in(f, params, s.coordinates);
    s.has_force[i] = true;
  }
}

// the constraint rows, and the quasi-velocities when the scene chooses them (n − m of them)
void parse_constraints_and_quasi_velocities(const Node& lag,
                                            const std::map<std::string, double>& params,
                                            LagrangianSystem& s) {
  const size_t n = s.coordinates.size();
  if (lag.has("constraints")) {
    const Node c = lag["constraints"];
    for (size_t i = 0; i < c.size(); ++i)
      s.constraints.push_back(
          parse_row(c.at(i), "constraint", static_cast<int>(i), params, s.coordinates, false));
  }
  if (s.m() >= s.n())
    lag["constraints"].fail(std::to_string(s.m()) + " constraint rows on " + std::to_string(n) +
                            " coordinates leave no motion");
  if (!lag.has("quasi_velocities")) return;
  const Node qv = lag["quasi_velocities"];
  for (size_t i = 0; i < qv.size(); ++i) {
    s.quasi_velocities.push_back(
        parse_row(qv.at(i), "nu", static_cast<int>(i), params, s.coordinates, true));
    for (size_t j = 0; j < i; ++j)
      if (s.quasi_velocities[j].name == s.quasi_velocities[i].name)
        qv.at(i)["name"].fail("a second quasi-velocity called '" + s.quasi_velocities[i].name +
                              "'");
  }
  if (static_cast<int>(qv.size()) != s.n() - s.m())
    qv.fail("expected n - m = " + std::to_string(s.n() - s.m()) +
            " quasi-velocities (one per degree of freedom: " + std::to_string(n) +
            " coordinates, " + std::to_string(s.m()) + " constraint rows), got " +
            std::to_string(qv.size()));
  s.chosen_quasi_velocities = true;
}

// The rows at t = 0: the constraints finite and satisfied (rows nonlinear in the rates with
// a gradient in the rates), quasi-velocities affine in the rates, and the default
// quasi-velocities where the scene chose none
void check_rows_at_start(const Node& lag, LagrangianSystem& s, const LagrangianState& x) {
  LagrangianData d(s);
  for (int i = 0; i < s.dof() && s.chosen_quasi_velocities; ++i)
    if (rate_curvature(s.quasi_velocities[i].e, x, d) > 1e-12)
      lag["quasi_velocities"].at(i)["expression"].fail(
          "not affine in the rates at t = 0 (∂²/∂q̇² ≠ 0); quasi-velocities are ν = C(q, t) q̇ + "
          "s(q, t)");
  Eigen::MatrixXd A(s.m(), s.n());
  Eigen::VectorXd r(s.m()), alpha(s.m()), g(s.m());
  velocity_rows(s.constraints, x, d, A, r, alpha, &g);
  for (int i = 0; i < s.m(); ++i) {
    if (!A.row(i).allFinite() || !std::isfinite(r(i)) || !std::isfinite(g(i)) ||
        !std::isfinite(alpha(i)))
      not_finite_row(lag["constraints"].at(i)["equation"], s.constraints[i].e, x);
    const double scale = 1.0 + A.row(i).cwiseAbs().dot(x.qd.cwiseAbs());
    if (std::abs(g(i)) > 1e-9 * (1.0 + x.q.cwiseAbs().maxCoeff()))
      lag["constraints"].at(i).fail("not satisfied at t = 0: g = " + num(g(i)) +
                                    " (the initial coordinates must satisfy it)");
    if (std::abs(r(i)) > 1e-9 * scale)
      lag["constraints"].at(i).fail("not satisfied at t = 0 by the initial rates: residual " +
                                    num(r(i)));
    // a row nonlinear in the rates must be regular there: ∂φ/∂q̇ ≠ 0 [L96 §4.3]
    if (s.constraints[i].nonlinear && !(A.row(i).cwiseAbs().maxCoeff() > 1e-9))
      lag["constraints"].at(i)["equation"].fail(
          "at t = 0: ∂φ/∂q̇ = 0 on the constraint set; a constraint φ(q, q̇, t) = 0 nonlinear "
          "in the rates must have a nonzero gradient in the rates there (write it so that "
          "it is regular, e.g. qd(x)^2 + qd(y)^2 - v^2, not its square)");
  }
  if (!s.chosen_quasi_velocities) {
    s.quasi_velocities = default_quasi_velocities(s, A);
    if (s.dof() != s.n() - s.m())
      lag["constraints"].fail("at t = 0: the constraint rows are not independent (rank " +
                              std::to_string(s.n() - s.dof()) + " of " + std::to_string(s.m()) +
                              " rows)");
  }
}

// one evaluation at t = 0 (regularity, independence), its failure located in the scene
void check_evaluation_at_start(const Node& lag, const LagrangianSystem& s, const LagrangianState& x,
                               const std::string& file) {
  LagrangianData d(s);
  switch (evaluate_lagrangian(s, x, d)) {
    case LagrangianStatus::Ok:
      break;
    case LagrangianStatus::NotRegular:
      lag["L"].fail("at t = 0: " + d.message);
    case LagrangianStatus::DependentQuasiVelocities:
    case LagrangianStatus::OffConstraintSet:  // (not returned by an evaluation at a state)
      (s.chosen_quasi_velocities ? lag["quasi_velocities"] : lag["constraints"])
          .fail("at t = 0: " + d.message);
    case LagrangianStatus::NotFinite: {
      // the message starts with the expression's pointer: "/lagrangian/L: column 8: ..."
      const std::string& msg = d.message;
      const size_t colon = msg.find(": ");
      if (msg.rfind("/lagrangian/", 0) == 0 && colon != std::string::npos)
        throw SceneError(file, msg.substr(0, colon), "at t = 0: " + msg.substr(colon + 2));
      lag.fail("at t = 0: " + msg);
    }
  }
}

}  // namespace

bool is_lagrangian_text(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  return j.is_object() && j.contains("lagrangian");
}

LagrangianScene load_lagrangian_scene_from_string(const std::string& text,
                                                  const std::string& file) {
  const json doc = parse_scene_document(text, file);
  const Node root(doc, "", file);
  root.object({"name", "lagrangian", "integrator", "output"});
  LagrangianScene out;
  LagrangianSystem& s = out.system;
  s.name = root.has("name") ? root["name"].string() : file;
  const Node lag = root["lagrangian"];
  lag.object({"coordinates", "parameters", "L", "forces", "constraints", "quasi_velocities"});
  const std::map<std::string, double> params = parse_parameters(lag);
  // coordinates and the initial state
  parse_coordinates(lag, params, out);
  // L and the forces
  s.lagrangian = parse_in(lag["L"], params, s.coordinates);
  parse_forces(lag, params, s);
  // constraints and quasi-velocities
  parse_constraints_and_quasi_velocities(lag, params, s);
  parse_run(root, out.run);
  // checks at t = 0: the rows, the default quasi-velocities, then one evaluation
  LagrangianState& x = out.initial;
  x.t = 0.0;
  check_rows_at_start(lag, s, x);
  check_evaluation_at_start(lag, s, x, file);
  return out;
}

LagrangianScene load_lagrangian_scene(const std::string& path) {
  return load_lagrangian_scene_from_string(read_scene_text(path), path);
}

}  // namespace appell
