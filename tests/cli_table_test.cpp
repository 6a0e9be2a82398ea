// `appell check` and `eval` for people (--table, the default on a terminal) and for
// machines (--json; eval's JSON also in a pipe): the same facts in both.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace {

using appell::testing::CliResult;
using appell::testing::run_cli;

const std::string kPendulum =
    std::string(APPELL_SOURCE_DIR) + "/scenes/examples/double_pendulum.json";

// an arm on a hinge (6 − 5) and a bob on a rod (3 − 1): 3 degrees of freedom, rank 6
TEST(CliTable, CheckTableAndJsonGiveTheDegreesOfFreedom) {
  const CliResult table = run_cli("check --table " + kPendulum);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("constraint rank 6 · degrees of freedom 3\n"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  hinge  revolute  5     arm\n"), std::string::npos) << table.out;

  const CliResult json = run_cli("check --json " + kPendulum);
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["dof"], 3);
  EXPECT_EQ(j["constraint_rank"], 6);
  EXPECT_EQ(j["bodies"][1]["type"], "particle");
  EXPECT_EQ(j["constraints"][1]["name"], "rod");
}

TEST(CliTable, EvalTableShowsWhatTheJsonHolds) {
  const CliResult piped = run_cli("eval " + kPendulum);  // a pipe: JSON
  ASSERT_EQ(piped.status, 0) << piped.err;
  const auto j = nlohmann::json::parse(piped.out);
  const CliResult table = run_cli("eval --table " + kPendulum);
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("degrees of freedom " + j["dof"].dump()), std::string::npos);
  for (const auto& [name, c] : j["constraints"].items())
    for (const auto& [body, w] : c["bodies"].items())
      EXPECT_NE(table.out.find("  " + name + std::string(10 - name.size() + 2, ' ') + body),
                std::string::npos)
          << name << " on " << body << "\n"
          << table.out;
  EXPECT_EQ(run_cli("eval --json --table " + kPendulum).status, 2);
}

}  // namespace
