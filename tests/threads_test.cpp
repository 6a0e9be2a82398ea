// One Model, many simulations at once (README, Embedding, STYLE §1b): a Model is constant and every
// Simulation owns its Data, so simulations of one Model on 4 threads give, bit for bit,
// what the same simulations give one after another.  `make test-tsan` runs this file
// alone under ThreadSanitizer.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using appell::Formulation;
using appell::Model;
using appell::Sample;
using appell::SimulationOptions;

// every number an output row would hold, sample after sample
std::vector<double> trajectory(const Model& m, Formulation f, const char* method,
                               const appell::State& initial) {
  SimulationOptions o;
  o.formulation = f;
  o.integrator.method = method;
  o.integrator.duration = 0.2;
  o.integrator.dt = 0.01;
  std::vector<double> out;
  const auto r = appell::simulate(m, initial, o, [&](const Sample& s) {
    out.push_back(s.t);
    for (const appell::BodyState& b : s.data.body) {
      out.insert(out.end(), b.x.data(), b.x.data() + 3);
      out.insert(out.end(), b.Q.data(), b.Q.data() + 9);
      out.insert(out.end(), b.v.data(), b.v.data() + 3);
      out.insert(out.end(), b.w.data(), b.w.data() + 3);
    }
    out.insert(out.end(), s.data.lambda.data(), s.data.lambda.data() + s.data.lambda.size());
    out.push_back(s.energy);
  });
  EXPECT_TRUE(r.ok()) << r.message;
  return out;
}

struct Job {
  Formulation f;
  const char* method;
  int perturbation;  // which initial state
};

// the model's initial state with its joint rates scaled, so that the jobs differ
appell::State initial_state(const Model& m, int k) {
  appell::State s = m.initial_state();
  s.u *= 1.0 + 0.5 * k;
  return s;
}

TEST(Threads, OneModelOnFourThreadsMatchesSerialBitForBit) {
  const Model m =
      appell::load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/four_bar.json");
  const std::vector<Job> jobs = {
      {Formulation::Recursive, "rk4", 0},    {Formulation::Sparse, "dopri5", 1},
      {Formulation::Pinv, "rkf78", 2},       {Formulation::GibbsAppell, "rk4", 3},
      {Formulation::Recursive, "dopri5", 4}, {Formulation::Sparse, "rk4", 5},
      {Formulation::Pinv, "dopri5", 6},      {Formulation::GibbsAppell, "rkf78", 7}};

  // one after another
  std::vector<std::vector<double>> serial;
  for (const Job& j : jobs)
    serial.push_back(trajectory(m, j.f, j.method, initial_state(m, j.perturbation)));

  // 4 threads at once, each taking every 4th job
  std::vector<std::vector<double>> parallel(jobs.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (size_t k = t; k < jobs.size(); k += 4)
        parallel[k] =
            trajectory(m, jobs[k].f, jobs[k].method, initial_state(m, jobs[k].perturbation));
    });
  for (std::thread& th : threads) th.join();

  for (size_t k = 0; k < jobs.size(); ++k) {
    ASSERT_FALSE(serial[k].empty());
    ASSERT_EQ(serial[k].size(), parallel[k].size()) << "job " << k;
    EXPECT_EQ(std::memcmp(serial[k].data(), parallel[k].data(), serial[k].size() * sizeof(double)),
              0)
        << "job " << k << " differs";
  }
  // and the jobs do differ from each other, so the comparison could fail
  EXPECT_NE(serial[0], serial[4]);
}

}  // namespace
