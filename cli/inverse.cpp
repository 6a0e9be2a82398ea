// `appell inverse`: the joint forces that produce a given motion (inverse dynamics,
// appell/inverse_dynamics.hpp), JSON on stdout.
//
// --q, --qd, --qdd give the tree's joint coordinates, rates and accelerations as a comma
// list (list_or_report), in one of two forms:
//   positional   every value, in tree order:              --q 0.3,-1.2
//   named        name=value items; a joint with several   --q elbow=-1.2
//                values takes them all, in its type's      --q base=0,0,1,1,0,0,0,elbow=0.3
//                order, the first after its name
// Joints not named keep the scene's value (--qdd: 0).  Commas and '=' need no quoting in
// any shell (brackets are globs in zsh, ';' ends a command), hence this form.
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "appell/inverse_dynamics.hpp"
#include "appell/tree.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

// the name of tree joint i: its constraint's, or the root body's for a floating root
std::string tree_joint_name(const Model& m, const TreeJoint& t) {
  return t.constraint >= 0 ? m.constraints()[t.constraint]->name() : m.bodies()[t.body].name;
}

// the tree joint called `name`, or −1
int find_tree_joint(const Model& m, const std::string& name) {
  for (int i = 0; i < static_cast<int>(m.tree().joints.size()); ++i)
    if (tree_joint_name(m, m.tree().joints[i]) == name) return i;
  return -1;
}

std::string tree_joint_names(const Model& m) {
  std::string s;
  for (const TreeJoint& t : m.tree().joints) s += (s.empty() ? "" : ", ") + tree_joint_name(m, t);
  return s;
}

int values_of(const TreeJoint& t, bool coordinates) {
  return coordinates ? t.nq : t.nu;
}

bool usage(const std::string& option, const std::string& message) {
  std::cerr << "error: " << option << ": " << message << "\n";
  return false;
}

std::string item_text(const ListItem& item) {
  return "item " + std::to_string(item.position) + " ('" + item.text + "')";
}

// One of --q (coordinates), --qd, --qdd: overwrites the entries of `out` (tree nq or nu)
// that the list gives; prints a located usage error and returns false.
bool joint_values_or_report(const Model& m, const std::string& option, const std::string& text,
                            bool coordinates, Eigen::VectorXd& out) {
  const TreeModel& tree = m.tree();
  std::vector<ListItem> items;
  if (!list_or_report(option, text, items)) return false;
  const auto named = [](const ListItem& item) { return item.text.find('=') != std::string::npos; };
  const char* what = coordinates ? "joint coordinates" : "joint rates";

  // positional: every value in tree order
  if (!named(items[0])) {
    Eigen::VectorXd v(items.size());
    for (size_t k = 0; k < items.size(); ++k) {
      if (named(items[k]))
        return usage(option, item_text(items[k]) + " names a joint after positional values; " +
                                 "give every value by name or none");
      if (!number_or_report(option, "item " + std::to_string(items[k].position), items[k].text,
                            v(k)))
        return false;
    }
    const int n = static_cast<int>(out.size());
    if (static_cast<int>(items.size()) != n)
      return usage(option, "expected " + std::to_string(n) + " values, the tree's " + what +
                               " in tree order (" + tree_joint_names(m) + "), got " +
                               std::to_string(items.size()));
    out = v;
    return true;
  }

  // named: name=value, then the joint's further values
  std::map<int, int> given;  // tree joint → the item that named it
  for (size_t k = 0; k < items.size();) {
    const ListItem& head = items[k];
    const size_t eq = head.text.find('=');
    const size_t end = head.text.find_last_not_of(" \t", eq == 0 ? 0 : eq - 1);
    const std::string name =
        eq == 0 || end == std::string::npos ? "" : head.text.substr(0, end + 1);
    if (name.empty()) return usage(option, item_text(head) + " names no joint");
    const int i = find_tree_joint(m, name);
    if (i < 0)
      return usage(option, item_text(head) + ": '" + name +
                               "' is not a joint of the scene's spanning tree (its joints: " +
                               tree_joint_names(m) + ")");
    if (given.count(i))
      return usage(option, item_text(head) + ": joint '" + name + "' is given twice (also item " +
                               std::to_string(given[i]) + ")");
    given[i] = head.position;
    const TreeJoint& t = tree.joints[i];
    const int n = values_of(t, coordinates);
    std::vector<double> v;
    for (size_t e = k; e < items.size() && (e == k || !named(items[e])); ++e) {
      std::string value = e == k ? head.text.substr(eq + 1) : items[e].text;
      value.erase(0, value.find_first_not_of(" \t"));
      double x;
      if (!number_or_report(option, "item " + std::to_string(items[e].position), value, x))
        return false;
      v.push_back(x);
    }
    if (static_cast<int>(v.size()) != n)
      return usage(option, item_text(head) + ": joint '" + name + "' (" + t.type->name() +
                               ") takes " + std::to_string(n) + (n == 1 ? " value" : " values") +
                               ", got " + std::to_string(v.size()));
    const int offset = coordinates ? t.q_offset : t.u_offset;
    for (int c = 0; c < n; ++c) out(offset + c) = v[c];
    k += v.size();
  }
  return true;
}

// every quaternion of q is nonzero (normalize() cannot scale a zero one to a rotation);
// a joint type with one more coordinate than rates holds a quaternion, its last four
// coordinates (free: position then quaternion; spherical: the quaternion)
bool quaternions_or_report(const Model& m, const Eigen::VectorXd& q) {
  for (const TreeJoint& t : m.tree().joints)
    if (t.nq == t.nu + 1 && q.segment<4>(t.q_offset + t.nq - 4).norm() < 1e-12)
      return usage("--q", "joint '" + tree_joint_name(m, t) + "' (" + t.type->name() +
                              "): its quaternion is zero");
  return true;
}

// --actuated "j1,j2" → tree joint indices
bool actuated_or_report(const Model& m, const std::string& text, std::vector<int>& out) {
  std::vector<ListItem> items;
  if (!list_or_report("--actuated", text, items)) return false;
  for (const ListItem& item : items) {
    const int i = find_tree_joint(m, item.text);
    if (i < 0)
      return usage("--actuated", "'" + item.text +
                                     "' is not a joint of the scene's spanning tree (its joints: " +
                                     tree_joint_names(m) + ")");
    for (size_t k = 0; k < out.size(); ++k)
      if (out[k] == i)
        return usage("--actuated", item_text(item) + ": joint '" + item.text +
                                       "' is given twice (also item " + std::to_string(k + 1) +
                                       ")");
    out.push_back(i);
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
  JointFrame frame;
  double t = 0.0;
  if (!joint_frame_or_report(o.joint_frame, frame)) return 2;
  if (o.t && !number_or_report("--t", "", *o.t, t)) return 2;
  Scene scene;
  if (!load_or_report(o.scene, scene)) return 2;
  const Model m = compile(scene);
  const TreeModel& tree = m.tree();
  State s = m.initial_state();
  s.t = t;
  // the inputs, in the chosen frame (appell/joint_columns.hpp F1, F2)
  if (o.q && !joint_values_or_report(m, "--q", *o.q, true, s.q)) return 2;
  if (!quaternions_or_report(m, s.q)) return 2;
  for (const TreeJoint& j : tree.joints) j.type->normalize(s.q.data() + j.q_offset);
  const bool child = frame == JointFrame::Child;
  Eigen::VectorXd u = s.u, udot = Eigen::VectorXd::Zero(tree.nu);
  for (const TreeJoint& j : tree.joints)
    if (child) joint_vector_to_child(*j.type, s.q.data() + j.q_offset, u.data() + j.u_offset);
  if (o.qd && !joint_values_or_report(m, "--qd", *o.qd, false, u)) return 2;
  if (o.qdd && !joint_values_or_report(m, "--qdd", *o.qdd, false, udot)) return 2;
  std::vector<int> actuated;
  if (o.actuated && !actuated_or_report(m, *o.actuated, actuated)) return 2;
  s.u = u;
  Eigen::VectorXd udot_parent = udot;
  for (const TreeJoint& j : tree.joints)
    if (child) {
      const double* q = s.q.data() + j.q_offset;
      joint_acceleration_to_parent(*j.type, q, u.data() + j.u_offset,
                                   udot_parent.data() + j.u_offset);
      joint_vector_to_parent(*j.type, q, s.u.data() + j.u_offset);
    }

  Data d(m);
  ConstrainedInverse r = inverse_dynamics_constrained(m, d, s, udot_parent, actuated);
  if (!r.tau.allFinite() || !r.lambda.allFinite()) {
    std::cerr << "error: " << o.scene << ": at t = " << s.t << ": joint forces are not finite\n";
    return 3;
  }
  for (const TreeJoint& j : tree.joints)
    if (child) joint_vector_to_child(*j.type, s.q.data() + j.q_offset, r.tau.data() + j.u_offset);
  ojson out;
  out["method"] = "rnea";
  out["time"] = s.t;
  out["joint_coordinates"] = tree.nq;
  out["joint_rates"] = tree.nu;
  out["joint_frame"] = joint_frame_name(frame);
  ojson joints = ojson::object();
  for (const TreeJoint& j : tree.joints) {
    ojson e;
    e["type"] = j.type->name();
    e["q"] = array(s.q, j.q_offset, j.nq);
    e["qd"] = array(u, j.u_offset, j.nu);
    e["qdd"] = array(udot, j.u_offset, j.nu);
    e["force"] = array(r.tau, j.u_offset, j.nu);
    if (frame_dependent(*j.type)) e["frame"] = joint_frame_name(frame);
    joints[tree_joint_name(m, j)] = e;
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
