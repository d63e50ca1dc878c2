// The allocators of allocation_watch.hpp. Each forwards to glibc's own entry points (__libc_*),
// which glibc exports for exactly this use, so nothing here allocates or recurses; while a watch
// is open each call first records its stack (backtrace into a static table: no allocation).
#include "support/allocation_watch.hpp"

#include <dlfcn.h>
#include <execinfo.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace {

constexpr long kRecords = 4096;
constexpr int kFrames = 16;
// The first two frames of a record are record() and the allocator that called it.
constexpr int kHookFrames = 2;

std::atomic<bool> watching{false};
std::atomic<long> recorded{0};
void* frames[kRecords][kFrames];
int depths[kRecords];
std::size_t sizes[kRecords];
thread_local bool inside = false;  // backtrace() itself must not be recorded

__attribute__((noinline)) void record(std::size_t bytes) {
  if (!watching.load(std::memory_order_acquire) || inside) return;
  inside = true;
  const long k = recorded.fetch_add(1, std::memory_order_relaxed);
  if (k < kRecords) {
    depths[k] = backtrace(frames[k], kFrames);
    sizes[k] = bytes;
  }
  inside = false;
}

bool is_runtime(const char* file) {
  const char* base = std::strrchr(file, '/');
  base = base ? base + 1 : file;
  for (const char* prefix : {"libc.so", "libstdc++", "libgcc_s", "libm.so", "ld-linux", "libgomp"})
    if (std::strncmp(base, prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

void* aligned(std::size_t alignment, std::size_t n) { return __libc_memalign(alignment, n ? n : 1); }

}  // namespace

extern "C" {

__attribute__((noinline)) void* malloc(std::size_t n) {
  record(n);
  return __libc_malloc(n);
}
__attribute__((noinline)) void* calloc(std::size_t count, std::size_t n) {
  record(count * n);
  return __libc_calloc(count, n);
}
__attribute__((noinline)) void* realloc(void* p, std::size_t n) {
  record(n);
  return __libc_realloc(p, n);
}
__attribute__((noinline)) void* aligned_alloc(std::size_t alignment, std::size_t n) {
  record(n);
  return aligned(alignment, n);
}
__attribute__((noinline)) void* memalign(std::size_t alignment, std::size_t n) {
  record(n);
  return aligned(alignment, n);
}
__attribute__((noinline)) int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  record(n);
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  void* p = aligned(alignment, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"

// The global operator new family (the matching deletes are the C++ library's, which call free).
__attribute__((noinline)) void* operator new(std::size_t n) {
  record(n);
  if (void* p = __libc_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new[](std::size_t n) {
  record(n);
  if (void* p = __libc_malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  record(n);
  return __libc_malloc(n ? n : 1);
}
__attribute__((noinline)) void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  record(n);
  return __libc_malloc(n ? n : 1);
}
__attribute__((noinline)) void* operator new(std::size_t n, std::align_val_t a) {
  record(n);
  if (void* p = aligned(static_cast<std::size_t>(a), n)) return p;
  throw std::bad_alloc();
}
__attribute__((noinline)) void* operator new[](std::size_t n, std::align_val_t a) {
  record(n);
  if (void* p = aligned(static_cast<std::size_t>(a), n)) return p;
  throw std::bad_alloc();
}

namespace volfft_test {

void start_watch() {
  void* warm[2];
  backtrace(warm, 2);  // the first call loads libgcc_s (allocating): not inside a watch
  recorded.store(0, std::memory_order_relaxed);
  watching.store(true, std::memory_order_release);
}

std::vector<Allocation> stop_watch(long* overflow) {
  watching.store(false, std::memory_order_release);
  const long n = recorded.load(std::memory_order_relaxed);
  const long kept = n < kRecords ? n : kRecords;
  if (overflow) *overflow = n - kept;
  std::vector<Allocation> out;
  for (long k = 0; k < kept; ++k) {
    Allocation a{"?", "?", sizes[k]};
    for (int f = kHookFrames; f < depths[k]; ++f) {
      Dl_info info{};
      if (!dladdr(frames[k][f], &info) || !info.dli_fname) continue;
      if (is_runtime(info.dli_fname)) continue;
      const char* base = std::strrchr(info.dli_fname, '/');
      a.owner = base ? base + 1 : info.dli_fname;
      char text[64];
      std::snprintf(text, sizeof text, "+0x%zx",
                    static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(frames[k][f]) -
                                             reinterpret_cast<std::uintptr_t>(info.dli_fbase)));
      a.function = std::string(info.dli_sname ? info.dli_sname : "") + text;
      break;
    }
    out.push_back(a);
  }
  return out;
}

bool is_volfft(const Allocation& a) { return a.owner.rfind("libvolfft", 0) == 0; }

}  // namespace volfft_test
