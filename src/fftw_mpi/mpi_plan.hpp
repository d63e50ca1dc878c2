// One plan of the FFTW-MPI interface, answered by volfft: a volfft::Plan on FFTW's distribution
// (user arrays: FFTW's blocks, its transposed and padded layouts, howmany as interleaved fields),
// or a volfft::Reshape for FFTW's transposes.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "fftw_mpi/layout.hpp"
#include "volfft/options.hpp"
#include "volfft/plan.hpp"
#include "volfft/reshape.hpp"

namespace volfft::fftw_mpi {

/// A planner call, in FFTW's terms.
struct Request {
  Transform transform = Transform::dft;
  std::vector<Index> n;          ///< logical sizes (real sizes for r2c/c2r; n0, n1 for a transpose)
  int rnk = 0;                   ///< as the caller passed it (n is empty when rnk < 0 or n is NULL)
  Index howmany = 1;
  Index iblock = 0, oblock = 0;  ///< the input's and the output's block sizes (0: FFTW's default)
  int sign = -1;                 ///< dft: FFTW_FORWARD (-1) or FFTW_BACKWARD (+1)
  std::vector<int> r2r_kinds;    ///< r2r: FFTW's fftw_r2r_kind per dimension
  unsigned flags = 0;
  Precision precision = Precision::float64;
  void* in = nullptr;
  void* out = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
};

class MpiPlan {
 public:
  /// Collective over r.comm. Throws volfft::Error (the same on every rank) for what volfft cannot
  /// plan: flags it does not support (scrambled layouts, wisdom-only), r2r kinds other than
  /// REDFT/RODFT, 1-D transforms, r2c/c2r of more than 3 dimensions, blocks that are negative or
  /// do not cover the array; and when the ranks' arguments differ (every check is agreed, so a
  /// rank with a bad argument never returns alone).
  explicit MpiPlan(const Request& r);
  /// Collective: the transform of `in` into `out` (FFTW's execute on the plan's arrays, or its
  /// new-array execute). Their in-placeness must be the plan's (FFTW's rule).
  void execute(void* in, void* out);
  void* in() const { return in_; }
  void* out() const { return out_; }
  Transform transform() const { return transform_; }
  Precision precision() const { return precision_; }
  /// A line for fftw_print_plan: what volfft runs ("destroy-input": an out-of-place plan that may
  /// overwrite its input, FFTW_DESTROY_INPUT; FFTW's default for c2r).
  std::string describe() const;

 private:
  // staging_in_ of `bytes` (0: none), the allocation agreed over `comm`. Collective.
  void allocate_staging(MPI_Comm comm, std::size_t bytes);

  Transform transform_;
  Precision precision_;
  bool backward_ = false;  // dft with FFTW_BACKWARD, c2r: volfft's backward()
  bool in_place_ = false;
  bool destroys_input_ = false;  // Options::destroy_input (FFTW_DESTROY_INPUT; c2r's default)
  bool empty_ = false;          // this rank holds nothing of either side (its arrays are not read)
  bool copy_in_place_ = false;  // r2c in place with howmany > 1: out of place from a copy (staging_in_)
  void* in_ = nullptr;
  void* out_ = nullptr;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<Reshape> reshape_;
  // An in-place transpose, or an in-place r2c/c2r of howmany > 1 fields, copies its input
  // aside first (a reshape reads one array, writes another). Allocated at planning, never per call.
  std::vector<unsigned char> staging_in_;
};

}  // namespace volfft::fftw_mpi
