// The output of `appell linearize` (cli/linearize.cpp): the JSON document and the table.
#include "cli/linearize_output.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "appell/forward.hpp"
#include "appell/simulation.hpp"
#include "appell/tree.hpp"

namespace appell::cli {

namespace {

ojson matrix_json(const Eigen::MatrixXd& A) {
  ojson rows = ojson::array();
  for (int r = 0; r < A.rows(); ++r) {
    ojson row = ojson::array();
    for (int c = 0; c < A.cols(); ++c) row.push_back(A(r, c) + 0.0);  // no −0
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

std::string number_text(double x, int digits) {
  std::ostringstream s;
  s << std::setprecision(digits) << x + 0.0;  // no −0
  return s.str();
}

StateNames state_names(const LinearModel& lm, const std::vector<std::string>& names) {
  StateNames n;
  for (int k : lm.coordinates)
    n.coordinates.push_back(names[k]), n.states.push_back("q:" + names[k]);
  for (int k : lm.velocities) n.velocities.push_back(names[k]), n.states.push_back("u:" + names[k]);
  return n;
}

namespace {

// eigenvalues, ascending by real part then |imaginary part|; one of each conjugate pair
// is listed with both signs of the imaginary part, as the solver gives them
std::vector<int> eigen_order(const Eigen::VectorXcd& lam) {
  std::vector<int> order(lam.size());
  for (int k = 0; k < static_cast<int>(lam.size()); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (lam(a).real() != lam(b).real()) return lam(a).real() < lam(b).real();
    return lam(a).imag() < lam(b).imag();
  });
  return order;
}

// the coordinates a mode moves most (its velocities when it moves no δq_I: a nonholonomic
// mode), at most 4, each with its magnitude relative to the largest and its phase
ojson mode_components(const Eigen::VectorXcd& vector, int nI, const StateNames& sn) {
  const int nx = static_cast<int>(vector.size());
  const bool by_velocity = nI == 0 || vector.head(nI).cwiseAbs().maxCoeff() == 0.0;
  const Eigen::VectorXcd v =
      by_velocity ? Eigen::VectorXcd(vector.tail(nx - nI)) : Eigen::VectorXcd(vector.head(nI));
  const std::vector<std::string>& vn = by_velocity ? sn.velocities : sn.coordinates;
  const int nv = static_cast<int>(v.size());
  const double vmax = nv > 0 ? v.cwiseAbs().maxCoeff() : 0.0;
  std::vector<int> idx(nv);
  for (int j = 0; j < nv; ++j) idx[j] = j;
  std::sort(idx.begin(), idx.end(), [&](int a, int b) { return std::abs(v(a)) > std::abs(v(b)); });
  ojson comps = ojson::array();
  for (int j : idx) {
    const double mag = vmax > 0 ? std::abs(v(j)) / vmax : 0.0;
    if (mag < 0.05 || comps.size() >= 4) break;
    comps.push_back({{"coordinate", vn[j]},
                     {"magnitude", mag},
                     {"phase_deg", std::arg(v(j) / v(idx[0])) * 180.0 / M_PI}});
  }
  return comps;
}

}  // namespace

// each eigenvalue λ with its natural frequency |λ|, damped frequency |Im λ|/2π, damping
// ratio −Re λ / |λ| and mode
ojson eigen_json(const LinearModel& lm, const LinearModes& es, const StateNames& sn) {
  const int nI = static_cast<int>(lm.coordinates.size());
  ojson eig = ojson::array();
  for (int k : eigen_order(es.values)) {
    const std::complex<double> l = es.values(k);
    const double wn = std::abs(l);
    ojson e;
    e["re"] = l.real() + 0.0;  // no −0
    e["im"] = l.imag() + 0.0;
    e["natural_frequency"] = wn;                          // rad/s
    e["frequency_hz"] = std::abs(l.imag()) / (2 * M_PI);  // damped
    e["damping_ratio"] = wn > 0 ? -l.real() / wn + 0.0 : 0.0;
    e["stable"] = l.real() < 0;
    e["mode"] = mode_components(es.vectors.col(k), nI, sn);
    eig.push_back(e);
  }
  return eig;
}

ojson linear_model_json(const LinearizeOptions& o, const Model& m, const SimulationOptions& so,
                        const State& s, const LinearModel& lm, const Linearization& r) {
  const TreeModel& tree = m.tree();
  const std::string& note = lm.note;
  ojson out;
  out["scene"] = o.scene;
  out["time"] = s.t;
  out["derivatives"] = r.method;
  if (!note.empty()) out["note"] = note;
  out["coordinates"] = r.coordinates;
  if (tree.nrows_extra > 0) {
    out["constraint_rows"] = tree.nrows_extra;
    out["independent_coordinates"] = r.names.coordinates;
    out["independent_velocities"] = r.names.velocities;
  }
  if (!r.held_json.empty()) {
    out["held_by_limits"] = r.held_json;
    out["note"] = std::string(
                      "coordinates resting on a joint limit whose force is positive are "
                      "held (the limit taken as the equality q = bound) and left out of "
                      "x") +
                  (note.empty() ? "" : "; " + note);
  }
  if (has_unilateral_rows(m, so.contact.joint_limits, so.contact.joint_friction))
    out["unilateral_rows"] =
        "no contact presses; limits that press are held (held_by_limits), open limits and "
        "joint Coulomb friction are not in the linear model";
  if (lm.turn_rate != 0) out["turn_rate"] = lm.turn_rate;
  if (r.velocity_correction > 0) out["initial_velocity_correction"] = r.velocity_correction;
  out["states"] = r.names.states;
  out["inputs"] = r.input_names;
  out["A"] = matrix_json(lm.A);
  out["B"] = matrix_json(lm.B);
  out["eigenvalues"] = r.eigenvalues;
  return out;
}

namespace {

void print_matrix(std::ostream& os, const Eigen::MatrixXd& X, const std::vector<std::string>& rows,
                  const std::vector<std::string>& cols) {
  os << std::setw(16) << "";
  for (const std::string& c : cols) os << std::setw(14) << c.substr(0, 13);
  os << "\n";
  for (int r = 0; r < X.rows(); ++r) {
    os << std::setw(16) << rows[r].substr(0, 15);
    for (int c = 0; c < X.cols(); ++c) os << std::setw(14) << number_text(X(r, c));
    os << "\n";
  }
}

void print_eigenvalues(std::ostream& os, const ojson& eig) {
  os << "\neigenvalues:\n"
     << std::setw(14) << "re" << std::setw(14) << "im" << std::setw(14) << "|λ| rad/s"
     << std::setw(12) << "f Hz" << std::setw(10) << "ζ"
     << "  mode\n";
  for (const ojson& e : eig) {
    std::string mode;
    for (const ojson& c : e["mode"])
      mode += (mode.empty() ? "" : ", ") + c["coordinate"].get<std::string>() + " " +
              number_text(c["magnitude"].get<double>(), 3);
    os << std::setw(14) << number_text(e["re"].get<double>()) << std::setw(14)
       << number_text(e["im"].get<double>()) << std::setw(14)
       << number_text(e["natural_frequency"].get<double>()) << std::setw(12)
       << number_text(e["frequency_hz"].get<double>(), 4) << std::setw(10)
       << number_text(e["damping_ratio"].get<double>(), 3) << "  " << mode << "\n";
  }
}

}  // namespace

void print_linear_model(std::ostream& os, const LinearizeOptions& o, const Model& m, const State& s,
                        const LinearModel& lm, const Linearization& r) {
  const TreeModel& tree = m.tree();
  os << "linear model of " << o.scene << " at t = " << s.t << " (derivatives: " << r.method
     << ")\n";
  if (!lm.note.empty()) os << "note: " << lm.note << "\n";
  for (const ojson& h : r.held_json)
    os << "held by its " << h["side"].get<std::string>() << " limit (force "
       << number_text(h["force"].get<double>()) << "): " << h["joint"].get<std::string>() << "\n";
  if (r.velocity_correction > 0)
    os << "initial velocities projected onto the constraints first: |du|_M = "
       << r.velocity_correction << "\n";
  if (tree.nrows_extra > 0) {
    os << "constraint rows beyond the tree: " << tree.nrows_extra << "; independent coordinates:";
    for (const std::string& n : r.names.coordinates) os << " " << n;
    os << "; independent velocities:";
    for (const std::string& n : r.names.velocities) os << " " << n;
    os << "\n";
  }
  os << "x = (δq, u), " << lm.A.rows() << " states; inputs: " << r.input_names.size()
     << "\n\nA =\n";
  print_matrix(os, lm.A, r.names.states, r.names.states);
  os << "\nB =\n";
  print_matrix(os, lm.B, r.names.states, r.input_names);
  print_eigenvalues(os, r.eigenvalues);
}

}  // namespace appell::cli
