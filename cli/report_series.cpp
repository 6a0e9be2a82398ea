// The report's series: from a running simulation, or read back from traj.csv / forces.csv,
// each series from the column its file's schema names (appell/output_schema.hpp).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string_view>

#include "appell/output_schema.hpp"
#include "appell/scene_document.hpp"
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
  if (s.contacts) {
    series_.has_contacts = true;
    std::vector<double>& row = series_.contacts.emplace_back();
    for (const ContactSample& c : *s.contacts) {
      if (c.joint >= 0) continue;
      const double sign = c.point.body_b == kWorld ? -1.0 : 1.0;
      const Vec3 f = sign * (c.normal_force * c.point.normal + c.friction_force);
      row.insert(row.end(),
                 {c.point.point.x(), c.point.point.y(), c.point.point.z(), f.x(), f.y(), f.z()});
    }
  }
}

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what);
}

// The lines of a stream, each at most max_line bytes (without its '\n', a trailing '\r'
// dropped), the whole at most ReportLimits::kMaxCsvBytes: /dev/zero or a binary file ends
// with an error at its first line instead of filling the memory.
class LineReader {
 public:
  LineReader(std::istream& in, const std::string& name) : in_(in), name_(name) {}
  void set_max_line(size_t n) { max_line_ = n; }
  int lineno() const { return lineno_; }

  bool next(std::string& line) {
    line.clear();
    for (;;) {
      if (at_ == end_ && !refill()) {
        if (line.empty() && !partial_) return false;
        break;  // a last line without '\n'
      }
      const char* nl = static_cast<const char*>(std::memchr(buf_ + at_, '\n', end_ - at_));
      const size_t n = (nl ? nl - buf_ : end_) - at_;
      if (line.size() + n > max_line_)
        fail(name_ + ": line " + std::to_string(lineno_ + 1) + ": longer than " +
             std::to_string(max_line_) + " bytes, more than a row of this scene's columns can be");
      line.append(buf_ + at_, n);
      at_ += n;
      partial_ = true;
      if (nl) {
        ++at_;
        break;
      }
    }
    partial_ = false;
    ++lineno_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }

 private:
  bool refill() {
    if (!in_) return false;
    in_.read(buf_, sizeof buf_);
    const std::streamsize n = in_.gcount();
    if (in_.bad()) fail(name_ + ": cannot read the file");
    at_ = 0;
    end_ = static_cast<size_t>(n);
    total_ += end_;
    if (total_ > ReportLimits::kMaxCsvBytes)
      fail(name_ + ": larger than the limit of " +
           std::to_string(ReportLimits::kMaxCsvBytes >> 20) +
           " MiB for the report (write fewer rows: output.every)");
    return end_ > 0;
  }

  std::istream& in_;
  const std::string& name_;
  char buf_[1 << 16];
  size_t at_ = 0, end_ = 0, total_ = 0, max_line_ = 0;
  bool partial_ = false;
  int lineno_ = 0;
};

// A finite decimal number as %.17g writes it: [+-] digits [. digits] [e [+-] digits]
// (or a leading '.'); strtod alone would also take nan, inf and hexadecimal.
bool decimal(std::string_view f) {
  size_t i = 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < f.size() && f[i] >= '0' && f[i] <= '9') ++i;
    return i - from;
  };
  if (i < f.size() && (f[i] == '+' || f[i] == '-')) ++i;
  size_t mantissa = digits();
  if (i < f.size() && f[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < f.size() && (f[i] == 'e' || f[i] == 'E')) {
    ++i;
    if (i < f.size() && (f[i] == '+' || f[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == f.size();
}

std::string shown(std::string_view f) {
  std::string s(f.substr(0, 40));
  if (f.size() > 40) s += "...";
  return printable(s);
}

// Reads a CSV whose header must be `header`, passing each row (every field a finite
// number, as many as the header's columns) to `row`; returns the number of rows.
size_t read_csv(std::istream& in, const std::string& name, const std::string& header,
                const std::function<void(const std::vector<double>&)>& row) {
  LineReader lines(in, name);
  const size_t ncol = std::count(header.begin(), header.end(), ',') + 1;
  std::string line;
  lines.set_max_line(header.size() + 1);
  const bool any = lines.next(line);
  if (!any || line + "\n" != header)
    fail(name +
         ": line 1: the columns do not match the scene; expected "
         "the header appell simulate writes for it: " +
         header.substr(0, header.size() - 1));
  lines.set_max_line(ncol * ReportLimits::kMaxFieldBytes);
  std::vector<double> values;
  std::string field;
  size_t rows = 0;
  while (lines.next(line)) {
    if (line.empty()) continue;
    values.clear();
    const std::string at = name + ":" + std::to_string(lines.lineno()) + ":";
    for (size_t from = 0;;) {
      const size_t comma = std::min(line.find(',', from), line.size());
      const std::string_view f(line.data() + from, comma - from);
      const std::string column = std::to_string(from + 1);
      if (values.size() == ncol)
        fail(at + column + ": more than the " + std::to_string(ncol) + " fields of the header");
      if (!decimal(f)) fail(at + column + ": '" + shown(f) + "' is not a finite decimal number");
      field.assign(f);
      const double v = std::strtod(field.c_str(), nullptr);
      if (!std::isfinite(v))
        fail(at + column + ": '" + shown(f) + "' is beyond the range of a double");
      values.push_back(v);
      if (comma == line.size()) break;
      from = comma + 1;
    }
    if (values.size() != ncol)
      fail(at + std::to_string(line.size() + 1) + ": " + std::to_string(values.size()) +
           " fields, expected " + std::to_string(ncol));
    row(values);
    ++rows;
  }
  if (rows == 0) fail(name + ": no rows");
  return rows;
}

// an input file, or why it cannot be read
std::ifstream open_input(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) fail(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path + ": cannot open the file: " + std::strerror(errno));
  return in;
}

}  // namespace

ReportSeries read_series(const Model& m, std::istream& traj, const std::string& traj_name,
                         std::istream* forces, const std::string& forces_name) {
  ReportSeries s;
  start(m, s);
  // the columns each series reads, found in the files' schemas (appell/output_schema.hpp)
  const OutputSchema ts = traj_schema(m);
  const auto column = [](const OutputSchema& schema, Quantity q, int subject, int slot) {
    const ColumnGroup* g = schema.find(q, subject, slot);
    return g ? g->first : -1;
  };
  std::vector<int> position(m.nbody()), orientation(m.nbody());
  for (int i = 0; i < m.nbody(); ++i) {
    position[i] = column(ts, Quantity::Position, i, -1);
    orientation[i] = column(ts, Quantity::Orientation, i, -1);  // −1: a particle
  }
  const int energy = column(ts, Quantity::Energy, -1, -1);
  const int violation_position = column(ts, Quantity::ViolationPosition, -1, -1);
  const int violation_velocity = column(ts, Quantity::ViolationVelocity, -1, -1);
  read_csv(traj, traj_name, ts.header(), [&](const std::vector<double>& row) {
    s.t.push_back(row[0]);
    for (int i = 0; i < m.nbody(); ++i) {
      std::vector<double>& p = s.pose[i];
      p.insert(p.end(), row.begin() + position[i], row.begin() + position[i] + 3);
      if (orientation[i] >= 0)
        p.insert(p.end(), row.begin() + orientation[i], row.begin() + orientation[i] + 4);
      else
        p.insert(p.end(), {1.0, 0.0, 0.0, 0.0});
    }
    s.energy.push_back(row[energy]);
    s.violation_position.push_back(row[violation_position]);
    s.violation_velocity.push_back(row[violation_velocity]);
  });
  if (!forces) return s;
  // per (constraint, body) pair, in the order of force_names(): its force's first column
  const OutputSchema fs = forces_schema(m);
  std::vector<int> force;
  for (int c = 0; c < static_cast<int>(m.constraints().size()); ++c)
    for (size_t k = 0; k < m.constraints()[c]->bodies().size(); ++k)
      force.push_back(column(fs, Quantity::ConstraintForce, c, static_cast<int>(k)));
  const size_t rows =
      read_csv(*forces, forces_name, fs.header(), [&](const std::vector<double>& row) {
        for (size_t k = 0; k < force.size() && k < s.force.size(); ++k) {
          const double* f = row.data() + force[k];
          s.force[k].push_back(std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]));
        }
      });
  if (rows != s.t.size())
    fail(forces_name + ": " + std::to_string(rows) + " rows, but " + traj_name + " has " +
         std::to_string(s.t.size()));
  s.has_forces = true;
  return s;
}

ReportSeries read_series(const Model& m, const std::string& traj, const std::string& forces) {
  std::ifstream t = open_input(traj);
  if (forces.empty()) return read_series(m, t, traj, nullptr, "");
  std::ifstream f = open_input(forces);
  return read_series(m, t, traj, &f, forces);
}

}  // namespace appell::cli
