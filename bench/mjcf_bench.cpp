// The MJCF import's cost in the size of the document (scenes/mjcf.cpp): it should grow
// linearly.  Three shapes of document, swept over n with ->Range so the slope shows:
//   * n sibling elements, each with an unread attribute of its own (n warnings, of which
//     100 are kept): the element paths of the messages;
//   * n bodies on hinges from the world: the conversion and the scene;
//   * 200 default classes of one attribute each under a main class, used by n geoms.
// Each iteration parses the text and converts it (load_scene_from_string), no compile.
#include <benchmark/benchmark.h>

#include <appell/appell.hpp>
#include <string>

namespace {

std::string warnings_document(int n) {
  std::string xml = "<mujoco><worldbody><body name='b'><joint/><geom size='0.1'/></body>\n";
  for (int i = 0; i < n; ++i)
    xml += "<site name='s" + std::to_string(i) + "' x" + std::to_string(i) + "='1'/>\n";
  return xml + "</worldbody></mujoco>";
}

std::string bodies_document(int n) {
  std::string xml = "<mujoco><worldbody>\n";
  for (int i = 0; i < n; ++i) xml += "<body><joint/><geom size='0.1'/></body>\n";
  return xml + "</worldbody></mujoco>";
}

std::string classes_document(int n) {
  std::string xml = "<mujoco><default><geom density='2000'/>\n";
  for (int c = 0; c < 200; ++c)
    xml += "<default class='c" + std::to_string(c) + "'><geom friction='0.5'/></default>\n";
  xml += "</default><worldbody><body name='b'><joint/>\n";
  for (int g = 0; g < n; ++g)
    xml += "<geom class='c" + std::to_string(g % 200) +
           "' type='box' size='0.1 0.1 0.1' contype='0' conaffinity='0'/>\n";
  return xml + "</body></worldbody></mujoco>";
}

template <std::string (*Document)(int)>
void BM_MjcfImport(benchmark::State& state) {
  const std::string xml = Document(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    appell::Scene s = appell::load_scene_from_string(xml, "bench.xml");
    benchmark::DoNotOptimize(s);
  }
  state.SetComplexityN(state.range(0));
}

BENCHMARK_TEMPLATE(BM_MjcfImport, warnings_document)
    ->RangeMultiplier(4)
    ->Range(1000, 64000)
    ->Complexity();
BENCHMARK_TEMPLATE(BM_MjcfImport, bodies_document)
    ->RangeMultiplier(2)
    ->Range(500, 8000)
    ->Complexity();
BENCHMARK_TEMPLATE(BM_MjcfImport, classes_document)
    ->RangeMultiplier(2)
    ->Range(1000, 8000)
    ->Complexity();

}  // namespace
