// `appell inverse`: the joint forces that produce a given motion (inverse dynamics,
// appell/inverse_dynamics.hpp), JSON on stdout.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "appell/inverse_dynamics.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

// the name of tree joint i: its constraint's, or the root body's for a floating root
std::string tree_joint_name(const Model& m, const TreeJoint& t) {
  return t.constraint >= 0 ? m.constraints()[t.constraint]->name() : m.bodies()[t.body].name;
}

// "a,b,c" → n numbers; prints a usage error naming the option and returns false
bool numbers_or_report(const std::string& option, const std::string& text, int n, const char* what,
                       Eigen::VectorXd& out) {
  std::vector<double> v;
  std::stringstream ss(text);
  std::string item;
  bool ok = true;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    const double x = std::strtod(item.c_str(), &end);
    while (end && (*end == ' ' || *end == '\t')) ++end;
    if (item.empty() || end == item.c_str() || (end && *end) || !std::isfinite(x)) ok = false;
    v.push_back(x);
  }
  if (!ok || static_cast<int>(v.size()) != n) {
    std::cerr << "error: " << option << ": expected " << n << " comma-separated finite numbers ("
              << what << "), got '" << text << "'\n";
    return false;
  }
  out = Eigen::Map<Eigen::VectorXd>(v.data(), n);
  return true;
}

// --actuated "j1,j2" → tree joint indices
bool actuated_or_report(const Model& m, const std::string& text, std::vector<int>& out) {
  std::stringstream ss(text);
  std::string name;
  while (std::getline(ss, name, ',')) {
    int found = -1;
    for (int i = 0; i < static_cast<int>(m.tree().joints.size()); ++i)
      if (tree_joint_name(m, m.tree().joints[i]) == name) found = i;
    if (found < 0) {
      std::cerr << "error: --actuated: '" << name
                << "' is not a joint of the scene's spanning tree\n";
      return false;
    }
    out.push_back(found);
  }
  return true;
}

ojson array(const Eigen::VectorXd& x, int from, int n) {
  ojson a = ojson::array();
  for (int k = 0; k < n; ++k) a.push_back(x(from + k));
  return a;
}

}  // namespace

int run_inverse(const InverseOptions& o) {
  Scene scene;
  if (!load_or_report(o.scene, scene)) return 2;
  const Model m = compile(scene);
  const TreeModel& tree = m.tree();
  State s = m.initial_state();
  s.t = o.t;
  Eigen::VectorXd udot = Eigen::VectorXd::Zero(tree.nu);
  const std::string nq = "the tree's " + std::to_string(tree.nq) + " joint coordinates";
  const std::string nu = "the tree's " + std::to_string(tree.nu) + " joint rates";
  if (!o.q.empty() && !numbers_or_report("--q", o.q, tree.nq, nq.c_str(), s.q)) return 2;
  if (!o.qd.empty() && !numbers_or_report("--qd", o.qd, tree.nu, nu.c_str(), s.u)) return 2;
  if (!o.qdd.empty() && !numbers_or_report("--qdd", o.qdd, tree.nu, nu.c_str(), udot)) return 2;
  std::vector<int> actuated;
  if (!o.actuated.empty() && !actuated_or_report(m, o.actuated, actuated)) return 2;
  tree_normalize(tree, s.q);

  Data d(m);
  const ConstrainedInverse r = inverse_dynamics_constrained(m, d, s, udot, actuated);
  if (!r.tau.allFinite() || !r.lambda.allFinite()) {
    std::cerr << "error: " << o.scene << ": at t = " << s.t << ": joint forces are not finite\n";
    return 3;
  }
  ojson out;
  out["method"] = "rnea";
  out["time"] = s.t;
  out["joint_coordinates"] = tree.nq;
  out["joint_rates"] = tree.nu;
  ojson joints = ojson::object();
  for (const TreeJoint& t : tree.joints) {
    ojson e;
    e["type"] = t.type->name();
    e["q"] = array(s.q, t.q_offset, t.nq);
    e["qd"] = array(s.u, t.u_offset, t.nu);
    e["qdd"] = array(udot, t.u_offset, t.nu);
    e["force"] = array(r.tau, t.u_offset, t.nu);
    joints[tree_joint_name(m, t)] = e;
  }
  out["joints"] = joints;
  ojson cons = ojson::object();
  int k = 0;
  for (int c : tree.extra) {
    const int rows = m.constraints()[c]->rows();
    cons[m.constraints()[c]->name()] = {{"multipliers", array(r.lambda, k, rows)}};
    k += rows;
  }
  out["constraints"] = cons;
  out["constraint_residual"] = r.constraint_residual;
  out["force_residual"] = r.force_residual;
  std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace appell::cli
