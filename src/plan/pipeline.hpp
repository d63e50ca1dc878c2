// The pipelined engine (seeds 003 and 004 "fft2d-p"): a stage's FFTs and the exchange after it,
// fused. The stage's array is cut into chunks of `planes` planes along an axis that neither its
// FFTs nor (preferably) the exchange touch; as soon as a chunk is transformed and packed, its
// exchange starts non-blocking while the next chunk is computed. Completed chunks are unpacked
// and, where the next stage's FFTs do not need the other chunks, transformed at once.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "comm/exchange.hpp"
#include "plan/stage_ops.hpp"

namespace volfft::plan {

struct PipelineTimes {
  double fft_source = 0, pack = 0, wait = 0, unpack = 0, fft_destination = 0;
  double in_flight = 0;  ///< first start to last completion: wait + what compute hid
};

/// How a pipelined step is cut: the chunk axis, the planes per chunk and the chunk count, equal
/// on every member of the group.
struct ChunkPlan {
  int axis = 0;
  core::Index planes = 1;
  int chunks = 1;
  bool destination_per_chunk = false;  ///< the next stage may transform each chunk on arrival
};

/// The chunk plan for a transfer whose source stage transforms `source_axes` and destination
/// stage `destination_axes`; `planes` <= 0 chooses about eight chunks.
ChunkPlan plan_chunks(const comm::Transfer& t, const std::vector<int>& source_axes,
                      const std::vector<int>& destination_axes, core::Index planes);

class PipelinedStep {
 public:
  virtual ~PipelinedStep() = default;
  /// Runs the source stage's FFTs chunk by chunk (reading `input` where the ops say so) and the
  /// exchange into `dst`, then the destination ops per chunk when given. Collective.
  virtual void run(const void* input, void* dst, void* output, double scale, PipelineTimes& t) = 0;
};

/// `source_ops[k]` / `destination_ops[k]`: the ops planned for chunk k (destination_ops empty
/// unless chunks.destination_per_chunk). `src`, `send`, `recv`: distinct buffers of the plan.
/// `p2p`: Isend/Irecv per chunk instead of MPI_Ialltoallv.
std::unique_ptr<PipelinedStep> make_pipelined_step(
    const comm::Transfer& t, const ChunkPlan& chunks, MPI_Comm group, Precision precision,
    std::vector<std::vector<OpRun>> source_ops, std::vector<std::vector<OpRun>> destination_ops,
    void* src, void* send, void* recv, int max_in_flight, bool p2p);

}  // namespace volfft::plan
