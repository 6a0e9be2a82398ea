// `auto` (resolve_formulation): recursive on joints with few rows beyond the tree, sparse
// when the extra rows are many (kAutoSparseExtraRows, include/appell/forward.hpp) or when
// there are no joints; and what it picks evaluates like the formulation it stands for.
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/standard_chain.hpp>
#include <appell/tree.hpp>

#include "bench/chain_scenes.hpp"
#include "engine/model/tree.hpp"
#include "printers.hpp"

namespace {

using namespace appell;

TEST(AutoFormulation, RecursiveForFewExtraRowsSparseForMany) {
  // each side of the rule, on the chain of 20 links
  const Model at = bench::chain_with_extra_rows(20, kAutoSparseExtraRows);
  const Model beyond = bench::chain_with_extra_rows(20, kAutoSparseExtraRows + 1);
  ASSERT_EQ(at.tree().nrows_extra, kAutoSparseExtraRows);
  ASSERT_EQ(beyond.tree().nrows_extra, kAutoSparseExtraRows + 1);
  EXPECT_EQ(resolve_formulation(at, Formulation::Auto), Formulation::Recursive);
  EXPECT_EQ(resolve_formulation(beyond, Formulation::Auto), Formulation::Sparse);
  // a tree, one loop closure, a redundant row per joint, a net of particles (no joints)
  EXPECT_EQ(resolve_formulation(bench::standard_chain(100), Formulation::Auto),
            Formulation::Recursive);
  EXPECT_EQ(resolve_formulation(bench::closed_chain(100), Formulation::Auto),
            Formulation::Recursive);
  EXPECT_EQ(resolve_formulation(bench::redundant_chain(100), Formulation::Auto),
            Formulation::Sparse);
  EXPECT_EQ(resolve_formulation(bench::particle_net(4), Formulation::Auto), Formulation::Sparse);
  // an explicit choice is kept
  EXPECT_EQ(resolve_formulation(beyond, Formulation::Recursive), Formulation::Recursive);
}

// forward(Auto) is forward(the resolved formulation), and both sides agree with each other
TEST(AutoFormulation, EvaluatesAsTheFormulationItPicks) {
  for (int extra : {kAutoSparseExtraRows, kAutoSparseExtraRows + 1}) {
    const Model m = bench::chain_with_extra_rows(20, extra);
    Data da(m), dr(m), ds(m);
    for (Data* d : {&da, &dr, &ds}) bench::standard_state(m, *d);
    ASSERT_EQ(forward(m, da, Formulation::Auto), SolveStatus::Ok);
    ASSERT_EQ(forward(m, dr, Formulation::Recursive), SolveStatus::Ok);
    ASSERT_EQ(forward(m, ds, Formulation::Sparse), SolveStatus::Ok);
    const Data& picked = resolve_formulation(m, Formulation::Auto) == Formulation::Sparse ? ds : dr;
    EXPECT_EQ(da.udot, picked.udot) << extra;
    EXPECT_LT((dr.udot - ds.udot).norm(), 1e-8 * (1.0 + dr.udot.norm())) << extra;
  }
}

}  // namespace
