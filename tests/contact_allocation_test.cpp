// The contact step allocates nothing once its workspaces are sized (engine/contact/moreau.hpp)
// while its rows keep their number: a box and a ball at rest on the ground, a pendulum on its
// limit, the quadruped standing on its feet, and a stack of ten boxes, whose low-rank island's
// factor by the bodies' blocks keeps its pattern.  (A step whose rows change in number
// resizes them; an island solved on a sparse G allocates inside Eigen's sparse Cholesky.)
#include <gtest/gtest.h>

#include <appell/appell.hpp>
#include <appell/contact.hpp>
#include <string>

#include "allocation_counter.hpp"
#include "engine/contact/moreau.hpp"

namespace {

using namespace appell;
using appell_test::AllocationScope;

// steps taken before counting: the rows' workspaces reach their largest sizes
constexpr int kWarmup = 1500;

[[maybe_unused]] long allocations_per_step(const std::string& file, int steps, int* rows) {
  const Model m = load_model(std::string(APPELL_SOURCE_DIR) + "/scenes/examples/" + file);
  Data d(m);
  Eigen::VectorXd q = m.initial_state().q, u = m.initial_state().u;
  EXPECT_EQ(forward(m, d, State{0.0, q, u}), SolveStatus::Ok);
  MoreauStepper stepper(m, make_contact_detector(m));
  const double h = 1e-3;
  for (int k = 0; k < kWarmup; ++k)
    if (stepper.step(k * h, h, q, u, d) != SolveStatus::Ok) return -1;
  long count = 0;
  *rows = 0;
  {
    AllocationScope scope;
    for (int k = kWarmup; k < kWarmup + steps; ++k) {
      if (stepper.step(k * h, h, q, u, d) != SolveStatus::Ok) return -1;
      *rows = std::max(*rows, stepper.stats().rows);
    }
    count = scope.count();
  }
  return count;
}

TEST(ContactAllocation, NoneOnceTheWorkspacesAreSized) {
#if !APPELL_COUNT_MALLOC
  GTEST_SKIP() << "malloc counting is off under AddressSanitizer";
#else
  for (const char* file : {"box_on_ground_shapes.json", "limits_pendulum.json",
                           "robots/quadruped_standing.json", "contact_box_stack.json"}) {
    int rows = 0;
    const long count = allocations_per_step(file, 50, &rows);
    EXPECT_GT(rows, 0) << file;  // the steps had rows to solve
    EXPECT_EQ(count, 0) << file;
  }
#endif
}

}  // namespace
