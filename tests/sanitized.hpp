// APPELL_SANITIZED: 1 when this file is compiled under AddressSanitizer or ThreadSanitizer
// (g++ says so with __SANITIZE_*__, clang with __has_feature), where the program runs about
// ten times slower and reserves more address space.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define APPELL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define APPELL_SANITIZED 1
#endif
#endif
#ifndef APPELL_SANITIZED
#define APPELL_SANITIZED 0
#endif
