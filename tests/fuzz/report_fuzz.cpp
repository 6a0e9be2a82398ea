// libFuzzer target: bytes → scene + traj.csv rows (+ forces.csv rows) → the HTML report.
//
// The input is split at NUL bytes: the scene (JSON), then the rows of traj.csv, then the
// rows of forces.csv; the headers are the ones the scene's Model gives (appell/output_schema.hpp),
// so mutations reach the rows.  Without a NUL the input is a scene alone and its rows are
// two instants of its initial state, so the shipped scenes seed it directly.
//
// What must hold: the scene loads or throws SceneError; the rows are read or refused with
// a one-line std::runtime_error naming the file; the page is written; its data block holds
// no raw '<' (a name like "</script>" or "<!--" cannot end or swallow the page's scripts)
// and parses back to the Model's body names.  The embedded JavaScript is left out (a stub
// report_asset) so one input stays fast.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

#include "appell/output_schema.hpp"
#include "appell/scene.hpp"
#include "cli/report.hpp"

namespace appell::cli {
std::string report_asset(const std::string&) {
  return "";
}
}  // namespace appell::cli

namespace {

// %.17g rows of the initial state at t = 0 and t = 1, in the columns of traj.csv
// (appell/output_schema.hpp): the bodies' poses and velocities, zeros elsewhere
std::string initial_rows(const appell::Model& m) {
  std::string row;
  char buf[32];
  const auto put = [&](double v) {
    std::snprintf(buf, sizeof buf, ",%.17g", v);
    row += buf;
  };
  using appell::Quantity;
  const appell::OutputSchema schema = appell::traj_schema(m);
  for (const appell::ColumnGroup& g : schema.groups()) {
    const appell::Body* b = g.subject >= 0 && g.quantity <= Quantity::AngularVelocity
                                ? &m.bodies()[g.subject]
                                : nullptr;
    const appell::Quat q = b ? b->orientation : appell::Quat::Identity();
    for (int k = 0; k < g.width; ++k) switch (g.quantity) {
        case Quantity::Time:
          break;
        case Quantity::Position:
          put(b->position(k));
          break;
        case Quantity::Orientation:
          put(k == 0 ? q.w() : q.vec()(k - 1));
          break;
        case Quantity::Velocity:
          put(b->velocity(k));
          break;
        case Quantity::AngularVelocity:
          put(b->angular_velocity(k));
          break;
        default:
          put(0.0);
      }
  }
  return "0" + row + "\n1" + row + "\n";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  using namespace appell;
  if (size > 1 << 16) return 0;
  const std::string input(reinterpret_cast<const char*>(bytes), size);
  const size_t nul = input.find('\0');
  const std::string text = input.substr(0, nul);
  Scene scene;
  try {
    scene = load_scene_from_string(text, "scene.json");
  } catch (const SceneError&) {
    return 0;
  }
  const Model m = compile(scene);
  if (m.nbody() > 24 || m.nrows() > 96) return 0;  // keep one input fast

  std::string traj_rows, forces_rows;
  bool with_forces = false;
  if (nul == std::string::npos) {
    traj_rows = initial_rows(m);
  } else {
    const size_t nul2 = input.find('\0', nul + 1);
    traj_rows = input.substr(nul + 1, nul2 == std::string::npos ? nul2 : nul2 - nul - 1);
    if (nul2 != std::string::npos) {
      with_forces = true;
      forces_rows = input.substr(nul2 + 1);
    }
  }
  std::istringstream traj(traj_schema(m).header() + traj_rows);
  std::istringstream forces(forces_schema(m).header() + forces_rows);
  cli::ReportSeries series;
  try {
    series = cli::read_series(m, traj, "traj.csv", with_forces ? &forces : nullptr, "forces.csv");
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) __builtin_trap();  // one line
    if (what.rfind("traj.csv", 0) != 0 && what.rfind("forces.csv", 0) != 0) __builtin_trap();
    return 0;
  }

  cli::ReportMeta meta;
  meta.scene_file = "scene.json";
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  const std::string page = cli::report_page(m, meta, doc, series);

  // the data block: no raw '<' inside, and it reads back to the Model's names
  const std::string open = "<script type=\"application/json\" id=\"appell-data\">";
  const size_t a = page.find(open);
  if (a == std::string::npos) __builtin_trap();
  const size_t b = page.find("</script>", a);
  if (b == std::string::npos) __builtin_trap();
  const std::string block = page.substr(a + open.size(), b - a - open.size());
  if (block.find('<') != std::string::npos || block.find('>') != std::string::npos ||
      block.find('&') != std::string::npos)
    __builtin_trap();
  const nlohmann::json data = nlohmann::json::parse(block, nullptr, false);
  if (data.is_discarded()) __builtin_trap();
  const nlohmann::json& bodies = data.at("scene").at("bodies");
  if (!bodies.is_array() || bodies.size() != static_cast<size_t>(m.nbody())) __builtin_trap();
  for (int i = 0; i < m.nbody(); ++i)
    if (bodies.at(i).at("name") != m.bodies()[i].name) __builtin_trap();
  return 0;
}
