// The allocation counter of allocation_counter.hpp, and a check that it counts.
#include "allocation_counter.hpp"

#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cstddef>
#include <memory>

namespace appell_test {
std::atomic<bool> g_armed{false};
std::atomic<long> g_allocations{0};
}  // namespace appell_test

#if APPELL_COUNT_MALLOC
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
// every heap allocation (operator new and Eigen both end here) while armed
void* malloc(std::size_t n) {
  if (appell_test::g_armed.load(std::memory_order_relaxed)) ++appell_test::g_allocations;
  return __libc_malloc(n);
}
void* calloc(std::size_t k, std::size_t n) {
  if (appell_test::g_armed.load(std::memory_order_relaxed)) ++appell_test::g_allocations;
  return __libc_calloc(k, n);
}
void* realloc(void* p, std::size_t n) {
  if (appell_test::g_armed.load(std::memory_order_relaxed)) ++appell_test::g_allocations;
  return __libc_realloc(p, n);
}
}
#endif

namespace {

// the counter can fail: a dynamic Eigen vector and a std::make_unique are seen, a fixed-size
// vector is not
TEST(AllocationCounter, SeesEigenAndOperatorNew) {
#if !APPELL_COUNT_MALLOC
  GTEST_SKIP() << "malloc counting is off under AddressSanitizer";
#else
  static double* volatile sink = nullptr;
  long dynamic = 0, fixed = 0;
  {
    appell_test::AllocationScope scope;
    Eigen::VectorXd v = Eigen::VectorXd::Ones(1000);
    sink = v.data();
    (void)sink;
    auto p = std::make_unique<double>(2.0);
    sink = p.get();
    dynamic = scope.count();
  }
  {
    appell_test::AllocationScope scope;
    Eigen::Vector3d v = Eigen::Vector3d::Ones();
    sink = v.data();
    (void)sink;
    fixed = scope.count();
  }
  EXPECT_EQ(dynamic, 2);
  EXPECT_EQ(fixed, 0);
#endif
}

}  // namespace
