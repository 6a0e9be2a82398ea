// The library's floors (docs/architecture.md, "Floors"): data flows down only.  Every
// quoted #include of the sources is read and checked against the documented order:
//
//   bodies/ → constraints/ → engine/model/ → engine/assembly/ → engine/formulations/
//     → engine/contact/ | engine/lagrangian/ → engine/run/;   scenes/, cli/ apart
//
// A file includes the public headers (appell/), its own floor's and those of the floors
// above it; two floors side by side (contact/, lagrangian/) include neither; scenes/ and
// cli/ include only the public headers and their own folder's; the public headers include
// only public headers; no file includes a source file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace appell {
namespace {

namespace fs = std::filesystem;

// a floor: its folder and its depth (0 the top); `own_only`: includes nothing private
// beyond its own folder
struct Floor {
  const char* folder;
  int depth;
  bool own_only;
};
constexpr Floor kFloors[] = {
    {"bodies/", 0, false},
    {"constraints/", 1, false},
    {"engine/model/", 2, false},
    {"engine/assembly/", 3, false},
    {"engine/formulations/", 4, false},
    {"engine/contact/", 5, false},
    {"engine/lagrangian/", 5, false},
    {"engine/run/", 6, false},
    {"scenes/", 7, true},
    {"cli/", 7, true},
};

// the floor a path (from the source root) lies on, null for none
const Floor* floor_of(const std::string& path) {
  for (const Floor& f : kFloors)
    if (path.rfind(f.folder, 0) == 0) return &f;
  return nullptr;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Why `file` (a path from the source root) may not include "include", "" when it may.  A
// name without a folder, or starting with . or .., is relative to the file's folder; any
// other is from the source root or include/ (the include path).
std::string refusal(const std::string& file, const std::string& include) {
  if (ends_with(include, ".cpp")) return "includes a source file";
  if (include.rfind("appell/", 0) == 0) return "";
  std::string target = include;
  if (include.find('/') == std::string::npos || include[0] == '.')
    target = (fs::path(file).parent_path() / include).lexically_normal().generic_string();
  const Floor* from = floor_of(file);
  const Floor* to = floor_of(target);
  if (!from) return "the file is on no floor";
  if (!to) return "'" + target + "' is on no floor (a private header must be on one)";
  if (from == to) return "";
  if (from->own_only)
    return std::string(from->folder) + " includes only the public headers and its own folder's";
  if (to->own_only) return std::string(to->folder) + " is below every floor of the library";
  if (to->depth == from->depth)
    return std::string(to->folder) + " is beside " + from->folder + ", not above it";
  if (to->depth > from->depth)
    return std::string(to->folder) + " is below " + from->folder + " (data flows down only)";
  return "";
}

// every quoted #include of the .cpp, .hpp and .h files under `folder`: "file:line:
// #include "x": why" for those `allowed` refuses; `files` counts the files read
template <class Rule>
std::vector<std::string> offending(const std::string& folder, const Rule& allowed, int& files) {
  const fs::path root = APPELL_SOURCE_DIR;
  const std::regex line_re(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
    ++files;
    const std::string file = entry.path().lexically_relative(root).generic_string();
    std::ifstream in(entry.path());
    std::string line;
    std::smatch m;
    for (int n = 1; std::getline(in, line); ++n) {
      if (!std::regex_search(line, m, line_re)) continue;
      const std::string why = allowed(file, m[1].str());
      if (!why.empty())
        out.push_back(file + ":" + std::to_string(n) + ": #include \"" + m[1].str() + "\": " + why);
    }
  }
  return out;
}

TEST(Layering, TheRuleAdmitsIncludesDownTheFloors) {
  // the public headers, the own floor, the floors above
  EXPECT_EQ(refusal("cli/eval.cpp", "appell/model.hpp"), "");
  EXPECT_EQ(refusal("engine/model/tree.cpp", "engine/model/tree.hpp"), "");
  EXPECT_EQ(refusal("engine/formulations/recursive/linearize.cpp",
                    "engine/formulations/recursive/workspace.hpp"),
            "");
  EXPECT_EQ(refusal("engine/assembly/stages.cpp", "engine/model/tree.hpp"), "");
  EXPECT_EQ(refusal("engine/contact/moreau.cpp", "engine/formulations/rank_policy.hpp"), "");
  EXPECT_EQ(refusal("engine/run/simulation.cpp", "engine/contact/moreau.hpp"), "");
  EXPECT_EQ(refusal("engine/run/integrators/rk4.cpp", "engine/lagrangian/first_order.hpp"), "");
  EXPECT_EQ(refusal("engine/lagrangian/sweep.hpp", "constraints/expression_scalar.hpp"), "");
  EXPECT_EQ(refusal("constraints/row_jet.hpp", "bodies/dual_number.hpp"), "");
  EXPECT_EQ(refusal("scenes/mjcf.cpp", "scenes/xml_outline.hpp"), "");
  EXPECT_EQ(refusal("constraints/joints/free.cpp", "common.hpp"), "");
}

TEST(Layering, TheRuleRefusesIncludesUpOrAcross) {
  // up: engine/model/ below engine/assembly/, engine/lagrangian/ above engine/run/
  EXPECT_EQ(refusal("engine/model/tree.cpp", "engine/assembly/stages.hpp"),
            "engine/assembly/ is below engine/model/ (data flows down only)");
  EXPECT_EQ(
      refusal("engine/lagrangian/lagrangian_run.cpp", "engine/run/integrators/integrator.hpp"),
      "engine/run/ is below engine/lagrangian/ (data flows down only)");
  EXPECT_NE(refusal("constraints/joint_state.cpp", "engine/assembly/stages.hpp"), "");
  EXPECT_NE(refusal("bodies/body.cpp", "constraints/kernels.hpp"), "");
  // across: two floors side by side
  EXPECT_EQ(refusal("engine/contact/moreau.cpp", "engine/lagrangian/sweep.hpp"),
            "engine/lagrangian/ is beside engine/contact/, not above it");
  // the programs: only the public headers and their own folder's
  EXPECT_EQ(refusal("scenes/lagrangian_scene.cpp", "engine/lagrangian/sweep.hpp"),
            "scenes/ includes only the public headers and its own folder's");
  EXPECT_NE(refusal("cli/report_scene.cpp", "scenes/shapes.hpp"), "");
  EXPECT_NE(refusal("engine/run/simulation.cpp", "cli/outputs.hpp"), "");
  // nothing off the floors, no source file
  EXPECT_NE(refusal("engine/run/simulation.cpp", "tests/printers.hpp"), "");
  EXPECT_EQ(refusal("engine/formulations/pinv.cpp", "engine/formulations/forward.cpp"),
            "includes a source file");
  EXPECT_NE(refusal("constraints/joints/free.cpp", "../../engine/model/tree.hpp"), "");
}

TEST(Layering, EveryIncludeOfTheSourcesGoesDownTheFloors) {
  int files = 0;
  for (const char* folder : {"bodies", "constraints", "engine", "scenes", "cli"})
    for (const std::string& v : offending(folder, refusal, files)) ADD_FAILURE() << v;
  EXPECT_GT(files, 150);  // the sources were found
}

TEST(Layering, PublicHeadersIncludeOnlyPublicHeaders) {
  int files = 0;
  const auto public_only = [](const std::string&, const std::string& include) {
    return include.rfind("appell/", 0) == 0 ? std::string()
                                            : std::string("a public header needs nothing private");
  };
  for (const std::string& v : offending("include/appell", public_only, files)) ADD_FAILURE() << v;
  EXPECT_GT(files, 30);
}

}  // namespace
}  // namespace appell
