#pragma once
// SpmmPlan: device copies of the format and the host-side launcher. The host
// sets everything up (strides, vectorisation, grid shapes); kernels only
// execute. Included by one .cu per precision, which instantiates it.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/RshSparse_cuda_device_array.hpp"
#include "cuda/RshSparse_cuda_device_cache.hpp"
#include "cuda/RshSparse_cuda_element.hpp"
#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_block_launch.cuh"
#include "cuda/RshSparse_spmm_format_kernel.cuh"
#include "cuda/RshSparse_spmm_kernel.cuh"
#include "cuda/RshSparse_spmm_residual_mma_kernel.cuh"
#include "cuda/RshSparse_spmm_staged_kernel.cuh"
#include "cuda/RshSparse_spmm_staged_tile_kernel.cuh"
#include "cuda/RshSparse_spmm_tc_plan.hpp"
#include "cuda/RshSparse_spmm_transpose_kernel.cuh"
#include "cuda/RshSparse_spmm_values_kernel.cuh"
#include "impl/RshSparse_dense_blocks.hpp"

namespace rsh {
namespace cuda {
namespace detail {

/// Strided dense reference; 16-byte vectors only for aligned row-major data with n % 8 == 0.
template <class E>
DenseRef<E> dense_ref(E* ptr, int64_t ld, int n, Layout layout) {
  const bool row_major = layout == Layout::kRowMajor;
  const bool vec =
      row_major && n % 8 == 0 && (ld * int64_t(sizeof(E))) % 16 == 0 && reinterpret_cast<uintptr_t>(ptr) % 16 == 0;
  return DenseRef<E>{ptr, row_major ? ld : 1, row_major ? 1 : ld, n, vec};
}

template <Tf32Split S>
using SplitConstant = std::integral_constant<Tf32Split, S>;

/// Calls f(S) with `split` as a compile-time constant; FP16, BF16 and FP64 kernels have one instantiation (kNone).
template <class T, class F>
void with_split(Tf32Split split, F&& f) {
  if constexpr (std::is_same<T, float>::value) {
    if (split == Tf32Split::kDense) return f(SplitConstant<Tf32Split::kDense>());
    if (split == Tf32Split::kBoth) return f(SplitConstant<Tf32Split::kBoth>());
  }
  f(SplitConstant<Tf32Split::kNone>());
}

/// Calls f(S) for every Tf32Split the kernels of T are instantiated for.
template <class T, class F>
void for_each_split(F&& f) {
  f(SplitConstant<Tf32Split::kNone>());
  if constexpr (std::is_same<T, float>::value)
    f(SplitConstant<Tf32Split::kDense>()), f(SplitConstant<Tf32Split::kBoth>());
}

/// How FP32-accurate MMAs take Tensor-Core values: the dense operand alone split where every value is a
/// TF32 number already (pattern matrices, small integers, powers of two: their low parts are zero), else both.
inline Tf32Split fp32_split(const float* values, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (round_to_tf32(values[i]) != values[i]) return Tf32Split::kBoth;
  return Tf32Split::kDense;
}

inline void check_launch(const char* kernel) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("rsh::cuda::spmm: launch of ") + kernel +
                             " failed: " + cudaGetErrorString(err));
}

}  // namespace detail

namespace detail {

/// What the launchers read: device pointers into a format, its counts and the launch choices. A plan's
/// view points into its own arrays (PlanData); the handle-free CSR multiply's into the user's CSR.
template <class T>
struct PlanView {
  int num_rows = 0, num_cols = 0, tc_num_items = 0, tc_num_unsplit = 0, res_num_items = 0, res_num_local = 0;
  int num_scale_rows = 0, num_tiles = 0;
  int64_t res_nnz = 0;
  Tf32Split split = Tf32Split::kNone;  ///< from math and the Tensor-Core values (update_values)
  KernelConfig config;
  int64_t residual_wave_ctas = 0;  ///< residual CTAs of the narrow lane width resident at once on the device
  int64_t tc_wave_warps = 0;       ///< warps of the fused Tensor-Core kernel resident at once on the device
  /// Dense-block clusters of 1, 2, 4, 8 CTAs resident at once on the device, per staging.
  BlockWaves dense_waves = {};
  const int *window_rows = nullptr, *tile_cols = nullptr, *tile_val_offset = nullptr;
  const uint64_t* tile_bitmap = nullptr;
  const int *tc_item_window = nullptr, *tc_item_tile_begin = nullptr, *tc_item_tile_end = nullptr;
  const T* tile_values = nullptr;
  const int* res_cols = nullptr;
  const T* res_values = nullptr;  ///< aligned with res_cols
  const ResidualItem* res_items = nullptr;
  const int* scale_rows = nullptr;  ///< num_scale_rows; entries < 0 are skipped
  // Ranges of the residual for staged_range_kernel (plans without Tensor-Core items whose items are all
  // whole rows; none in other plans).
  const StagedRange* staged_ranges = nullptr;
  int staged_num_ranges = 0;
  int64_t staged_nnz = 0;        ///< nonzeros in ranges that fit in shared memory
  int64_t staged_wave_ctas = 0;  ///< CTAs of staged_range_kernel resident at once on the device
  // Ranges of the residual for staged_tile_kernel (16-bit plans eligible for staged ranges that do not take
  // them, where describe_staged_tiles found them to pay; none in other plans).
  const StagedRange* tile_ranges = nullptr;
  const int* tile_range_cols = nullptr;  ///< kTileMaxCols a range: its distinct columns
  const uint16_t* tile_slots = nullptr;  ///< each residual nonzero's slot in its range's tile
  int tile_num_ranges = 0;
  int64_t tile_wave_ctas = 0;  ///< CTAs of staged_tile_kernel resident at once on the device
  // Dense blocks (HostFormat::dense_blocks): the residual's values in the block layout.
  bool dense = false;
  impl::DenseBlockLayout dense_layout;
  const T* dense_values = nullptr;
};

/// A plan's own device arrays and the view into them.
template <class T>
struct PlanData : PlanView<T> {
  int tile_nnz = 0;
  FloatMath math = FloatMath::kFp32;
  struct Storage {
    DeviceArray<int> window_rows, tile_cols, tile_val_offset, res_cols;
    DeviceArray<uint64_t> tile_bitmap;
    DeviceArray<int> tc_item_window, tc_item_tile_begin, tc_item_tile_end;
    DeviceArray<ResidualItem> res_items;
    DeviceArray<int> scale_rows;
    DeviceArray<T> values;  ///< tile values, then residual values
    DeviceArray<T> dense_values;
    DeviceArray<int64_t> dense_slot;  ///< residual nonzero -> block value slot (update_values_device)
    DeviceArray<StagedRange> staged_ranges, tile_ranges;
    DeviceArray<int> tile_range_cols;
    DeviceArray<uint16_t> tile_slots;
  } store;
  std::vector<int64_t> dense_slot;  ///< residual nonzero -> block value slot (host, for update_values)
  /// FloatMath::kFp32 after update_values_device: the device's answer to "are the Tensor-Core values TF32
  /// numbers?", tagged with the update it answers (publish_inexact_kernel). Until settle_split reads the
  /// current update's answer, the multiplies split A too (kBoth), which is right for any values.
  std::unique_ptr<MappedHostFlag> split_answer;
  uint32_t split_update = 0;   ///< updates of the values so far, modulo 2^31 (the tag's range)
  bool split_pending = false;  ///< `split` is kBoth until the answer to update `split_update` is read

  /// Points the view's format arrays at the storage (a plan over a HostFormat, after its upload).
  void bind_format_to_store() {
    this->window_rows = store.window_rows.get(), this->tile_cols = store.tile_cols.get();
    this->tile_val_offset = store.tile_val_offset.get(), this->tile_bitmap = store.tile_bitmap.get();
    this->tc_item_window = store.tc_item_window.get(), this->tc_item_tile_begin = store.tc_item_tile_begin.get();
    this->tc_item_tile_end = store.tc_item_tile_end.get();
    this->res_cols = store.res_cols.get();
    this->scale_rows = store.scale_rows.get();
  }
  /// Points the view at the storage of what every plan keeps: residual items and values.
  void bind_values() {
    this->res_items = store.res_items.get();
    this->tile_values = store.values.get();
    this->res_values = store.values.get() ? store.values.get() + tile_nnz : nullptr;
    this->dense_values = store.dense_values.get();
  }
};

/// Takes the device's answer for the values of the last update_values_device once it has arrived: kDense
/// where they are all TF32 numbers. A late answer to an earlier update is not taken (its tag is older).
template <class T>
void settle_split(PlanData<T>& d) {
  if (!d.split_pending) return;
  const uint32_t answer = uint32_t(d.split_answer->read());
  if ((answer >> 1) != d.split_update) return;
  d.split = (answer & 1u) ? Tf32Split::kBoth : Tf32Split::kDense;
  d.split_pending = false;
}

}  // namespace detail

namespace detail {

/// Launches a multiply kernel of 256-thread CTAs with programmatic dependent
/// launch when it follows a kernel of its own call (`after_prior`: the beta
/// pre-scaling, whose rows only its atomic adds wait for, or the row-major
/// copy of B, which it waits for before it starts: SpmmParams::wait_first),
/// so that its CTAs are resident when that kernel ends.
template <class Params>
void launch_spmm(void (*kernel)(Params), const Params& p, int64_t blocks, bool after_prior, cudaStream_t stream,
                 const char* name) {
  launch_programmatic(kernel, p, static_cast<unsigned>(blocks), kResThreadsPerBlock, 0, after_prior, stream);
  check_launch(name);
}

/// Features a residual lane holds in the narrower of the two lane widths of FP32 (4 of 8) and FP64 (2 of 4);
/// 0 for FP16 and BF16, which have one.
template <class T>
constexpr int residual_narrow_features() {
  return sizeof(T) == 8 ? 2 : sizeof(T) == 4 ? 4 : 0;
}

/// Residual CTAs of the narrow lane width (residual_narrow_features) resident at once on the current device
/// (0 for FP16 and BF16); asked once a device.
template <class T>
int64_t residual_wave_ctas() {
  constexpr int V = residual_narrow_features<T>();
  if constexpr (V > 0) {
    return once_per_device([] {
      int device = 0, sms = 0, per_sm = 0;
      RSH_CUDA_CHECK(cudaGetDevice(&device));
      RSH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      RSH_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, residual_kernel<T, T, V>, kResThreadsPerBlock, 0));
      return int64_t(sms) * per_sm;
    });
  } else {
    return 0;
  }
}

/// Warps of the fused Tensor-Core kernel resident at once on the current device; asked once a device.
template <class T>
int64_t tc_wave_warps() {
  static_assert(kTcMaxWarpsPerItem == kTcWarpsPerBlock, "rsh::spmm: K splits a task over one CTA's warps");
  return once_per_device([] {
    int device = 0, sms = 0, per_sm = 0;
    RSH_CUDA_CHECK(cudaGetDevice(&device));
    RSH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    RSH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spmm_kernel<T, T, Tf32Split::kNone>,
                                                                 kResThreadsPerBlock, 0));
    return int64_t(sms) * per_sm * kTcWarpsPerBlock;
  });
}

/// Host values to device elements; the first `tf32_count` are rounded to
/// TF32 (they enter TF32 MMAs without conversion in the kernels) when T is float.
/// Under FloatMath::kFp32 none are: the kernels split them into two TF32 parts.
template <class T>
std::vector<T> to_elements(const double* values, size_t count, size_t tf32_count) {
  std::vector<T> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = to_element<T>(values[i]);
  if constexpr (std::is_same<T, float>::value)
    for (size_t i = 0; i < tf32_count; ++i) out[i] = round_to_tf32(out[i]);
  return out;
}

/// Counts of a format (both constructors).
template <class T>
void take_counts(PlanData<T>& d, const FormatArrays& f, FloatMath math) {
  if (f.num_rows < 0 || f.num_cols < 0 || f.num_tiles < 0 || f.res_nnz < 0)
    throw std::invalid_argument("rsh::cuda::SpmmPlan: negative sizes in the format");
  d.math = std::is_same<T, float>::value ? math : FloatMath::kFp32;
  d.num_rows = f.num_rows, d.num_cols = f.num_cols;
  d.tc_num_items = f.tc_num_items, d.tc_num_unsplit = f.tc_num_unsplit;
  d.res_num_items = f.res_num_items, d.res_num_local = f.res_num_local;
  d.num_scale_rows = f.num_scale_rows;
  d.num_tiles = f.num_tiles;
  d.res_nnz = f.res_nnz;
  if (f.dense_blocks && f.num_tiles != 0)
    throw std::invalid_argument("rsh::cuda::SpmmPlan: dense blocks come from the residual alone");
  d.dense = f.dense_blocks;
  if (f.dense_blocks) {
    for_each_split<T>([&](auto s) { allow_block_kernel_smem<T, decltype(s)::value>(); });
    d.dense_waves = once_per_device([] { return query_block_waves<T, Tf32Split::kNone>(); });
    d.dense_layout = impl::DenseBlockLayout(f.num_rows, f.num_cols);
  }
  d.residual_wave_ctas = residual_wave_ctas<T>();
  d.tc_wave_warps = tc_wave_warps<T>();
}

/// Without atomic items the rows nothing stores (empty rows outside windows) become residual items
/// without nonzeros, which store beta * C like any other: no CTAs or launch of their own. Else an
/// earlier launch scales them together with the rows of atomic items.
inline bool scale_rows_as_items(const FormatArrays& f) {
  return f.tc_num_unsplit == f.tc_num_items && f.res_num_local == f.res_num_items;
}

/// Whether the plan's residual goes to Tensor Cores (residual_mma_kernel) where B's rows allow: only when
/// KernelConfig::residual_mma asks for it, for 16-bit operands in plans without Tensor-Core items. The
/// planner does not take it: in the library's plans it ran at most as fast as the CUDA-core loop on the
/// generated matrices, and slower on most (perf_tests/results/h200_2026-11-28h.md).
template <class T>
bool residual_mma_planned(const PlanView<T>& d) {
  return sizeof(T) == 2 && d.tc_num_items == 0 && !d.dense && d.config.residual_mma == 2;
}

/// CTAs of `kernel` (kResThreadsPerBlock threads, `smem` bytes of dynamic shared memory) resident at once on
/// the current device.
template <class Kernel>
int64_t resident_ctas(Kernel kernel, int smem) {
  int device = 0, sms = 0, per_sm = 0;
  RSH_CUDA_CHECK(cudaGetDevice(&device));
  RSH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  RSH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kResThreadsPerBlock, smem));
  return int64_t(sms) * std::max(per_sm, 1);
}

/// Sets `res`'s grid: groups of `group` lanes of `features` features, its slices of B and CTAs a slice
/// (kResThreadsPerBlock / group items a CTA); returns its CTAs.
template <class T, class OutT>
int64_t set_residual_grid(ResidualParams<T, OutT>& res, int n, int features, int group) {
  const int items_per_block = kResThreadsPerBlock / group;
  const int item_blocks = static_cast<int>((int64_t(res.num_items) + items_per_block - 1) / items_per_block);
  res.group = group, res.slices = (n + features * group - 1) / (features * group);
  res.item_blocks = impl::FastDivisor(std::max(item_blocks, 1));  // no items: no launch
  return int64_t(item_blocks) * res.slices;
}

/// L2s that half a slice of B's features over A's columns may take for launch_throughput to halve the slices.
constexpr int64_t kThroughputSliceL2s = 4;

/// Waves of throughput-shape CTAs a residual grid needs before that shape pays (residual_throughput_planned):
/// smaller grids end on the latency of their last rows, which the latency shape's batches shorten.
constexpr int64_t kThroughputMinWaves = 4;

/// Whether residual_kernel runs in its throughput shape (ResidualShape): 16-bit operands, B's rows as VecRows
/// reads them, and KernelConfig::residual_shape 2, or 0 with B larger than the L2 (A's columns x n elements:
/// its rows are gathered from memory, not from a cache) and a grid of `blocks` CTAs of at least
/// kThroughputMinWaves waves.
template <class T, class OutT>
bool residual_throughput_planned(const PlanView<T>& d, const ResidualParams<T, OutT>& res, int n, int64_t blocks) {
  if (sizeof(T) != 2 || d.config.residual_shape == 1 || !VecRows<T, 8>::applies(res.B)) return false;
  if (d.config.residual_shape == 2) return true;
  if (int64_t(d.num_cols) * n * int64_t(sizeof(T)) <= once_per_device([] { return device_l2_bytes(); })) return false;
  const int64_t wave =
      once_per_device([] { return resident_ctas(residual_kernel<T, T, 8, ResidualShape::kThroughput>, 0); });
  return blocks >= kThroughputMinWaves * wave;
}

/// Lets staged_range_kernel<T, OutT> take its two stages of shared memory (once a device).
template <class T, class OutT>
void allow_staged_smem() {
  once_per_device([] {
    RSH_CUDA_CHECK(cudaFuncSetAttribute(staged_range_kernel<T, OutT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        staged_smem_bytes<T>()));
    return true;
  });
}

/// Describes the residual's ranges for staged_range_kernel (StagedRange) in plans that could take it: 16- and
/// 32-bit elements, no Tensor-Core items, residual items all whole rows. Waits for the count of staged
/// nonzeros (one stream synchronisation at the plan's construction).
template <class T>
void describe_staged_ranges(PlanData<T>& d, cudaStream_t stream) {
  if constexpr (sizeof(T) <= 4) {
    if (d.tc_num_items > 0 || d.dense || d.res_num_items == 0 || d.res_num_local != d.res_num_items) return;
    const int ranges = (d.res_num_items + kStagedRows - 1) / kStagedRows;
    d.store.staged_ranges = DeviceArray<StagedRange>(size_t(ranges), stream);
    DeviceArray<unsigned long long> counts(2, stream);
    RSH_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), stream));
    staged_ranges_kernel<<<(int64_t(ranges) * 32 + 255) / 256, 256, 0, stream>>>(
        d.res_items, d.res_num_items, d.res_num_local, d.res_cols, ranges, d.store.staged_ranges.get(), counts.get());
    check_launch("staged_ranges_kernel");
    unsigned long long host[2] = {0, 0};
    RSH_CUDA_CHECK(cudaMemcpyAsync(host, counts.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host[1] != 0) return d.store.staged_ranges = DeviceArray<StagedRange>(), void();  // pieces: not eligible
    d.staged_ranges = d.store.staged_ranges.get(), d.staged_num_ranges = ranges;
    d.staged_nnz = static_cast<int64_t>(host[0]);
    d.staged_wave_ctas = once_per_device([] {
      allow_staged_smem<T, T>();
      return resident_ctas(staged_range_kernel<T, T>, staged_smem_bytes<T>());
    });
  }
}

/// Whether the plan's residual goes to staged ranges where the operands allow (staged_planned): where it has
/// them and KernelConfig::staged_ranges asks for it (2) or leaves it to the rule (0): at least
/// kStagedMinShare of the nonzeros staged, and at least kStagedMinRangesPerCta ranges a resident CTA. A CTA's
/// copies overlap its multiplies from its second range on; in a grid of about one wave each CTA waits for
/// its range's chain of loads (metadata, then the copies), longer than residual_kernel's.
template <class T>
bool staged_chosen(const PlanView<T>& d) {
  if (!d.staged_ranges || d.config.staged_ranges == 1) return false;
  return d.config.staged_ranges == 2 || (d.staged_nnz >= kStagedMinShare * double(d.res_nnz) &&
                                         d.staged_num_ranges >= kStagedMinRangesPerCta * d.staged_wave_ctas);
}
/// Lets staged_tile_kernel<T, OutT> take its two stages and its tile of shared memory (once a device).
template <class T, class OutT>
void allow_tile_smem() {
  once_per_device([] {
    RSH_CUDA_CHECK(cudaFuncSetAttribute(staged_tile_kernel<T, OutT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        staged_tile_smem_bytes<T>()));
    return true;
  });
}

/// Describes the residual's ranges for staged_tile_kernel in 16-bit plans that could take them (those that could
/// take staged ranges) and do not take staged ranges: where `forced` (KernelConfig::staged_tiles = 2), or where
/// the plan has at least kStagedMinRangesPerCta ranges a resident CTA and, once described, at least
/// kStagedMinShare of its nonzeros lie in ranges that fit (staged_chosen's rule, for the same reasons). Waits for
/// the count (one stream synchronisation at the plan's construction).
template <class T>
void describe_staged_tiles(PlanData<T>& d, cudaStream_t stream, bool forced) {
  if constexpr (sizeof(T) == 2) {
    if (d.tile_ranges || d.tc_num_items > 0 || d.dense || d.res_num_items == 0 || d.res_num_local != d.res_num_items)
      return;
    if (!forced && staged_chosen(d)) return;
    const int ranges = (d.res_num_items + kTileRows - 1) / kTileRows;
    const int64_t wave = once_per_device([] {
      allow_tile_smem<T, T>();
      return resident_ctas(staged_tile_kernel<T, T>, staged_tile_smem_bytes<T>());
    });
    if (!forced && ranges < kStagedMinRangesPerCta * wave) return;
    auto& s = d.store;
    s.tile_ranges = DeviceArray<StagedRange>(size_t(ranges), stream);
    s.tile_range_cols = DeviceArray<int>(size_t(ranges) * kTileMaxCols, stream);
    s.tile_slots = DeviceArray<uint16_t>(size_t(std::max<int64_t>(d.res_nnz, 1)), stream);
    DeviceArray<unsigned long long> counts(2, stream);
    RSH_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, 2 * sizeof(unsigned long long), stream));
    staged_tiles_kernel<<<(ranges + 7) / 8, 256, 0, stream>>>(d.res_items, d.res_num_items, d.res_num_local, d.res_cols,
                                                              ranges, s.tile_ranges.get(), s.tile_range_cols.get(),
                                                              s.tile_slots.get(), counts.get());
    check_launch("staged_tiles_kernel");
    unsigned long long host[2] = {0, 0};
    RSH_CUDA_CHECK(cudaMemcpyAsync(host, counts.get(), sizeof(host), cudaMemcpyDeviceToHost, stream));
    RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host[1] != 0 || (!forced && double(host[0]) < kStagedMinShare * double(d.res_nnz))) {
      s.tile_ranges = DeviceArray<StagedRange>(), s.tile_range_cols = DeviceArray<int>();
      s.tile_slots = DeviceArray<uint16_t>();
      return;
    }
    d.tile_ranges = s.tile_ranges.get(), d.tile_range_cols = s.tile_range_cols.get();
    d.tile_slots = s.tile_slots.get(), d.tile_num_ranges = ranges, d.tile_wave_ctas = wave;
  }
}

/// Whether the plan's residual goes to staged tiles where the operands allow (tiles_planned): where it has them
/// (describe_staged_tiles applied the rule) and KernelConfig::staged_tiles does not say never (1).
template <class T>
bool tiles_chosen(const PlanView<T>& d) {
  return d.tile_ranges && d.config.staged_tiles != 1;
}

/// Whether this multiply runs the residual as staged ranges (staged_range_kernel): chosen for the plan, B's
/// rows 16-byte vectors, the residual's arrays 16-byte aligned, and (unless asked for) B rows of at least
/// half a slice: narrower ones would stage chunks that no lane multiplies.
template <class T, class OutT>
bool staged_planned(const PlanView<T>& d, const ResidualParams<T, OutT>& res, int n) {
  if (!staged_chosen(d) || !res.B.vec) return false;
  const auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % kStagedChunkBytes == 0; };
  if (!aligned(d.res_cols) || !aligned(d.res_values) || !aligned(d.res_items)) return false;
  return d.config.staged_ranges == 2 || 2 * n >= staged_slice_features<T>();
}
/// Whether this multiply runs the residual as staged tiles (staged_tile_kernel): chosen for the plan, staged
/// ranges not planned, and the operands as staged_planned asks of them.
template <class T, class OutT>
bool tiles_planned(const PlanView<T>& d, const ResidualParams<T, OutT>& res, int n) {
  if (!tiles_chosen(d) || staged_planned(d, res, n) || !res.B.vec) return false;
  const auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % kStagedChunkBytes == 0; };
  if (!aligned(d.res_values) || !aligned(d.res_items)) return false;
  return d.config.staged_tiles == 2 || 2 * n >= staged_slice_features<T>();
}
}  // namespace detail

template <class T>
SpmmPlan<T>::SpmmPlan(const HostFormat& f, cudaStream_t stream, FloatMath math) : d_(new detail::PlanData<T>) {
  detail::PlanData<T>& d = *d_;
  detail::take_counts(d, f, math);
  d.tile_nnz = f.num_tiles ? f.tile_val_offset[f.num_tiles] : 0;
  d.store.window_rows.assign(f.window_rows, 8 * size_t(f.num_windows), stream);
  d.store.tile_cols.assign(f.tile_cols, 8 * size_t(f.num_tiles), stream);
  d.store.tile_bitmap.assign(f.tile_bitmap, f.num_tiles, stream);
  d.store.tile_val_offset.assign(f.tile_val_offset, f.num_tiles ? f.num_tiles + 1 : 0, stream);
  d.store.tc_item_window.assign(f.tc_item_window, f.tc_num_items, stream);
  d.store.tc_item_tile_begin.assign(f.tc_item_tile_begin, f.tc_num_items, stream);
  d.store.tc_item_tile_end.assign(f.tc_item_tile_end, f.tc_num_items, stream);
  std::vector<detail::ResidualItem> items(f.res_num_items);
  for (int i = 0; i < f.res_num_items; ++i) {
    const int r = f.res_item_row[i];
    if (r < 0 || r >= f.num_res_rows)
      throw std::invalid_argument("rsh::cuda::SpmmPlan: residual item row out of range");
    items[i] = {f.res_item_begin[i], f.res_item_end[i], f.res_rows[r], f.res_item_pieces[i]};
  }
  if (detail::scale_rows_as_items(f)) {
    for (int i = 0; i < f.num_scale_rows; ++i) items.push_back({0, 0, f.scale_rows[i], 1});
    d.res_num_items = d.res_num_local = static_cast<int>(items.size());
    d.num_scale_rows = 0;
  }
  // Dense blocks multiply from the block layout, but SDDMM walks the residual: kept either way.
  d.store.res_cols.assign(f.res_cols, f.res_nnz, stream);
  d.store.res_items.assign(items.data(), items.size(), stream);
  if (!d.dense) {
    d.store.scale_rows.assign(f.scale_rows, d.num_scale_rows, stream);
  } else {  // the residual names the values' places in the dense blocks
    d.dense_slot.assign(f.res_nnz, 0);
    for (int i = 0; i < f.res_num_items; ++i)
      for (int k = f.res_item_begin[i]; k < f.res_item_end[i]; ++k) {
        if (f.res_cols[k] < 0 || f.res_cols[k] >= f.num_cols)
          throw std::invalid_argument("rsh::cuda::SpmmPlan: residual column out of range");
        d.dense_slot[k] = d.dense_layout.slot(items[i].row, f.res_cols[k], sizeof(T));
      }
    d.store.dense_slot.assign(d.dense_slot.data(), d.dense_slot.size(), stream);
  }
  d.bind_format_to_store();
  update_values(f.values, stream);
  detail::describe_staged_ranges(d, stream);
  detail::describe_staged_tiles(d, stream, false);
}

template <class T>
SpmmPlan<T>::SpmmPlan(const DeviceFormat& f, const T* values, cudaStream_t stream, FloatMath math)
    : d_(new detail::PlanData<T>) {
  detail::PlanData<T>& d = *d_;
  detail::take_counts(d, f, math);
  if (f.num_tiles)
    RSH_CUDA_CHECK(
        cudaMemcpyAsync(&d.tile_nnz, f.tile_val_offset + f.num_tiles, sizeof(int), cudaMemcpyDeviceToHost, stream));
  d.window_rows = f.window_rows, d.tile_cols = f.tile_cols, d.tile_bitmap = f.tile_bitmap;
  d.tile_val_offset = f.tile_val_offset;
  d.tc_item_window = f.tc_item_window, d.tc_item_tile_begin = f.tc_item_tile_begin;
  d.tc_item_tile_end = f.tc_item_tile_end;
  d.res_cols = f.res_cols;
  const int extra = detail::scale_rows_as_items(f) ? f.num_scale_rows : 0;
  if (extra) d.res_num_items = d.res_num_local = f.res_num_items + extra, d.num_scale_rows = 0;
  d.scale_rows = f.scale_rows;
  d.store.res_items = DeviceArray<detail::ResidualItem>(size_t(d.res_num_items), stream);
  detail::residual_items_kernel<<<detail::stride_blocks(d.res_num_items), 256, 0, stream>>>(
      f.res_item_row, f.res_item_begin, f.res_item_end, f.res_item_pieces, f.res_rows, f.res_num_items, f.scale_rows,
      extra, d.store.res_items.get());
  detail::check_launch("residual_items_kernel");
  if (d.dense) {
    d.store.dense_slot = DeviceArray<int64_t>(size_t(f.res_nnz), stream);
    detail::dense_slot_kernel<<<detail::stride_blocks(d.res_num_items), 256, 0, stream>>>(
        d.store.res_items.get(), d.res_num_items, f.res_cols, d.dense_layout, int(sizeof(T)), d.store.dense_slot.get());
    detail::check_launch("dense_slot_kernel");
    d.store.dense_values = DeviceArray<T>(size_t(d.dense_layout.num_slots()), stream);
  }
  if (f.num_tiles) RSH_CUDA_CHECK(cudaStreamSynchronize(stream));  // tile_nnz (0 without tiles)
  if (!d.dense) d.store.values = DeviceArray<T>(size_t(d.tile_nnz) + d.res_nnz, stream);
  d.bind_values();
  update_values_device(values, stream);
  detail::describe_staged_ranges(d, stream);
  detail::describe_staged_tiles(d, stream, false);
}

template <class T>
SpmmPlan<T>::~SpmmPlan() = default;

template <class T>
void SpmmPlan<T>::update_values(const double* values, cudaStream_t stream) {
  detail::PlanData<T>& d = *d_;
  const bool tf32 = d.math == FloatMath::kTf32;
  // Dense blocks: every value meets the Tensor Cores; else the tile values do and the residual stays FP32.
  std::vector<double> sums;
  if (d.dense && d.dense_slot.size() != size_t(d.res_nnz))
    throw std::logic_error("rsh::cuda::SpmmPlan::update_values: a plan over a DeviceFormat takes update_values_device");
  if (d.dense) {
    sums.assign(d.dense_layout.num_slots(), 0.0);
    for (size_t k = 0; k < d.dense_slot.size(); ++k) sums[d.dense_slot[k]] += values[d.tile_nnz + k];
  }
  const size_t count = d.dense ? sums.size() : size_t(d.tile_nnz) + d.res_nnz;
  const size_t tc_count = d.dense ? sums.size() : size_t(d.tile_nnz);
  const std::vector<T> converted = detail::to_elements<T>(d.dense ? sums.data() : values, count, tf32 ? tc_count : 0);
  if constexpr (std::is_same<T, float>::value)
    d.split = tf32 ? detail::Tf32Split::kNone : detail::fp32_split(converted.data(), tc_count);
  d.split_update = (d.split_update + 1) & 0x7fffffffu;  // an answer still on its way is for older values
  d.split_pending = false;
  (d.dense ? d.store.dense_values : d.store.values).assign(converted.data(), count, stream);
  d.bind_values();
}

template <class T>
void SpmmPlan<T>::update_values_device(const T* values, cudaStream_t stream) {
  detail::PlanData<T>& d = *d_;
  const size_t count = size_t(d.tile_nnz) + d.res_nnz;
  if (count > 0 && !values) throw std::invalid_argument("rsh::cuda::SpmmPlan::update_values_device: null values");
  // Dense blocks: every value meets the Tensor Cores; else the tile values do and the residual stays as given.
  T* tc = d.dense ? d.store.dense_values.get() : d.store.values.get();
  const int64_t tc_count = d.dense ? int64_t(d.dense_layout.num_slots()) : d.tile_nnz;
  if (d.dense) {
    RSH_CUDA_CHECK(cudaMemsetAsync(tc, 0, sizeof(T) * size_t(tc_count), stream));
    detail::scatter_add_kernel<T>
        <<<detail::stride_blocks(d.res_nnz), 256, 0, stream>>>(values, d.store.dense_slot.get(), d.res_nnz, tc);
    detail::check_launch("scatter_add_kernel");
  } else if (count > 0) {
    RSH_CUDA_CHECK(cudaMemcpyAsync(tc, values, sizeof(T) * count, cudaMemcpyDeviceToDevice, stream));
  }
  if constexpr (std::is_same<T, float>::value) {
    if (d.math == FloatMath::kTf32) {
      detail::round_to_tf32_kernel<<<detail::stride_blocks(tc_count), 256, 0, stream>>>(tc, tc_count);
      detail::check_launch("round_to_tf32_kernel");
    } else {
      // Whether B alone needs splitting is answered on the device and read by a later multiply when it is
      // there (settle_split): waiting for it here would stall every caller that refreshes values each step.
      if (!d.split_answer) d.split_answer = std::make_unique<detail::MappedHostFlag>();
      detail::StreamBuffer<int> inexact(1, stream);
      RSH_CUDA_CHECK(cudaMemsetAsync(inexact.get(), 0, sizeof(int), stream));
      detail::tf32_inexact_kernel<<<detail::stride_blocks(tc_count), 256, 0, stream>>>(tc, tc_count, inexact.get());
      detail::check_launch("tf32_inexact_kernel");
      d.split_update = (d.split_update + 1) & 0x7fffffffu;
      detail::publish_inexact_kernel<<<1, 1, 0, stream>>>(inexact.get(), d.split_update, d.split_answer->device());
      detail::check_launch("publish_inexact_kernel");
      d.split_answer->written_on(stream);
      d.split = detail::Tf32Split::kBoth;
      d.split_pending = true;
    }
  }
}

template <class T>
void SpmmPlan<T>::set_config(const KernelConfig& config) {
  const int k = config.warps_per_item, g = config.residual_lanes, cl = config.dense_cluster;
  if (k != 0 && k != 1 && k != 2 && k != 4 && k != 8)
    throw std::invalid_argument("rsh::cuda::KernelConfig: warps_per_item = " + std::to_string(k) +
                                " not in {0, 1, 2, 4, 8}");
  if (g != 0 && g != 4 && g != 8 && g != 16 && g != 32)
    throw std::invalid_argument("rsh::cuda::KernelConfig: residual_lanes = " + std::to_string(g) +
                                " not in {0, 4, 8, 16, 32}");
  const int v = config.residual_lane_features;
  const bool lane_features_ok = std::is_same<T, float>::value ? v == 0 || v == 4 || v == 8
                                : sizeof(T) == 8              ? v == 0 || v == 2 || v == 4
                                                              : v == 0 || v == 8;
  if (!lane_features_ok)
    throw std::invalid_argument("rsh::cuda::KernelConfig: residual_lane_features = " + std::to_string(v) +
                                (std::is_same<T, float>::value ? " not in {0, 4, 8}"
                                 : sizeof(T) == 8              ? " not in {0, 2, 4} for FP64"
                                                               : " not in {0, 8} for FP16 and BF16"));
  if (cl != 0 && cl != 1 && cl != 2 && cl != 4 && cl != 8 && cl != detail::kBlockMaxWideCluster)
    throw std::invalid_argument("rsh::cuda::KernelConfig: dense_cluster = " + std::to_string(cl) +
                                " not in {0, 1, 2, 4, 8, 16}");
  if (config.dense_stages < 0 || config.dense_stages > detail::kBlockMaxStages)
    throw std::invalid_argument("rsh::cuda::KernelConfig: dense_stages = " + std::to_string(config.dense_stages) +
                                " not in {0, 1, 2}");
  constexpr int kRound = kDenseRoundSteps<T>;
  const int round = config.dense_round_steps;
  if ((round != 0 && round != kRound && round != 2 * kRound) || (round == 2 * kRound && config.dense_stages == 2))
    throw std::invalid_argument("rsh::cuda::KernelConfig: dense_round_steps = " + std::to_string(round) +
                                " not in {0, " + std::to_string(kRound) + ", " + std::to_string(2 * kRound) + "} (" +
                                std::to_string(2 * kRound) + ": one stage)");
  if (config.column_major < 0 || config.column_major > 3)
    throw std::invalid_argument("rsh::cuda::KernelConfig: column_major = " + std::to_string(config.column_major) +
                                " not in {0, 1, 2, 3}");
  // The fields that ask for a kernel: 0 the planner's choice, 1 never (or the default shape), 2 always.
  const std::pair<const char*, int> choices[] = {{"residual_mma", config.residual_mma},
                                                 {"staged_ranges", config.staged_ranges},
                                                 {"staged_tiles", config.staged_tiles},
                                                 {"residual_shape", config.residual_shape}};
  for (const auto& c : choices)
    if (c.second < 0 || c.second > 2)
      throw std::invalid_argument(std::string("rsh::cuda::KernelConfig: ") + c.first + " = " +
                                  std::to_string(c.second) + " not in {0, 1, 2}");
  d_->config = config;
  if (config.staged_tiles == 2) detail::describe_staged_tiles(*d_, nullptr, true);
}

template <class T>
int SpmmPlan<T>::num_rows() const {
  return d_->num_rows;
}
template <class T>
int SpmmPlan<T>::num_cols() const {
  return d_->num_cols;
}
template <class T>
std::string SpmmPlan<T>::describe() const {
  detail::settle_split(*d_);
  const detail::PlanData<T>& d = *d_;
  const bool fp64 = std::is_same<T, double>::value, fp32 = std::is_same<T, float>::value;
  const bool bf16 = std::is_same<T, __nv_bfloat16>::value;
  const char* tc = fp64                                   ? "FP64"
                   : bf16                                 ? "BF16 (FP32 accumulation)"
                   : !fp32                                ? "FP16 (FP32 accumulation)"
                   : d.split == detail::Tf32Split::kNone  ? "TF32 (FP32 accumulation)"
                   : d.split == detail::Tf32Split::kDense ? "2xTF32 (FP32-level; values exact in TF32)"
                                                          : "3xTF32 (FP32-level)";
  const char* cuda_core = fp64   ? "FP64"
                          : fp32 ? "FP32"
                          : bf16 ? "BF16 operands, FP32 accumulation"
                                 : "FP16 operands, FP32 accumulation";
  if (d.dense) return std::string("CUDA: dense 16 x 16 blocks on Tensor Cores in ") + tc;
  std::string s = "CUDA: ";
  if (d.tc_num_items > 0) s += std::string("Tensor-Core tiles in ") + tc;
  if (d.tc_num_items > 0 && d.res_num_items > 0) s += " + ";
  if (d.res_num_items > 0 || d.tc_num_items == 0) s += std::string("CUDA-core residual in ") + cuda_core;
  if (detail::residual_mma_planned(d)) s += " (on Tensor Cores where B is row-major and 16-byte aligned)";
  if (detail::staged_chosen(d) && !detail::residual_mma_planned(d))
    s += " (in ranges of 64 rows with their B rows staged in shared memory where B is row-major and 16-byte aligned)";
  else if (detail::tiles_chosen(d) && !detail::residual_mma_planned(d))
    s += " (in ranges of 32 rows on Tensor Cores over their distinct columns where B is row-major and 16-byte aligned)";
  else if (sizeof(T) == 2 && d.config.residual_shape == 2 && d.tc_num_items == 0 && !detail::residual_mma_planned(d))
    s += " (single rows at 8 CTAs an SM where B is row-major and 16-byte aligned)";
  return s;
}

namespace detail {

/// The multiply of a dense-block plan (PlanView::dense) on row-major dense operands.
template <class T, class OutT>
void spmm_dense_blocks(const PlanView<T>& d, Accum<T> alpha, const DenseRef<const T>& b_ref, Accum<T> beta,
                       const DenseRef<OutT>& c_ref, int n, cudaStream_t stream) {
  const impl::DenseBlockLayout& l = d.dense_layout;
  const int slices = (n + kBlockFeatures - 1) / kBlockFeatures;
  if (slices > 65535) throw std::invalid_argument("rsh::cuda::spmm: n = " + std::to_string(n) + " too wide");
  const BlockLaunch launch = plan_block_launch(l, slices, kDenseRoundSteps<T>, d.config, d.dense_waves);
  const BlockParams<T, OutT> p{d.dense_values, l.num_rows, l.num_cols, l.col_blocks, slices, b_ref, c_ref, alpha, beta};
  with_split<T>(d.split, [&](auto s) {
    launch_block_kernel<decltype(s)::value>(p, l.groups, launch.cluster, launch.staging, stream);
  });
}

/// The residual's launch on Tensor Cores, if planned and B's rows are 16-byte vectors; false otherwise.
template <class T, class OutT>
bool launch_residual_mma(const PlanView<T>& d, SpmmParams<T, OutT> p, int n, bool after_prior, cudaStream_t stream) {
  if constexpr (sizeof(T) != 2) {
    return false;
  } else {
    if (!residual_mma_planned(d) || !p.res.B.vec) return false;
    const int item_blocks = (d.res_num_items + kResMmaItems * kResMmaWarps - 1) / (kResMmaItems * kResMmaWarps);
    p.res.slices = (n + kResMmaFeatures - 1) / kResMmaFeatures;
    p.res.item_blocks = impl::FastDivisor(item_blocks);
    once_per_device([] {
      RSH_CUDA_CHECK(cudaFuncSetAttribute(residual_mma_kernel<T, OutT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          kResMmaSmemBytes));
      return true;
    });
    launch_programmatic(residual_mma_kernel<T, OutT>, p, static_cast<unsigned>(int64_t(item_blocks) * p.res.slices),
                        kResThreadsPerBlock, kResMmaSmemBytes, after_prior, stream);
    check_launch("residual_mma_kernel");
    return true;
  }
}

/// The residual's launch as staged ranges, if planned (staged_planned); false otherwise.
template <class T, class OutT>
bool launch_staged(const PlanView<T>& d, const SpmmParams<T, OutT>& p, int n, bool after_prior, cudaStream_t stream) {
  if constexpr (sizeof(T) > 4) {
    return false;
  } else {
    if (!staged_planned(d, p.res, n)) return false;
    allow_staged_smem<T, OutT>();
    const StagedParams<T, OutT> sp{p.res,
                                   d.staged_ranges,
                                   d.staged_num_ranges,
                                   (n + staged_slice_features<T>() - 1) / staged_slice_features<T>(),
                                   d.res_nnz,
                                   p.wait_first};
    const int64_t units = int64_t(sp.num_ranges) * sp.slices;
    if (units > INT32_MAX) return false;
    launch_programmatic(staged_range_kernel<T, OutT>, sp, static_cast<unsigned>(std::min(units, d.staged_wave_ctas)),
                        kResThreadsPerBlock, staged_smem_bytes<T>(), after_prior, stream);
    check_launch("staged_range_kernel");
    return true;
  }
}

/// The residual's launch as staged tiles, if planned (tiles_planned); false otherwise.
template <class T, class OutT>
bool launch_tiles(const PlanView<T>& d, const SpmmParams<T, OutT>& p, int n, bool after_prior, cudaStream_t stream) {
  if constexpr (sizeof(T) != 2) {
    return false;
  } else {
    if (!tiles_planned(d, p.res, n)) return false;
    allow_tile_smem<T, OutT>();
    const StagedTileParams<T, OutT> tp{
        p.res,        d.tile_ranges,     d.tile_range_cols,
        d.tile_slots, d.tile_num_ranges, (n + staged_slice_features<T>() - 1) / staged_slice_features<T>(),
        d.res_nnz,    p.wait_first};
    const int64_t units = int64_t(tp.num_ranges) * tp.slices;
    if (units > INT32_MAX) return false;
    launch_programmatic(staged_tile_kernel<T, OutT>, tp, static_cast<unsigned>(std::min(units, d.tile_wave_ctas)),
                        kResThreadsPerBlock, staged_tile_smem_bytes<T>(), after_prior, stream);
    check_launch("staged_tile_kernel");
    return true;
  }
}

/// The residual's launch as residual_kernel in its throughput shape, if planned (residual_throughput_planned);
/// false otherwise. Unless KernelConfig::residual_lanes says otherwise, a plan of one slice of B's features takes
/// two of half the width where such a slice over A's columns takes at most kThroughputSliceL2s L2s: the CTAs
/// running at once then gather from a part of B that the L2 holds more of.
template <class T, class OutT>
bool launch_throughput(const PlanView<T>& d, SpmmParams<T, OutT> p, int n, bool after_prior, cudaStream_t stream) {
  if constexpr (sizeof(T) != 2) {
    return false;
  } else {
    if (!residual_throughput_planned(d, p.res, n, p.res_blocks)) return false;
    constexpr int V = 8;
    const int64_t half_slice_bytes = int64_t(d.num_cols) * (V * p.res.group / 2) * int64_t(sizeof(T));
    const int64_t l2_bytes = once_per_device([] { return device_l2_bytes(); });
    if (d.config.residual_lanes == 0 && p.res.slices == 1 && p.res.group >= 8 && 2 * p.res_blocks <= INT32_MAX &&
        half_slice_bytes <= kThroughputSliceL2s * l2_bytes)
      p.res_blocks = set_residual_grid(p.res, n, V, p.res.group / 2);
    launch_spmm(residual_kernel<T, OutT, V, ResidualShape::kThroughput>, p, p.res_blocks, after_prior, stream,
                "residual_kernel");
    return true;
  }
}

/// The multiply on dense operands the kernels read and write as rows (row-major, or the row-major copies
/// of column-major ones): n features of C are computed (features past n in B and C up to their .n too).
/// `b_from_prior`: B is written by the kernel launched just before (transpose_kernel), which lets the
/// multiply launch behind it (launch_spmm).
template <class T, class OutT>
void spmm_rows(const PlanView<T>& d, Accum<T> alpha, const DenseRef<const T>& b_ref, Accum<T> beta,
               const DenseRef<OutT>& c_ref, int n, cudaStream_t stream, bool b_from_prior = false) {
  if (d.dense) return spmm_dense_blocks(d, alpha, b_ref, beta, c_ref, n, stream);
  // Rows of atomic items (and empty rows, then) are scaled before any atomic adds into them.
  const bool scaled = d.num_scale_rows > 0;
  if (scaled) {
    const int blocks = std::min((d.num_scale_rows + 7) / 8, 4096);  // a warp a row
    detail::scale_rows_kernel<OutT><<<blocks, 256, 0, stream>>>(d.scale_rows, d.num_scale_rows, c_ref, beta);
    detail::check_launch("scale_rows_kernel");
  }

  detail::SpmmParams<T, OutT> p{};
  // Tensor-Core part: K warps share an (item, slice) when there are too few tasks to fill the GPU
  // (plan_tc_warps).
  constexpr int kSlice = detail::tc_slice_features<T>();
  const int tc_slices = (n + kSlice - 1) / kSlice;
  const int64_t tasks = int64_t(d.tc_num_items) * tc_slices;
  const int64_t mean_tiles = d.tc_num_items ? (int64_t(d.num_tiles) + d.tc_num_items - 1) / d.tc_num_items : 1;
  int K = d.config.warps_per_item;
  if (K == 0) K = detail::plan_tc_warps(tasks, mean_tiles, d.tc_wave_warps, sizeof(T) == 8);
  p.tc = detail::TcParams<T, OutT>{d.window_rows,
                                   d.tile_cols,
                                   d.tile_bitmap,
                                   d.tile_val_offset,
                                   d.tile_values,
                                   d.tc_item_window,
                                   d.tc_item_tile_begin,
                                   d.tc_item_tile_end,
                                   d.tc_num_items,
                                   d.tc_num_unsplit,
                                   tc_slices,
                                   K,
                                   b_ref,
                                   c_ref,
                                   alpha,
                                   beta};
  const int tasks_per_block = detail::kTcWarpsPerBlock / K;
  p.tc_blocks = (tasks + tasks_per_block - 1) / tasks_per_block;
  // Residual part: groups of G lanes of V features, G x V >= n where
  // possible; a CTA runs 256 / G consecutive items (a multiple of
  // kResidualPieceAlign) for one slice. Without Tensor-Core items FP32 takes
  // V = 4 and FP64 V = 2 (the narrow width: twice the lanes an item) when that
  // grid fits in one wave of resident CTAs, where latency rules, else 8 and 4,
  // whose wider loads and fewer CTAs pay on larger grids (see residual_kernel).
  p.res = detail::ResidualParams<T, OutT>{
      d.res_cols, d.res_values, d.res_items, d.res_num_items, d.res_num_local, 0, 0, {}, b_ref, c_ref, alpha, beta};
  const auto residual_grid = [&](int features) {
    int group = d.config.residual_lanes;
    if (group == 0) {
      group = 4;
      while (group < 32 && features * group < n) group *= 2;
    }
    return detail::set_residual_grid(p.res, n, features, group);
  };
  int lane_features = d.config.residual_lane_features;
  if (p.tc_blocks > 0)
    lane_features = detail::fused_residual_features<T>();  // the fused kernel's one width
  else if (sizeof(T) == 2)
    lane_features = 8;  // the only instantiation
  constexpr int narrow = detail::residual_narrow_features<T>();
  if (lane_features == 0) lane_features = residual_grid(narrow) <= d.residual_wave_ctas ? narrow : 2 * narrow;
  p.res_blocks = residual_grid(lane_features);
  const int64_t blocks = p.tc_blocks + p.res_blocks;
  if (blocks == 0) return;
  if (blocks > int64_t(0x7fffffff)) throw std::invalid_argument("rsh::cuda::spmm: problem too large for one grid");
  // Behind the pre-scaling (a plain launch, so B's copy has ended) or behind B's copy, which it waits for.
  p.wait_first = b_from_prior && !scaled;
  const bool after_prior = scaled || b_from_prior;
  if (p.tc_blocks == 0) {
    if (detail::launch_residual_mma(d, p, n, after_prior, stream)) return;
    if (detail::launch_staged(d, p, n, after_prior, stream)) return;
    if (detail::launch_tiles(d, p, n, after_prior, stream)) return;
    if constexpr (sizeof(T) == 8)
      if (lane_features == 2)
        return detail::launch_spmm(detail::residual_kernel<T, OutT, 2>, p, blocks, after_prior, stream,
                                   "residual_kernel");
    if constexpr (sizeof(T) >= 4)
      if (lane_features == 4)
        return detail::launch_spmm(detail::residual_kernel<T, OutT, 4>, p, blocks, after_prior, stream,
                                   "residual_kernel");
    if (detail::launch_throughput(d, p, n, after_prior, stream)) return;
    if constexpr (sizeof(T) <= 4)
      return detail::launch_spmm(detail::residual_kernel<T, OutT, 8>, p, blocks, after_prior, stream,
                                 "residual_kernel");
  }
  detail::with_split<T>(d.split, [&](auto s) {
    detail::launch_spmm(detail::spmm_kernel<T, OutT, decltype(s)::value>, p, blocks, after_prior, stream,
                        "spmm_kernel");
  });
}

}  // namespace detail

namespace detail {

/// The multiply on a view, B and C in either layout (the checks of SpmmPlan::spmm done).
template <class T, class OutT>
void spmm_view(const PlanView<T>& d, Accum<T> alpha, const T* B, int64_t ldb, Accum<T> beta, OutT* C, int64_t ldc,
               int n, Layout layout, cudaStream_t stream) {
  if (layout == Layout::kColMajor) {
    // Column-major B and C (see transpose_kernel): through row-major copies, B of `width` features (zero past
    // n) and C as an FP32 result, unless they are small enough for a copy's extra dependent launch to cost
    // more than the strided elements it saves (column_major_mode).
    int mode = d.config.column_major;
    if (mode == 0) mode = column_major_mode(d.num_rows, d.num_cols, n, int(sizeof(T)), d.num_scale_rows > 0);
    // The three kernels run behind one another with programmatic dependent launch (see launch_spmm).
    if (mode > 1) {
      const int width = transposed_width(n);
      StreamBuffer<T> b_rows(size_t(d.num_cols) * width, stream);
      transpose(B, ldb, n, d.num_cols, b_rows.get(), width, width, 0, stream, false);
      const DenseRef<const T> b_ref{b_rows.get(), width, 1, width, true};
      if (mode == 2) return spmm_rows(d, alpha, b_ref, beta, dense_ref<OutT>(C, ldc, n, layout), n, stream, true);
      StreamBuffer<Accum<T>> c_rows(size_t(d.num_rows) * width, stream);
      const DenseRef<Accum<T>> c_ref{c_rows.get(), width, 1, width, true};  // padding features are stored too
      spmm_rows(d, alpha, b_ref, Accum<T>(0), c_ref, n, stream, true);
      // Behind the multiply only without the pre-scaling grid, which writes rows of the copy's source that the
      // multiply itself may not wait for.
      return transpose(c_rows.get(), width, d.num_rows, n, C, ldc, d.num_rows, beta, stream, d.num_scale_rows == 0);
    }
  }
  spmm_rows(d, alpha, dense_ref<const T>(B, ldb, n, layout), beta, dense_ref<OutT>(C, ldc, n, layout), n, stream);
}

/// Throws std::invalid_argument unless n, ldb, ldc and the pointers fit an A of rows x cols.
inline void check_dense_args(int rows, int cols, const void* B, int64_t ldb, const void* C, int64_t ldc, int n,
                             Layout layout) {
  const bool row_major = layout == Layout::kRowMajor;
  if (n < 0 || ldb < (row_major ? n : cols) || ldc < (row_major ? n : rows) || ldb < 1 || ldc < 1)
    throw std::invalid_argument("rsh::cuda::spmm: n = " + std::to_string(n) + ", ldb = " + std::to_string(ldb) +
                                ", ldc = " + std::to_string(ldc) + " invalid for A " + std::to_string(rows) + " x " +
                                std::to_string(cols));
  if (n > 0 && rows > 0 && ((!B && cols > 0) || !C)) throw std::invalid_argument("rsh::cuda::spmm: null B or C");
}

}  // namespace detail

template <class T>
template <class OutT>
void SpmmPlan<T>::spmm(Accum<T> alpha, const T* B, int64_t ldb, Accum<T> beta, OutT* C, int64_t ldc, int n,
                       Layout layout, cudaStream_t stream) const {
  detail::check_dense_args(d_->num_rows, d_->num_cols, B, ldb, C, ldc, n, layout);
  if (n == 0 || d_->num_rows == 0) return;
  detail::settle_split(*d_);
  detail::spmm_view<T, OutT>(*d_, alpha, B, ldb, beta, C, ldc, n, layout, stream);
}

}  // namespace cuda
}  // namespace rsh
