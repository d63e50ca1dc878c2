// Which plans are volfft's: fftw_execute, fftw_destroy_plan and the new-array execute functions
// are answered here for the plans this library made, and passed to FFTW (the next definition in
// the dynamic linker's order, dlsym(RTLD_NEXT)) for every other plan.
#pragma once

#include <string>

#include "fftw_mpi/mpi_plan.hpp"

namespace volfft::fftw_mpi {

/// Takes ownership of `plan` and returns the handle given to the program.
void* adopt(std::unique_ptr<MpiPlan> plan);
/// The plan behind `handle` when it is one of ours, else nullptr. Thread-safe.
MpiPlan* find(const void* handle);
/// Deletes our plan `handle` (collective for the plan's communicator); false when not ours.
bool release(void* handle);
/// FFTW's own definition of `name` (the one this library's symbol hides), or nullptr.
void* next(const char* name);
/// "" when this library's fftw_execute is the one the program calls (it was linked before
/// FFTW), else why plans cannot be made safely.
std::string interposition_problem();

}  // namespace volfft::fftw_mpi
