// Every C entry point runs its body through guarded(): no C++ exception crosses the C boundary;
// each becomes a status code and a message kept per thread for volfft_last_error().
#pragma once

#include <exception>
#include <new>
#include <string>

#include "volfft/error.hpp"
#include "volfft/volfft.h"

namespace volfft::capi {

/// This thread's message of the last failed call (empty after a successful one).
std::string& last_error();

template <class F>
volfft_status guarded(F&& f) {
  std::string& message = last_error();
  try {
    message.clear();
    f();
    return VOLFFT_OK;
  } catch (const volfft::Error& e) {
    message = e.what();
    return VOLFFT_ERROR_ARGUMENT;
  } catch (const std::bad_alloc&) {
    message = "volfft: out of memory";
    return VOLFFT_ERROR_INTERNAL;
  } catch (const volfft::MpiError& e) {
    message = e.what();
    return VOLFFT_ERROR_MPI;
  } catch (const std::exception& e) {
    message = e.what();
    return VOLFFT_ERROR_INTERNAL;
  } catch (...) {
    message = "volfft: unknown error";
    return VOLFFT_ERROR_INTERNAL;
  }
}

}  // namespace volfft::capi
