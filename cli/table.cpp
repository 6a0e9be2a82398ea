#include "cli/table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "appell/tree.hpp"
#include "cli/commands.hpp"

namespace appell::cli {

using ojson = nlohmann::ordered_json;

namespace {

// display width of UTF-8 text: code points, not bytes
size_t width(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

}  // namespace

std::string padded(const std::string& s, size_t w) {
  const size_t n = width(s);
  return s + std::string(n + 2 > w ? 2 : w - n, ' ');
}

std::vector<Base> scene_bases(const Model& m) {
  std::vector<Base> out;
  for (const TreeJoint& t : m.tree().joints) {
    if (t.parent >= 0 || !m.bodies()[t.body].rigid()) continue;
    Base b;
    b.body = m.bodies()[t.body].name;
    b.type = t.type->name();
    if (t.constraint >= 0) b.joint = m.constraints()[t.constraint]->name();
    b.floating = t.constraint < 0 || !t.type->holds();
    out.push_back(b);
  }
  return out;
}

std::string base_line(const Model& m) {
  const std::vector<Base> bases = scene_bases(m);
  if (bases.empty()) return "base: none (no rigid body)";
  std::string s = bases.size() == 1 ? "base: " : "bases: ";
  for (size_t k = 0; k < bases.size(); ++k) {
    const Base& b = bases[k];
    s += k ? "; " : "";
    if (!b.floating)
      s += "fixed (joint '" + b.joint + "', " + b.type + ", holds body '" + b.body +
           "' to the world)";
    else if (b.joint.empty())
      s += "floating (body '" + b.body + "', no joint to the world)";
    else
      s += "floating (body '" + b.body + "' on " + b.type + " joint '" + b.joint + "')";
  }
  return s;
}

bool wants_table(Output o) {
  return o == Output::Table || (o == Output::Auto && isatty(fileno(stdout)));
}

void Table::print(std::ostream& out, const std::string& indent) const {
  std::vector<size_t> w(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c) w[c] = width(header_[c]);
  for (const auto& r : rows_)
    for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], width(r[c]));
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s = indent;
    for (size_t c = 0; c < w.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      s += cell;
      if (c + 1 < w.size()) s += std::string(w[c] - width(cell) + 2, ' ');
    }
    out << s << "\n";
  };
  line(header_);
  std::vector<std::string> rule;
  for (size_t c = 0; c < w.size(); ++c) {
    std::string r;
    for (size_t k = 0; k < w[c]; ++k) r += "─";
    rule.push_back(r);
  }
  line(rule);
  for (const auto& r : rows_) line(r);
}

std::string brief(const ojson& v) {
  std::ostringstream os;
  os.precision(4);
  if (v.is_array()) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << brief(v[i]);
    os << "]";
  } else if (v.is_number()) {
    const double x = v.get<double>();
    os << (std::abs(x) < 1e-12 ? 0.0 : x);
  } else if (v.is_string()) {
    os << v.get<std::string>();
  } else {
    os << v.dump();
  }
  return os.str();
}

ojson check_json(const Model& m, int rank) {
  ojson j;
  j["scene"] = m.name();
  j["bodies"] = ojson::array();
  for (const Body& b : m.bodies())
    j["bodies"].push_back(
        {{"name", b.name}, {"type", b.rigid() ? "rigid" : "particle"}, {"mass", b.mass}});
  j["constraints"] = ojson::array();
  for (const ConstraintPtr& c : m.constraints()) {
    ojson names = ojson::array();
    for (int b : c->bodies()) names.push_back(m.bodies()[b].name);
    j["constraints"].push_back(
        {{"name", c->name()}, {"type", c->type()}, {"rows", c->rows()}, {"bodies", names}});
  }
  j["forces"] = m.forces().size();
  j["bases"] = ojson::array();
  for (const Base& b : scene_bases(m))
    j["bases"].push_back({{"body", b.body},
                          {"joint", b.joint.empty() ? ojson(nullptr) : ojson(b.joint)},
                          {"type", b.type},
                          {"base", b.floating ? "floating" : "fixed"}});
  j["coordinates"] = m.nu();
  j["constraint_rows"] = m.nrows();
  j["constraint_rank"] = rank;
  j["dof"] = m.nu() - rank;
  return j;
}

void print_check_table(std::ostream& out, const Model& m, int rank) {
  const ojson j = check_json(m, rank);
  out << m.name() << "\n\nbodies (" << m.nbody() << ")\n";
  Table bodies({"name", "type", "mass (kg)"});
  for (const ojson& b : j["bodies"])
    bodies.row({brief(b["name"]), brief(b["type"]), brief(b["mass"])});
  bodies.print(out);
  out << "\nconstraints (" << m.constraints().size() << ", " << m.nrows() << " rows)\n";
  Table cons({"name", "type", "rows", "bodies"});
  for (const ojson& c : j["constraints"]) {
    std::string names;
    for (const ojson& n : c["bodies"]) names += (names.empty() ? "" : ", ") + brief(n);
    cons.row({brief(c["name"]), brief(c["type"]), brief(c["rows"]), names});
  }
  cons.print(out);
  out << "\n" << base_line(m) << "\n";
  out << "forces " << m.forces().size() << " · coordinates " << m.nu() << " · constraint rank "
      << rank << " · degrees of freedom " << m.nu() - rank << "\n";
}

// eval's contacts (cli/contact_outputs.hpp), when the model has unilateral rows
static void print_contacts_table(std::ostream& out, const ojson& e) {
  if (!e.contains("contacts")) return;
  const ojson& c = e["contacts"];
  out << "\ncontact forces: impulses of one moreau step of dt = " << brief(c["dt"]) << " s / dt\n";
  Table points({"bodies (a → b)", "point (m)", "normal force (N)", "friction force (N)", "state"});
  for (const ojson& p : c["points"])
    points.row({brief(p["body_a"]) + " → " + brief(p["body_b"]), brief(p["point"]),
                brief(p["normal_force"]), brief(p["friction_force"]), brief(p["state"])});
  for (const auto& [name, l] : c["limits"].items())
    points.row({name + " (" + brief(l["side"]) + " limit)", "—", brief(l["normal_force"]), "—",
                brief(l["state"])});
  points.print(out);
}

void print_eval_table(std::ostream& out, const ojson& e) {
  out << "equations of motion at t = " << brief(e["time"]) << " (" << brief(e["formulation"])
      << "): coordinates " << e["coordinates"] << " · constraint rows " << e["constraint_rows"]
      << " · rank " << e["constraint_rank"] << " · degrees of freedom " << e["dof"] << "\n\n";
  Table acc({"body", "linear acceleration (m/s²)", "angular acceleration (rad/s²)"});
  for (const auto& [name, b] : e["bodies"].items())
    acc.row({name, brief(b["linear_acceleration"]),
             b.contains("angular_acceleration") ? brief(b["angular_acceleration"]) : "—"});
  acc.print(out);
  out << "\n";
  Table forces({"constraint", "on body", "force (N)", "moment (N m)"});
  for (const auto& [cname, c] : e["constraints"].items())
    for (const auto& [bname, w] : c["bodies"].items())
      forces.row(
          {cname, bname, brief(w["force"]), w.contains("moment") ? brief(w["moment"]) : "—"});
  forces.print(out);
  print_contacts_table(out, e);
  if (!e.contains("joints") || e["joints"].empty()) return;
  // the joints in their own coordinates (cli/joint_outputs.hpp)
  out << "\n";
  Table joints({"joint", "q", "qd", "qdd", "reaction force (N)", "reaction moment (N m)",
                "actuator (N or N m)"});
  for (const auto& [name, j] : e["joints"].items()) {
    const ojson& f = j["force"];
    joints.row({j.contains("frame") ? name + " (" + brief(j["frame"]) + " frame)" : name,
                brief(j["q"]), brief(j["qd"]), brief(j["qdd"]), brief(f["reaction"]["force"]),
                brief(f["reaction"]["moment"]), brief(f["actuator"])});
  }
  joints.print(out);
}

}  // namespace appell::cli
