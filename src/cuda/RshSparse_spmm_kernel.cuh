#pragma once
// The one launch of the executor: CTAs [0, tc_blocks) run Tensor-Core
// tiles, the next res_blocks the CUDA-core residual (empty rows outside
// windows are residual items without nonzeros). One launch instead of two
// matters on small matrices, where launch latency is most of the time.
// Without Tensor-Core items, residual_kernel (below) runs instead.
// Rows of atomic work items are pre-scaled by a separate, earlier launch.
#include "cuda/RshSparse_spmm_residual_kernel.cuh"
#include "cuda/RshSparse_spmm_tc_kernel.cuh"

namespace rsh {
namespace cuda {
namespace detail {

static_assert(kTcWarpsPerBlock * 32 == kResThreadsPerBlock, "rsh::spmm: fused CTA shapes must agree");

/// Features a lane of the fused kernel's residual holds: 8 (FP16: one 16-byte load; FP32: two runs of 4), 4 for
/// FP64 (two runs of 2, two 16-byte loads: 8 doubles would double the registers of the Tensor-Core part's budget).
template <class T>
constexpr int fused_residual_features() {
  return sizeof(T) == 8 ? 4 : 8;
}
static_assert(8 * kResThreadsPerBlock * sizeof(float) <= sizeof(uint4) * kTcWarpsPerBlock * kTcRingChunks &&
                  4 * kResThreadsPerBlock * sizeof(double) <= sizeof(uint4) * kTcWarpsPerBlock * kTcRingChunks,
              "rsh::spmm: residual partial sums fit in the Tensor-Core ring");

template <class T, class OutT>
struct SpmmParams {
  TcParams<T, OutT> tc;
  ResidualParams<T, OutT> res;
  int64_t tc_blocks, res_blocks;
  bool wait_first;  ///< B is written by the grid this one was launched behind: wait for it before any load
};

/// The start of a multiply kernel between the column-major copies: lets the grid launched behind it (the
/// copy of C back) start its launch, and waits for B's copy. Nothing otherwise: row-major calls of a few
/// microseconds pay no extra instruction.
template <class Params>
__device__ __forceinline__ void spmm_prologue(const Params& p) {
  if (!p.wait_first) return;
  allow_dependent_launch();
  wait_for_prior_grid();
}

/// CTAs per SM the register budget is sized for: 4 x 8 warps (64 registers a
/// thread) keeps the latency-bound loop at 50% occupancy; the deeper
/// pipeline of the cp.async ring would otherwise take ~100 registers.
#ifndef RSH_TC_MIN_BLOCKS
#define RSH_TC_MIN_BLOCKS 4
#endif

/// Batch of the fused kernel's residual loop: single rows, the next one
/// requested before the current one is multiplied (batches of 2 spill at its
/// 64 registers).
constexpr int kFusedResidualBatch = 1;

template <class T, class OutT, Tf32Split S>
__global__ void __launch_bounds__(kResThreadsPerBlock, RSH_TC_MIN_BLOCKS) spmm_kernel(const SpmmParams<T, OutT> p) {
  __shared__ uint4 ring[kTcWarpsPerBlock * kTcRingChunks];  // B stages, then split-K or residual partial sums
  spmm_prologue(p);
  const int64_t block = blockIdx.x;
  if (block < p.tc_blocks) return tc_block<S>(p.tc, block, ring);
  residual_block<kFusedResidualBatch, NonzeroSource::kShuffles, fused_residual_features<T>()>(
      p.res, block - p.tc_blocks, reinterpret_cast<Accum<T>*>(ring), static_cast<ResidualSlot<T>*>(nullptr));
}

/// The launch when no Tensor-Core items exist (CudaCoreOnly, or no window
/// paid): a latency-bound loop (Nsight Compute: long-scoreboard stalls) that
/// requests the B rows of the next batch before multiplying the current one.
/// Its CTAs run residual items only, in one of two shapes:
/// - kLatency: batches of 2 rows at 3 (FP32) or 4 (FP16) CTAs an SM, because
///   warps count more than loads in flight (fewer CTAs with larger batches,
///   and more with single rows, were both slower on grids of a few waves).
///   The CTAs per SM are asked for explicitly: left to the compiler, FP16 took
///   more registers and fewer CTAs (perf_tests/results/MODELS.md).
/// - kThroughput (FP16 and BF16): single rows at 8 CTAs an SM (32 registers).
///   A grid of many waves that gathers B rows from memory (B past the L2,
///   rows no neighbour shares) is bound by the bytes in flight, and twice the
///   warps hold more of them than the second row of a batch.
enum class ResidualShape { kLatency, kThroughput };

template <class T, ResidualShape S>
constexpr int residual_min_blocks() {
  return S == ResidualShape::kThroughput ? 8 : sizeof(T) == 2 ? 4 : 3;
}
template <ResidualShape S>
constexpr int residual_batch() {
  return S == ResidualShape::kThroughput ? 1 : 2;
}

/// V features a lane: 8 (FP16: one 16-byte load a B row), for FP32 8 or 4,
/// for FP64 4 or 2 (one 16-byte load). Lanes of 4 FP32 features put twice the lanes on an item (G = 32 at n =
/// 128), halving each lane's chain of dependent loads at twice the shuffles
/// per useful load: the planner takes them when their grid fits in one wave
/// (SpmmPlan::spmm), where the chain is the time; larger grids are bound by
/// throughput, where the wider lanes' fewer loads and shuffles win. FP64's
/// lanes of 2 follow the same rule (perf_tests/results/MODELS.md).
template <class T, class OutT, int V, ResidualShape S = ResidualShape::kLatency>
__global__ void __launch_bounds__(kResThreadsPerBlock, residual_min_blocks<T, S>())
    residual_kernel(const SpmmParams<T, OutT> p) {
  __shared__ Accum<T> partials[V * kResThreadsPerBlock];
  __shared__ alignas(16) ResidualSlot<T> slots[kResThreadsPerBlock];
  spmm_prologue(p);
  constexpr NonzeroSource kSource = S == ResidualShape::kThroughput ? NonzeroSource::kDirect : NonzeroSource::kSlots;
  residual_block<residual_batch<S>(), kSource, V>(p.res, blockIdx.x, partials, slots);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
