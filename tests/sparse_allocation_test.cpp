// The sparse formulation's symbolic analysis is made once per Data and Model, and after the
// first evaluation nothing is allocated (engine/formulations/sparse_workspace.hpp).
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <utility>

#include "allocation_counter.hpp"
#include "bench/chain_scenes.hpp"
#include "engine/formulations/sparse_workspace.hpp"

namespace {

using namespace appell;
using appell_test::AllocationScope;

TEST(SparseAllocation, NoneAfterTheFirstEvaluation) {
#if !APPELL_COUNT_MALLOC
  GTEST_SKIP() << "malloc counting is off under AddressSanitizer";
#else
  // a tree, one loop, a redundant row per joint (dropped pivots), many loops of particles
  const std::pair<Model, bool> scenes[] = {{bench::standard_chain(30), true},
                                           {bench::closed_chain(30), true},
                                           {bench::redundant_chain(10), true},
                                           {bench::particle_net(6), false}};
  for (const auto& [m, standard_state] : scenes) {
    Data d(m);
    if (standard_state) bench::standard_state(m, d);  // else the state the scene gives
    ASSERT_EQ(forward(m, d, Formulation::Sparse), SolveStatus::Ok) << m.name();
    const SparseWorkspace* analysed = d.sparse.workspace.get();
    const Eigen::VectorXd first = d.udot;
    long count = 0;
    {
      AllocationScope scope;
      for (int k = 0; k < 10; ++k) forward(m, d, Formulation::Sparse);
      count = scope.count();
    }
    EXPECT_EQ(count, 0) << m.name();
    EXPECT_EQ(d.sparse.workspace.get(), analysed) << m.name();  // analysed once
    EXPECT_EQ(d.udot, first) << m.name();                       // and the same numbers
  }
#endif
}

// a Data reused with another Model of the same sizes is analysed again for it
TEST(SparseAllocation, AnotherModelIsAnalysedAgain) {
  const Model m1 = bench::standard_chain(6), m2 = bench::closed_chain(5);
  const Model m3 = compile(bench::standard_chain_builder(6));  // compiled again: new rows
  Data d(m1), fresh(m3);
  bench::standard_state(m1, d);
  ASSERT_EQ(forward(m1, d, Formulation::Sparse), SolveStatus::Ok);
  bench::standard_state(m3, fresh);
  d.q = fresh.q;
  d.u = fresh.u;
  ASSERT_EQ(forward(m3, d, Formulation::Sparse), SolveStatus::Ok);
  ASSERT_EQ(forward(m3, fresh, Formulation::Sparse), SolveStatus::Ok);
  EXPECT_TRUE(d.sparse.workspace->fits(m3));
  EXPECT_FALSE(d.sparse.workspace->fits(m1));
  EXPECT_FALSE(d.sparse.workspace->fits(m2));
  EXPECT_EQ(d.udot, fresh.udot);
}

}  // namespace
