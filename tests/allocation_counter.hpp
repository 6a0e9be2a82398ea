// A heap-allocation counter for the tests' no-allocation promises (recursive, sparse).
//
// tests/allocation_counter_test.cpp interposes malloc, calloc and realloc for the whole
// test binary (glibc resolves the executable's definitions first, for the library,
// libstdc++'s operator new and Eigen alike) and forwards them to glibc's own entry points;
// a call is counted only while an AllocationScope is alive, so the other tests are not
// affected.  Under AddressSanitizer, which owns the allocator, nothing is interposed and
// APPELL_COUNT_MALLOC is 0: tests that count skip.
#pragma once

#include <atomic>

#if defined(__SANITIZE_ADDRESS__)
#define APPELL_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define APPELL_COUNT_MALLOC 0
#endif
#endif
#ifndef APPELL_COUNT_MALLOC
#define APPELL_COUNT_MALLOC 1
#endif

namespace appell_test {

extern std::atomic<bool> g_armed;
extern std::atomic<long> g_allocations;

// counts the allocations made while it lives (one scope at a time)
struct AllocationScope {
  AllocationScope() {
    g_allocations = 0;
    g_armed = true;
  }
  ~AllocationScope() { g_armed = false; }
  AllocationScope(const AllocationScope&) = delete;
  AllocationScope& operator=(const AllocationScope&) = delete;
  long count() const { return g_allocations.load(); }
};

}  // namespace appell_test
