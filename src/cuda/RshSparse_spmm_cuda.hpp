#pragma once
// Raw-pointer CUDA backend of rsh::spmm: device pointers and a stream, no
// Kokkos. What the Kokkos::Cuda specialisation, the GPU tests, the
// benchmarks and non-Kokkos callers (e.g. a PyTorch extension) use.
//
//   rsh::cuda::HostFormat f = ...;              // host arrays of a built RS-Tile (rsh::impl::inspect)
//   rsh::cuda::SpmmPlan<__half> plan(f, stream);
//   plan.spmm(alpha, dB, ldb, beta, dC, ldc, n, rsh::cuda::Layout::kRowMajor, stream);
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace cuda {

/// Throws std::runtime_error naming the call, file:line and the CUDA error.
#define RSH_CUDA_CHECK(call)                                                                                           \
  do {                                                                                                                 \
    const cudaError_t rsh_err_ = (call);                                                                               \
    if (rsh_err_ != cudaSuccess)                                                                                       \
      throw std::runtime_error(std::string(#call) + " failed at " + __FILE__ + ":" + std::to_string(__LINE__) + ": " + \
                               cudaGetErrorString(rsh_err_));                                                          \
  } while (0)

/// Storage order of the dense B and C.
enum class Layout {
  kRowMajor,  ///< element (i, j) at ptr[i * ld + j]  (Kokkos::LayoutRight)
  kColMajor,  ///< element (i, j) at ptr[j * ld + i]  (Kokkos::LayoutLeft)
};

/// How a float plan's Tensor-Core MMAs take their FP32 operands (FP16 plans ignore it; CUDA-core parts
/// always compute in FP32). The Tensor Cores read FP32 operands as TF32 (10 mantissa bits), so a single
/// MMA has a relative error near 1e-3 where FP32 arithmetic has 1e-7.
enum class FloatMath {
  kFp32,  ///< FP32-level accuracy (the default): each operand split into a TF32 high and low part, 3 MMAs (3xTF32)
  kTf32,  ///< opt-in: operands rounded to TF32, one MMA
};

/// The type a plan of elements T accumulates in and takes alpha and beta as: double for double, else float
/// (FP16 and FP32 operands accumulate in FP32).
template <class T>
using Accum = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/// Residual items one CUDA-core CTA always runs together (HostFormat::res_item_pieces).
using impl::kResidualPieceAlign;

/// The arrays of a built RS-Tile + residual + schedule (see rsh::impl::RsTilePattern for the meaning of
/// each), counts given explicitly, every pointer a buffer of the stated length.
struct FormatArrays {
  int num_rows = 0, num_cols = 0;
  int num_windows = 0;
  const int* window_rows = nullptr;  ///< 8 * num_windows
  int num_tiles = 0;
  const int* tile_cols = nullptr;         ///< 8 * num_tiles (-1 = padding)
  const uint64_t* tile_bitmap = nullptr;  ///< num_tiles
  const int* tile_val_offset = nullptr;   ///< num_tiles + 1
  int num_res_rows = 0;
  const int* res_rows = nullptr;  ///< num_res_rows
  const int* res_cols = nullptr;  ///< res nnz (values follow the tile values)
  int res_nnz = 0;
  int tc_num_items = 0, tc_num_unsplit = 0;
  const int* tc_item_window = nullptr;  ///< tc_num_items each
  const int* tc_item_tile_begin = nullptr;
  const int* tc_item_tile_end = nullptr;
  /// Residual items [0, res_num_local) store C once; a row's pieces summed in
  /// shared memory lie inside one aligned group of kResidualPieceAlign items.
  int res_num_items = 0, res_num_local = 0;
  const int* res_item_row = nullptr;  ///< res_num_items each
  const int* res_item_begin = nullptr;
  const int* res_item_end = nullptr;
  const int* res_item_pieces = nullptr;  ///< pieces the item sums (its own and the next), 0: summed elsewhere
  int num_scale_rows = 0;
  const int* scale_rows = nullptr;  ///< num_scale_rows
  /// Multiply as dense 16 x 16 blocks made from the residual (Partition::kDenseBlocks; no tiles).
  bool dense_blocks = false;
};

/// The format as HOST arrays (rsh::impl::inspect), with its values: a plan copies them to the device.
struct HostFormat : FormatArrays {
  const double* values = nullptr;  ///< tile values (tile_val_offset[num_tiles]) then res_nnz values
};

/// The format as DEVICE arrays (e.g. a Kokkos handle's views, built by rsh::impl::inspect_on on the GPU):
/// a plan reads them in place, so they must outlive it, and keeps only what it derives from them.
struct DeviceFormat : FormatArrays {};

/// Column blocks of 16 a dense-block round stages by default (as much A and B as fits twice per SM):
/// 16 FP16, 8 TF32, 4 FP64. KernelConfig::dense_round_steps may ask for twice that.
template <class T>
constexpr int kDenseRoundSteps = sizeof(T) == 2   ? 16
                                 : sizeof(T) == 4 ? 8
                                                  : 4;

/// Kernel parameters the planner otherwise chooses (0 = choose), for tests and tuning.
struct KernelConfig {
  int warps_per_item = 0;  ///< warps sharing one Tensor-Core work item: 1, 2, 4 or 8
  int residual_lanes = 0;  ///< lanes per residual item: 4, 8, 16 or 32
  int dense_cluster = 0;   ///< dense blocks: CTAs splitting a 64-row group's columns: 1, 2, 4, 8 or 16
  /// Features a residual lane holds in launches without Tensor-Core items (with them the fused kernel's: 8, 4 for
  /// FP64): FP16 and BF16 8; FP32 8 or 4; FP64 4 or 2.
  int residual_lane_features = 0;
  int dense_stages = 0;       ///< dense blocks: rounds of staged blocks in shared memory at once: 1 or 2
  int dense_round_steps = 0;  ///< dense blocks: column blocks a round: kDenseRoundSteps<T>, or twice (one stage)
  /// Column-major B and C: 1 read and written in place (strided elements), 2 B through a row-major copy and
  /// C in place, 3 both through row-major copies (0: the planner's, by the operands' sizes and whether work
  /// items add into C with atomics: detail::column_major_mode).
  int column_major = 0;
  /// Residual items on Tensor Cores in launches without Tensor-Core items (FP16 and BF16, B's rows in 16-byte
  /// vectors): 2 wherever they apply; 0 (the planner's choice: CUDA cores, see detail::residual_mma_planned)
  /// and 1 never.
  int residual_mma = 0;
  /// Residual rows in ranges of 64 whose B rows are staged in shared memory (staged_range_kernel; FP16, BF16 and
  /// FP32, B's rows in 16-byte vectors, plans without Tensor-Core items or rows cut into pieces): 2 wherever
  /// they apply; 0 (the planner's choice: where most nonzeros lie in ranges that fit, see
  /// detail::staged_planned) and 1 never.
  int staged_ranges = 0;
  /// Residual rows in ranges of 32 on Tensor Cores over their distinct columns' staged B rows (staged_tile_kernel;
  /// FP16 and BF16, B's rows in 16-byte vectors, plans that could take staged ranges and do not): 2 wherever they
  /// apply (described at this call where the plan did not describe them); 0 (the planner's choice: where most
  /// nonzeros lie in ranges of at most 144 distinct columns, see detail::describe_staged_tiles) and 1 never.
  int staged_tiles = 0;
  /// residual_kernel's shape (detail::ResidualShape): 1 latency (batches of 2 rows at 4 CTAs an SM for FP16), 2
  /// throughput (single rows at 8 CTAs an SM; FP16 and BF16); 0 the planner's choice (throughput for grids of
  /// many waves whose B is larger than the L2, see detail::residual_throughput_planned).
  int residual_shape = 0;
};

/// A CSR matrix in device memory, as the handle-free multiply reads it: columns in any order within a
/// row, duplicates summed. Offset: int or int64_t.
template <class T, class Offset>
struct DeviceCsr {
  int num_rows = 0, num_cols = 0;
  int64_t nnz = 0;
  const Offset* row_map = nullptr;  ///< num_rows + 1, row_map[0] = 0, row_map[num_rows] = nnz
  const int* entries = nullptr;     ///< nnz column ids
  const T* values = nullptr;        ///< nnz
};

/// C = alpha * A * B + beta * C straight from A's CSR arrays, with no inspection (the handle-free call):
/// the CUDA-core residual kernel in FP32 arithmetic (FP64 for double), its work items cut from A's rows on the device
/// at each call. Checks A on the device and waits for that check (one stream synchronisation), so that a malformed A
/// throws std::invalid_argument instead of reading out of bounds. B, C, ld*, n and layout as SpmmPlan::spmm.
/// Instantiated for T = double, float, __half and __nv_bfloat16 with OutT = T.
template <class T, class Offset, class OutT>
void spmm_csr(const DeviceCsr<T, Offset>& A, Accum<T> alpha, const T* B, int64_t ldb, Accum<T> beta, OutT* C,
              int64_t ldc, int n, Layout layout, cudaStream_t stream);

/// SDDMM over A's CSR arrays, with no inspection (the handle-free call): for every stored position j of A,
/// at (row r, column c), out[j] = alpha * dot(X(r, :), Y(c, :)) + beta * out[j] (beta == 0 ignores out),
/// the dot products over k features on CUDA cores with FP32 accumulation. X: row-major num_rows x k, Y:
/// row-major num_cols x k, ldx, ldy >= k; A's values are not read. Duplicates each get the product.
/// Checks A on the device and waits for that check (std::invalid_argument on a malformed A), and runs the
/// kernel sddmm_csr_auto_kernel names (the check finds whether A's rows are sorted).
/// Instantiated for T = float, __half and __nv_bfloat16 with OutT = T.
template <class T, class Offset, class OutT>
void sddmm_csr(const DeviceCsr<T, Offset>& A, float alpha, const T* X, int64_t ldx, const T* Y, int64_t ldy, int k,
               float beta, OutT* out, cudaStream_t stream);

/// The kernels of sddmm_csr. kSpans: a lane group per 8 consecutive nonzeros, any pattern. kDenseTiles: a block
/// per 64 x 64 tile of A (or per half of one: sddmm_tile_rows) computes all its products on Tensor Cores (float in
/// 3xTF32, FP32-level) from X's and Y's rows staged in shared memory, then writes those of its nonzeros; it needs rows
/// sorted by column (duplicates allowed) and pays where A fills its tiles. kPanels: the spans over A's nonzeros in
/// panel order (sddmm_csr_panel_order), where a span's nonzeros share Y's rows and a panel's X rows stay in L1.
enum class SddmmCsrKernel { kSpans, kDenseTiles, kPanels };

/// Tiles of 64 x 64 over an A of rows x cols.
constexpr int64_t sddmm_csr_num_tiles(int64_t rows, int64_t cols) {
  return ((rows + 63) / 64) * ((cols + 63) / 64);
}

/// The kernel sddmm_csr runs unless told: dense tiles where A's rows are sorted and A fills its tiles to at least
/// 12% with 128 tiles or more, or to at least 25% with 64 to 127 (a tile computes all its 4096 products from
/// staged rows, a span loads rows of X and Y per nonzero; with few tiles the spans' finer work spreads better
/// over the SMs unless the tiles are dense); else spans. Chosen on the H100 over the shared matrices at k = 32,
/// 64, 128 against the spans in panel order, which a handle runs where this says spans
/// (perf_tests/results/MODELS.md).
SddmmCsrKernel sddmm_csr_auto_kernel(int64_t rows, int64_t cols, int64_t nnz, bool rows_sorted);

/// Rows of a kDenseTiles block over an A of rows x cols: `requested` where it is 32 or 64; for 0, 32 while A has
/// fewer 64 x 64 tiles than the current device has SMs (twice the blocks, each warp half the products, fill
/// more SMs and shorten each block's chain of MMAs), else 64 (each row of Y staged for twice the products).
/// std::invalid_argument for any other request. Chosen on the H100 over the DLMC layers at k = 32, 64, 128
/// (perf_tests/results/MODELS.md).
int sddmm_tile_rows(int64_t rows, int64_t cols, int requested);

/// Whether every row of a checked CSR lists its columns in nondecreasing order (one launch, then waits on
/// `stream`). Instantiated for Offset = int and int64_t.
template <class Offset>
bool csr_rows_sorted(const Offset* row_map, int num_rows, int64_t nnz, const int* entries, cudaStream_t stream);

/// The handle's SDDMM prepares the CSR kernel once per pattern: A's nonzeros in spans of 8, and the row of
/// each span's first nonzero (num_spans of them, computed on `stream` from a checked row_map), so that a call
/// neither checks A nor searches its rows.
constexpr int kSddmmCsrSpan = 8;
constexpr int64_t sddmm_csr_num_spans(int64_t nnz) {
  return (nnz + kSddmmCsrSpan - 1) / kSddmmCsrSpan;
}
/// Instantiated for Offset = int and int64_t.
template <class Offset>
void sddmm_csr_span_rows(const Offset* row_map, int num_rows, int64_t nnz, int* span_rows, cudaStream_t stream);

/// The panel order of A's nonzeros: A's rows in panels of `panel_rows`, each panel's nonzeros by column (then
/// by position in A), so that the consecutive nonzeros of a span mostly share a column, whose row of Y a lane
/// group then loads once, and the X rows a panel reads stay few. Three arrays of sddmm_csr_panel_entries(nnz)
/// (whole spans; the padding reads column -1, that is zeros, and is never written), 16-byte aligned:
/// each entry's row, column and position in A's order.
struct SddmmPanelOrder {
  const int* rows = nullptr;
  const int* cols = nullptr;
  const int* positions = nullptr;
};
constexpr int64_t sddmm_csr_panel_entries(int64_t nnz) {
  return sddmm_csr_num_spans(nnz) * kSddmmCsrSpan;
}

/// Device memory the panel order's build holds at its peak for nnz nonzeros, the order included: the order's 12
/// bytes a nonzero, its 16 of keys, positions and rows, and the radix sort's alternate keys and values, twice over.
constexpr int64_t sddmm_csr_panel_order_bytes(int64_t nnz) {
  return 12 * sddmm_csr_panel_entries(nnz) + 40 * nnz;
}

/// Builds the panel order of a checked CSR on `stream` (a radix sort of the nonzeros by panel and column)
/// into rows, cols and positions (each sddmm_csr_panel_entries(nnz), 16-byte aligned), waits, and returns the
/// number of distinct (panel, column) pairs: nnz over it is the mean number of nonzeros that share a row
/// of Y in a panel. Needs nnz <= INT_MAX and panel_rows >= 1. Instantiated for Offset = int and int64_t.
template <class Offset>
int64_t sddmm_csr_panel_order(const Offset* row_map, int num_rows, int64_t nnz, const int* entries, int panel_rows,
                              int* rows, int* cols, int* positions, cudaStream_t stream);

/// Where each row's nonzeros in each column of tiles begin, for kDenseTiles: entry r * (tiles across + 1) + c is
/// the first nonzero of row r at or past column 64 c, counted from the row's start, and c = tiles across the
/// row's length. A tile then reads its rows' ranges in one load each instead of searching the rows.
constexpr int64_t sddmm_csr_tile_start_entries(int64_t rows, int64_t cols) {
  return rows * ((cols + 63) / 64 + 1);
}
/// Builds them for a checked CSR with sorted rows on `stream` (a thread an entry, each a binary search). Needs
/// nnz <= INT_MAX. Instantiated for Offset = int and int64_t.
template <class Offset>
void sddmm_csr_tile_starts(const Offset* row_map, int num_rows, int num_cols, int64_t nnz, const int* entries,
                           int* starts, cudaStream_t stream);

/// What a handle prepared for sddmm_csr's kernels: the span rows for kSpans, the panel order for kPanels, the
/// tile starts for kDenseTiles (optional: without them each tile searches its rows).
struct SddmmCsrPrepared {
  const int* span_rows = nullptr;
  SddmmPanelOrder panels;
  const int* tile_starts = nullptr;
  int tile_rows = 0;  ///< kDenseTiles: the request of sddmm_tile_rows (0: by the grid)
};

/// sddmm_csr on an A checked before (a handle's analysis accepted its pattern) with the kernel given: one
/// launch, no check of A and no synchronisation. kSpans needs the span rows from sddmm_csr_span_rows;
/// kPanels the panel order from sddmm_csr_panel_order; kDenseTiles needs rows sorted
/// (csr_rows_sorted) and at most 2^31 - 1 tiles, and reads the tile starts where given. Instantiated as
/// sddmm_csr.
template <class T, class Offset, class OutT>
void sddmm_csr(const DeviceCsr<T, Offset>& A, SddmmCsrKernel kernel, const SddmmCsrPrepared& prepared, float alpha,
               const T* X, int64_t ldx, const T* Y, int64_t ldy, int k, float beta, OutT* out, cudaStream_t stream);

/// True when a CUDA device is present and usable.
bool device_available();

/// The current device's L2 cache in bytes (0 when none is usable).
int64_t device_l2_bytes();

namespace detail {
template <class T>
struct PlanData;  ///< a plan's device arrays and launch choices (RshSparse_spmm_cuda_plan.cuh)
}  // namespace detail

/// The format on the device, ready to multiply. Value type T of A and B:
/// `float` (Tensor-Core tiles in 3xTF32 or, with FloatMath::kTf32, TF32; residual in FP32), `__half` or
/// `__nv_bfloat16` (FP16 or BF16 operands, FP32 accumulation) or `double` (Tensor-Core tiles and dense blocks in
/// FP64 mma.m16n8k8 / m16n8k16, residual in FP64). Holds device memory; not copyable.
template <class T>
class SpmmPlan {
 public:
  SpmmPlan(const HostFormat& format, cudaStream_t stream, FloatMath math = FloatMath::kFp32);
  /// A plan over a format on the device and its value slots `values` (device, tile then residual slots,
  /// in T), built on `stream` without a host copy.
  SpmmPlan(const DeviceFormat& format, const T* values, cudaStream_t stream, FloatMath math = FloatMath::kFp32);
  ~SpmmPlan();
  SpmmPlan(const SpmmPlan&) = delete;
  SpmmPlan& operator=(const SpmmPlan&) = delete;

  /// Replaces the values (same pattern): host buffer of tile + residual slots.
  void update_values(const double* values, cudaStream_t stream);
  /// Replaces the values from a device buffer of tile + residual slots in T, on `stream` (no host copy;
  /// a float plan under FloatMath::kFp32 waits for one flag: whether the Tensor-Core values are TF32 numbers).
  void update_values_device(const T* values, cudaStream_t stream);

  /// C = alpha * A * B + beta * C. B: device buffer, num_cols x n; C: device
  /// buffer, num_rows x n, of OutT = T or float; ld* = leading dimension in
  /// elements (>= n row-major, >= rows col-major). beta == 0 ignores C's
  /// contents. Asynchronous on `stream`; throws std::invalid_argument on bad
  /// sizes and std::runtime_error on a CUDA error.
  template <class OutT>
  void spmm(Accum<T> alpha, const T* B, int64_t ldb, Accum<T> beta, OutT* C, int64_t ldc, int n, Layout layout,
            cudaStream_t stream) const;

  /// SDDMM on the plan's pattern: for every value slot s, at (row r, column c), slots[s] = dot(X(r, :),
  /// Y(c, :)) over k features (tile slots, then residual slots, as the values; a duplicated position has
  /// one slot). Tensor-Core tiles in the plan's precision (FP16, BF16; 3xTF32, or TF32 under FloatMath::kTf32)
  /// and the residual on CUDA cores, FP32 accumulation. X: row-major num_rows x k, Y: row-major
  /// num_cols x k, ldx, ldy >= k; slots: device buffer of num_value_slots() floats. Asynchronous on `stream`.
  /// FP16, BF16 and float plans: an FP64 plan throws std::invalid_argument (no FP64 SDDMM kernel).
  void sddmm(const T* X, int64_t ldx, const T* Y, int64_t ldy, int k, float* slots, cudaStream_t stream) const;
  /// Value slots of the format: tile values then residual values.
  int64_t num_value_slots() const;

  /// Overrides the planner's kernel choices (see KernelConfig).
  void set_config(const KernelConfig& config);

  int num_rows() const;
  int num_cols() const;
  /// Which kernels the plan runs and in which precision, for people (e.g. "CUDA: Tensor-Core tiles in
  /// 3xTF32 + CUDA-core residual in FP32").
  std::string describe() const;

 private:
  std::unique_ptr<detail::PlanData<T>> d_;
};

}  // namespace cuda
}  // namespace rsh
