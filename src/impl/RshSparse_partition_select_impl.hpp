#pragma once
// Partition::kAuto: RowStructured, CudaCoreOnly or DenseBlocks per matrix,
// whichever a linear model of the kernel time predicts fastest, and for
// CudaCoreOnly the residual piece length the same way. The models are fitted
// per Arithmetic on the H100 at N = 128 (FP64 at N = 64 too; GPU time of
// gated batches) by scripts/fit_partition_model.py and fit_dense_model.py,
// from benchmark runs under one partition each; perf_tests/results/MODELS.md
// lists the runs.
#include <cstdint>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"
#include "impl/RshSparse_rstile_impl.hpp"

namespace rsh {
namespace impl {

/// The arithmetic of a multiply on the CUDA backend, which the time models are fitted for.
enum class Arithmetic {
  kFp16,  ///< 2-byte values: FP16 operands, FP32 accumulation
  kTf32,  ///< float with Options::allow_tf32: TF32 Tensor-Core operands
  kFp32,  ///< float at FP32-level accuracy (2x/3xTF32 Tensor-Core tiles); the model of every other scalar
  kFp64,  ///< 8-byte values: FP64 Tensor-Core tiles and dense blocks (mma.m16n8k8 / m16n8k16), FP64 residual
};

/// The arithmetic of values of `value_bytes` bytes under `options`.
inline Arithmetic arithmetic_of(int value_bytes, const Options& options) {
  if (value_bytes == 2) return Arithmetic::kFp16;
  if (value_bytes == 8) return Arithmetic::kFp64;
  return value_bytes == 4 && options.allow_tf32 ? Arithmetic::kTf32 : Arithmetic::kFp32;
}

/// The N (columns of B) every model is fitted at; a model fitted at other N's too interpolates between them.
constexpr int kModelNumVectors = 128;

/// The N kAuto weighs for `options`: Options::expected_num_vectors, or kModelNumVectors where it is 0.
inline int model_num_vectors(const Options& options) {
  return options.expected_num_vectors > 0 ? options.expected_num_vectors : kModelNumVectors;
}

/// What CudaCoreOnly would make the kernel do with residual pieces of piece_nnz.
struct CudaCoreCost {
  int piece_nnz = 0;
  /// Residual work items, and the longest one's nonzeros (a lane group walks
  /// them in sequence: on a matrix too small to fill the GPU, that chain of
  /// dependent loads is the time).
  int64_t items = 0, longest = 0;
  int64_t nnz = 0;
  /// A row is long enough to be cut into pieces that add with atomics (then an
  /// extra pre-scaling launch); shorter rows' pieces are summed inside one CTA.
  bool split = false;

  /// Predicted kernel time in microseconds at num_vectors columns of B.
  double us(Arithmetic arith, int num_vectors = kModelNumVectors) const;
};

/// CudaCoreOnly's cost with pieces of piece_nnz (rows of A as stored).
CudaCoreCost cuda_core_cost(const HostCrs& A, int piece_nnz, int max_len);

/// The residual piece length for `partition`: options.tuning.residual_piece_nnz when
/// set; else for CudaCoreOnly the one of 4, 8, max_residual_nnz_per_item and
/// twice that the model predicts fastest at model_num_vectors(options), for the others
/// max_residual_nnz_per_item.
CudaCoreCost best_cuda_core_cost(const HostCrs& A, const Options& options, Arithmetic arith);
int residual_piece_nnz(const HostCrs& A, const Options& options, Partition partition, Arithmetic arith);

/// What the partitions would make the kernels do.
struct PartitionCost {
  /// RowStructured: sum over CTAs (8 consecutive Tensor-Core work items) of
  /// the largest item's tiles (a CTA holds its SM slot until that one is
  /// done), windows, and residual nonzeros.
  int64_t cta_max_tiles = 0, windows = 0, residual_nnz = 0;
  /// CudaCoreOnly at its best piece length.
  CudaCoreCost cuda;
  /// DenseBlocks: value slots of the dense 16 x 16 blocks (zeros included).
  int64_t dense_slots = 0;

  int64_t nnz = 0, rows = 0;

  /// Predicted kernel times in microseconds at num_vectors columns of B.
  double tensor_core_us(Arithmetic arith, int num_vectors = kModelNumVectors) const;
  double cuda_core_us(Arithmetic arith, int num_vectors = kModelNumVectors) const;
  double dense_blocks_us(Arithmetic arith, int num_vectors = kModelNumVectors) const;
  /// CudaCoreOnly is predicted faster. The model holds only inside the range
  /// it was fitted on (the shared matrices, at most 2.2M nonzeros, mostly
  /// latency-bound). Beyond it every arithmetic takes CudaCoreOnly, as the
  /// generated 12M-128M-nonzero matrices measured (all but the banded one ran
  /// faster there), without the RowStructured build the comparison would need
  /// (perf_tests/results/MODELS.md).
  bool prefer_cuda_core(Arithmetic arith) const;
  /// The partition kAuto takes for multiplies of num_vectors columns: the sparse path the cost models
  /// predict faster at N = 128, then DenseBlocks where predicted faster than it at num_vectors (only up to
  /// kDenseModelMaxSlots); or the learned selector's pick (RshSparse_plan_selector_impl.hpp) where
  /// `selector` asks for it and a tree is fitted for `arith`.
  Partition choose(Arithmetic arith, PlanSelector selector = PlanSelector::kCostModel,
                   int num_vectors = kModelNumVectors) const;
};

/// Largest matrix (nonzeros) Partition::kAuto's model is trusted for.
constexpr int64_t kPartitionModelMaxNnz = 2200000;

/// Whether kAuto's choice for a matrix of `nnz` nonzeros reads the Tensor-Core
/// terms of PartitionCost (and so needs the RowStructured pattern built): not
/// past kPartitionModelMaxNnz, where every arithmetic takes the CUDA-core path
/// (see PartitionCost::prefer_cuda_core).
inline bool choice_needs_row_structured(int64_t nnz) {
  return nnz <= kPartitionModelMaxNnz;
}
/// Largest dense-block layout (value slots) kAuto considers, which bounds the
/// memory A takes then (64 MB FP16, 128 MB TF32). The DenseBlocks model was
/// fitted on pruned layers of up to 2M slots and was checked to hold on a
/// graph of 18M slots (perf_tests/results/MODELS.md).
constexpr int64_t kDenseModelMaxSlots = 32 << 20;

/// Costs of A (rows in the order the pattern was built from) given its
/// RowStructured pattern after scheduling.
PartitionCost partition_cost(const HostCrs& A, const HostPattern& row_structured, const Options& options,
                             Arithmetic arith);

}  // namespace impl
}  // namespace rsh
