// The report's series: from a running simulation, or read back from traj.csv / forces.csv
// (cli/outputs.hpp gives their columns).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli/report.hpp"

namespace appell::cli {

namespace {

// "<constraint> on <body>" for every (constraint, body) pair of forces.csv, in its order
std::vector<std::string> force_names(const Model& m) {
  std::vector<std::string> names;
  for (const ConstraintPtr& c : m.constraints())
    for (int b : c->bodies()) names.push_back(c->name() + " on " + m.bodies()[b].name);
  return names;
}

void start(const Model& m, ReportSeries& s) {
  s.pose.assign(m.nbody(), {});
  s.force_names = force_names(m);
  s.force.assign(s.force_names.size(), {});
}

}  // namespace

ReportCollector::ReportCollector(const Model& m) : m_(m), quaternions_(m) {
  start(m, series_);
  series_.has_forces = true;
}

void ReportCollector::observe(const Sample& s) {
  series_.t.push_back(s.t);
  for (int i = 0; i < m_.nbody(); ++i) {
    const BodyState& b = s.data.body[i];
    std::vector<double>& p = series_.pose[i];
    p.insert(p.end(), {b.x(0), b.x(1), b.x(2)});
    const Eigen::Vector4d q =
        m_.bodies()[i].rigid() ? quaternions_.quaternion(b, i) : Eigen::Vector4d(1, 0, 0, 0);
    p.insert(p.end(), {q(0), q(1), q(2), q(3)});
  }
  series_.energy.push_back(s.energy);
  series_.violation_position.push_back(s.violation_position);
  series_.violation_velocity.push_back(s.violation_velocity);
  int k = 0;
  for (int c = 0; c < static_cast<int>(m_.constraints().size()); ++c)
    for (size_t j = 0; j < m_.constraints()[c]->bodies().size(); ++j)
      series_.force[k++].push_back(s.data.reaction[m_.slot_offset(c) + j].force.norm());
}

namespace {

// the rows of a CSV file whose header must be `header`; every field a finite number
std::vector<std::vector<double>> read_csv(const std::string& path, const std::string& header) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the file");
  std::string line;
  std::getline(in, line);
  if (line + "\n" != header)
    throw std::runtime_error(path +
                             ": line 1: the columns do not match the scene; expected "
                             "the header appell simulate writes for it: " +
                             header.substr(0, header.size() - 1));
  const size_t ncol = std::count(header.begin(), header.end(), ',') + 1;
  std::vector<std::vector<double>> rows;
  for (int lineno = 2; std::getline(in, line); ++lineno) {
    if (line.empty()) continue;
    std::vector<double> row;
    std::istringstream fields(line);
    std::string f;
    while (std::getline(fields, f, ',')) {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(f.c_str(), &end);
      if (f.empty() || *end != '\0' || errno == ERANGE)
        throw std::runtime_error(path + ": line " + std::to_string(lineno) + ": '" + f +
                                 "' is not a number");
      row.push_back(v);
    }
    if (row.size() != ncol)
      throw std::runtime_error(path + ": line " + std::to_string(lineno) + ": " +
                               std::to_string(row.size()) + " fields, expected " +
                               std::to_string(ncol));
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw std::runtime_error(path + ": no rows");
  return rows;
}

}  // namespace

ReportSeries read_series(const Model& m, const std::string& traj, const std::string& forces) {
  ReportSeries s;
  start(m, s);
  for (const std::vector<double>& row : read_csv(traj, traj_header(m))) {
    s.t.push_back(row[0]);
    size_t c = 1;
    for (int i = 0; i < m.nbody(); ++i) {
      const bool rigid = m.bodies()[i].rigid();
      std::vector<double>& p = s.pose[i];
      p.insert(p.end(), row.begin() + c, row.begin() + c + 3);
      if (rigid)
        p.insert(p.end(), row.begin() + c + 3, row.begin() + c + 7);
      else
        p.insert(p.end(), {1.0, 0.0, 0.0, 0.0});
      c += rigid ? 13 : 6;  // x [q] v [w]
    }
    s.energy.push_back(row[c]);
    s.violation_position.push_back(row[c + 1]);
    s.violation_velocity.push_back(row[c + 2]);
  }
  if (forces.empty()) return s;
  const auto rows = read_csv(forces, forces_header(m));
  if (rows.size() != s.t.size())
    throw std::runtime_error(forces + ": " + std::to_string(rows.size()) + " rows, but " + traj +
                             " has " + std::to_string(s.t.size()));
  for (size_t r = 0; r < rows.size(); ++r) {
    size_t c = 1, k = 0;
    for (const ConstraintPtr& con : m.constraints())
      for (int b : con->bodies()) {
        s.force[k++].push_back(std::sqrt(rows[r][c] * rows[r][c] + rows[r][c + 1] * rows[r][c + 1] +
                                         rows[r][c + 2] * rows[r][c + 2]));
        c += m.bodies()[b].rigid() ? 6 : 3;
      }
  }
  s.has_forces = true;
  return s;
}

}  // namespace appell::cli
