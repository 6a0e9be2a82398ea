// The catalogue of malformed scenes (tests/bad_scenes/README.md): every one exits 2 with
// its one located line, prints nothing on stdout, writes no output file and is quick.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "sanitized.hpp"

namespace {

using appell::testing::read_file;
using appell::testing::run_cli;
using appell::testing::write_temp;

const std::string kDir = std::string(APPELL_SOURCE_DIR) + "/tests/bad_scenes/";

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  if (DIR* d = opendir(kDir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string f = e->d_name;
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".json") == 0)
        names.push_back(f.substr(0, f.size() - 5));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// the entries of a directory other than . and ..
int entries(const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d))
      n += std::string(e->d_name) != "." && std::string(e->d_name) != "..";
    closedir(d);
  }
  return n;
}

// The message's pointer with the one-line escapes undone ("\n" → newline), or "" when
// the message has none.
std::string pointer_of(const std::string& message) {
  if (message.empty() || message[0] != '/') return "";
  std::string p = message.substr(0, message.find(": "));
  for (size_t i; (i = p.find("\\n")) != std::string::npos;) p.replace(i, 2, "\n");
  return p;
}

// A refusal is quick: a second in a plain build; the sanitizers slow the program about
// tenfold, so there the bound only catches a hang.
constexpr double kRefusalSeconds = APPELL_SANITIZED ? 10.0 : 1.0;

// Runs `args` on a scene, expects exit 2 with exactly `error: <scene>: <expected>` and
// within kRefusalSeconds.
void expect_refused(const std::string& args, const std::string& scene,
                    const std::string& expected) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_cli(args);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, 2) << args;
  EXPECT_EQ(r.out, "") << args;
  EXPECT_EQ(r.err, "error: " + scene + ": " + expected + "\n") << args;
  EXPECT_LT(seconds, kRefusalSeconds) << args;
}

TEST(BadScenes, TheCatalogueCoversAtLeastSixtyCases) {
  EXPECT_GE(case_names().size(), 60u);
}

class BadScene : public ::testing::TestWithParam<std::string> {};

TEST_P(BadScene, ExitsTwoWithOneLocatedLineAndNoOutput) {
  const std::string scene = kDir + GetParam() + ".json";
  std::string expected = read_file(kDir + GetParam() + ".expected");
  ASSERT_FALSE(expected.empty());
  ASSERT_EQ(expected.back(), '\n');
  expected.pop_back();
  ASSERT_EQ(expected.find('\n'), std::string::npos) << "one line";

  // no output file, not even a temporary beside one
  const std::string dir =
      ::testing::TempDir() + "bad_scene_" + std::to_string(getpid()) + "_" + GetParam();
  ::mkdir(dir.c_str(), 0755);
  expect_refused("simulate '" + scene + "' --out " + dir + "/t.csv --summary " + dir +
                     "/s.json --forces " + dir + "/f.csv",
                 scene, expected);
  EXPECT_EQ(entries(dir), 0) << "files written into " << dir;
  ::rmdir(dir.c_str());
  expect_refused("check '" + scene + "'", scene, expected);
  expect_refused("eval '" + scene + "'", scene, expected);

  // where the file is JSON, the pointer names one of its values (nlohmann's own
  // RFC 6901 reading, independent of the loader's)
  const std::string pointer = pointer_of(expected);
  const auto doc = nlohmann::json::parse(read_file(scene), nullptr, false);
  if (!pointer.empty() && !doc.is_discarded()) {
    EXPECT_TRUE(doc.contains(nlohmann::json::json_pointer(pointer))) << pointer;
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadScene, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           std::replace_if(
                               n.begin(), n.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return n;
                         });

// The limits of docs/scene-format.md, on inputs too large to store.
TEST(BadScenes, InputSizeIsBounded) {
  // /dev/zero never ends: devices are refused before any read
  expect_refused("check /dev/zero", "/dev/zero",
                 "not a regular file (a device, a pipe or a socket); scenes and URDFs are read "
                 "from files");
  const std::string big = write_temp("big.json", std::string((16u << 20) + 1, ' '));
  expect_refused("check " + big, big, "the file is larger than the limit of 16 MiB for a scene");
  std::remove(big.c_str());
}

TEST(BadScenes, ArraysAndBodiesAreBounded) {
  std::string zeros = "{\"gravity\": [0";
  for (int i = 0; i < 100000; ++i) zeros += ",0";
  const std::string arr = write_temp("huge_array.json", zeros + "]}");
  expect_refused("check " + arr, arr,
                 "/gravity/100000: more than the limit of 100000 array elements");
  std::string bodies = "{\"bodies\": [";
  for (int i = 0; i <= 10000; ++i)
    bodies += (i ? ", " : "") + std::string("{\"name\": \"b") + std::to_string(i) +
              "\", \"type\": \"particle\", \"mass\": 1}";
  const std::string many = write_temp("many_bodies.json", bodies + "]}");
  expect_refused("check " + many, many, "/bodies: 10001 bodies, more than the limit of 10000");
  std::remove(arr.c_str());
  std::remove(many.c_str());
}

}  // namespace
