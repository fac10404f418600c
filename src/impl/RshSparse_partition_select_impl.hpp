#pragma once
// Partition::kAuto: RowStructured, CudaCoreOnly or DenseBlocks per matrix,
// whichever a linear model of the kernel time predicts fastest. The
// RowStructured / CudaCoreOnly model was fitted on
// the H100 over the 95 shared matrices at N = 128 (FP16 and TF32 separately;
// perf_tests/results/h100_2026-11-23b.md: GPU time of gated batches, the
// CUDA-core launch with two batches in flight at >= 3 CTAs per SM): chosen
// this way, leave-one-out, the suite's speedup over cuSPARSE goes from 1.098x
// to 1.214x (FP16; 12 -> 5 matrices below 0.8x) and from 0.879x to 0.992x
// (TF32; 35 -> 16), against 1.262x and 1.038x for the per-matrix best (the
// previous coefficients: 1.192x and 0.987x). scripts/fit_partition_model.py
// refits it from two benchmark runs (--rsh_partition=row and =cuda).
#include <cstdint>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"
#include "impl/RshSparse_rstile_impl.hpp"

namespace rsh {
namespace impl {

/// What the two partitions would make the kernels do.
struct PartitionCost {
  /// RowStructured: sum over CTAs (8 consecutive Tensor-Core work items) of
  /// the largest item's tiles (a CTA holds its SM slot until that one is
  /// done), windows, and residual nonzeros.
  int64_t cta_max_tiles = 0, windows = 0, residual_nnz = 0;
  /// CudaCoreOnly: residual work items, and whether a row is long enough to
  /// be cut into pieces that add with atomics (then an extra pre-scaling
  /// launch); shorter rows' pieces are summed inside one CTA.
  int64_t cuda_items = 0;
  bool cuda_split = false;
  /// DenseBlocks: value slots of the dense 16 x 16 blocks (zeros included).
  int64_t dense_slots = 0;

  int64_t nnz = 0;

  /// Predicted kernel times in microseconds; `value_bytes` 2 = FP16, else TF32.
  double tensor_core_us(int value_bytes) const;
  double cuda_core_us(int value_bytes) const;
  double dense_blocks_us(int value_bytes) const;
  /// CudaCoreOnly is predicted faster. Only inside the range the model was
  /// fitted on (the shared matrices, at most 2.2M nonzeros, mostly latency-bound):
  /// on the generated 12M-128M-nonzero matrices it chose the CUDA-core path
  /// where the Tensor-Core path was faster (R-MAT 20 FP16 1.07x vs 1.33x), so
  /// larger matrices keep RowStructured.
  bool prefer_cuda_core(int value_bytes) const;
  /// The partition kAuto takes: the fastest predicted, DenseBlocks only up to kDenseModelMaxSlots.
  Partition choose(int value_bytes) const;
};

/// Largest matrix (nonzeros) Partition::kAuto's model is trusted for.
constexpr int64_t kPartitionModelMaxNnz = 2200000;
/// Largest dense-block layout (value slots) kAuto considers: the DenseBlocks
/// model was fitted on pruned layers of up to 2M slots (4 MB in FP16).
constexpr int64_t kDenseModelMaxSlots = 4 << 20;

/// Costs of A (rows in the order the pattern was built from) given its
/// RowStructured pattern after scheduling.
PartitionCost partition_cost(const HostCrs& A, const HostPattern& row_structured, const Options& options);

}  // namespace impl
}  // namespace rsh
