#include "fftw_mpi/registry.hpp"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace volfft::fftw_mpi {

namespace {

std::mutex& lock() {
  static std::mutex m;
  return m;
}

std::unordered_map<const void*, std::unique_ptr<MpiPlan>>& plans() {
  static auto* p = new std::unordered_map<const void*, std::unique_ptr<MpiPlan>>();  // never destroyed:
  return *p;  // fftw_destroy_plan may come from an atexit handler after static destructors ran
}

}  // namespace

void* adopt(std::unique_ptr<MpiPlan> plan) {
  void* handle = plan.get();
  std::lock_guard<std::mutex> guard(lock());
  plans()[handle] = std::move(plan);
  return handle;
}

MpiPlan* find(const void* handle) {
  if (!handle) return nullptr;
  std::lock_guard<std::mutex> guard(lock());
  const auto it = plans().find(handle);
  return it == plans().end() ? nullptr : it->second.get();
}

bool release(void* handle) {
  std::unique_ptr<MpiPlan> owned;
  {
    std::lock_guard<std::mutex> guard(lock());
    const auto it = plans().find(handle);
    if (it == plans().end()) return false;
    owned = std::move(it->second);
    plans().erase(it);
  }
  owned.reset();  // collective (the plan's communicators), outside the lock
  return true;
}

void* next(const char* name) { return dlsym(RTLD_NEXT, name); }

std::string interposition_problem() {
  // The library that defines the fftw_execute the program calls must be this one.
  Dl_info mine{}, called{};
  void* seen = dlsym(RTLD_DEFAULT, "fftw_execute");
  if (!dladdr(reinterpret_cast<void*>(&interposition_problem), &mine) || !seen || !dladdr(seen, &called))
    return "";  // cannot tell (a static link): trust the link line
  if (mine.dli_fname && called.dli_fname && std::strcmp(mine.dli_fname, called.dli_fname) == 0) return "";
  return std::string("volfft_fftw3_mpi: the program calls fftw_execute from ") +
         (called.dli_fname ? called.dli_fname : "another library") +
         ", not from volfft's FFTW-MPI library, so it could not run volfft's plans: link "
         "-lvolfft_fftw3_mpi before -lfftw3 and -lfftw3_mpi (docs/fftw-mpi.md)";
}

}  // namespace volfft::fftw_mpi
