#pragma once
// SDDMM launchers of the raw CUDA API: SpmmPlan::sddmm (Tensor-Core tiles +
// CUDA-core residual into value slots) and sddmm_csr (over a CSR, into its
// value order: spans on CUDA cores, in A's order or in panel order, or dense
// tiles on Tensor Cores). Included by one .cu per precision, after the plan
// and the handle-free multiply.
#include <algorithm>
#include <climits>
#include <string>

#include "cuda/RshSparse_cuda_device_cache.hpp"
#include "cuda/RshSparse_sddmm_kernel.cuh"
#include "cuda/RshSparse_sddmm_tile_kernel.cuh"
#include "cuda/RshSparse_sort_pairs_cuda.hpp"
#include "cuda/RshSparse_spmm_csr.cuh"

namespace rsh {
namespace cuda {
namespace detail {

/// Throws std::invalid_argument unless k, ldx, ldy and the pointers fit an A of rows x cols.
inline void check_sddmm_args(const char* who, int rows, int cols, const void* X, int64_t ldx, const void* Y,
                             int64_t ldy, int k) {
  if (k < 0 || ldx < k || ldy < k)
    throw std::invalid_argument(std::string(who) + ": k = " + std::to_string(k) + ", ldx = " + std::to_string(ldx) +
                                ", ldy = " + std::to_string(ldy) + " invalid (row-major X and Y need ld >= k >= 0)");
  if (k > 0 && ((rows > 0 && !X) || (cols > 0 && !Y))) throw std::invalid_argument(std::string(who) + ": null X or Y");
}

/// Lanes a CUDA-core span uses: the fewest (4 to 32) whose 16-byte vectors cover k features.
template <class T>
int sddmm_group(int k) {
  int group = 4;
  while (group < 32 && group * sddmm_lane_features<T>() < k) group *= 2;
  return group;
}

/// Blocks of kSddmmThreadsPerBlock threads for `units` groups of `group` lanes.
inline unsigned sddmm_blocks(int64_t units, int group) {
  const int64_t per_block = kSddmmThreadsPerBlock / group;
  const int64_t blocks = (units + per_block - 1) / per_block;
  if (blocks > int64_t(0x7fffffff)) throw std::invalid_argument("rsh::cuda::sddmm: problem too large for one grid");
  return static_cast<unsigned>(blocks);
}

/// span_rows[s] = the row of span s's first nonzero (a grid-stride loop).
template <class Offset>
__global__ void sddmm_span_rows_kernel(const Offset* row_map, int num_rows, int64_t spans, int* span_rows) {
  for (int64_t s = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; s < spans; s += int64_t(gridDim.x) * blockDim.x)
    span_rows[s] = csr_row_of(row_map, num_rows, s * kSddmmCsrSpan);
}

/// starts[r * (across + 1) + c]: row r's first nonzero at or past column 64 c, from the row's start (a thread an
/// entry, a grid-stride loop; c = across gives the row's length).
template <class Offset>
__global__ void sddmm_tile_starts_kernel(const Offset* row_map, int64_t entries, int across, const int* cols,
                                         int* starts) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < entries; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = e / (across + 1), c = e % (across + 1);
    const Offset begin = row_map[r], end = row_map[r + 1];
    const Offset at =
        c == across ? end
                    : lower_bound_column(cols, begin, end, c * kTileEdge < INT_MAX ? int(c * kTileEdge) : INT_MAX);
    starts[e] = int(at - begin);
  }
}

/// Panel-order keys of each nonzero j (a thread each): (panel of its row) << 32 | column, value j, row.
template <class Offset>
__global__ void sddmm_panel_keys_kernel(const Offset* row_map, int num_rows, int64_t nnz, const int* entries,
                                        int panel_rows, uint64_t* keys, int* values, int* nnz_rows) {
  const int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (j >= nnz) return;
  const int row = csr_row_of(row_map, num_rows, j);
  keys[j] = (uint64_t(row / panel_rows) << 32) | uint32_t(entries[j]);
  values[j] = int(j);
  nnz_rows[j] = row;
}

/// The panel order from the sorted keys (a thread an entry, padding to whole spans included), and the count
/// of distinct keys into *distinct.
static __global__ void sddmm_panel_entries_kernel(const uint64_t* keys, const int* values, const int* nnz_rows,
                                                  int64_t nnz, int64_t entries, int* rows, int* cols, int* positions,
                                                  unsigned long long* distinct) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  bool first = false;
  if (i < nnz) {
    const int j = values[i];
    rows[i] = nnz_rows[j], cols[i] = int(uint32_t(keys[i])), positions[i] = j;
    first = i == 0 || keys[i] != keys[i - 1];
  } else if (i < entries) {
    rows[i] = 0, cols[i] = -1, positions[i] = -1;
  }
  const int block_firsts = __syncthreads_count(first);
  if (threadIdx.x == 0 && block_firsts > 0) atomicAdd(distinct, static_cast<unsigned long long>(block_firsts));
}

/// Lets kernel K take up to `bytes` of dynamic shared memory, past the default 48 KiB: once a process (the
/// attribute stays set).
template <auto K>
void allow_dynamic_smem(size_t bytes) {
  static const bool allowed = [bytes] {
    RSH_CUDA_CHECK(cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    return true;
  }();
  (void)allowed;
}

/// Blocks of the spans kernel of batch B resident at once on the current device (a wave), queried once a device.
template <class T, class Offset, class OutT, int B, bool kVec>
int64_t sddmm_wave_blocks() {
  return once_per_device([] {
    int device = 0, sms = 0, per_sm = 0;
    RSH_CUDA_CHECK(cudaGetDevice(&device));
    RSH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    RSH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sddmm_csr_kernel<T, Offset, OutT, B, kVec>,
                                                                 kSddmmThreadsPerBlock, 0));
    return int64_t(sms) * per_sm;
  });
}

template <class T, class Offset, class OutT>
void launch_sddmm_csr(const DeviceCsr<T, Offset>& A, SddmmCsrKernel kernel, const SddmmCsrPrepared& prepared,
                      float alpha, const T* X, int64_t ldx, const T* Y, int64_t ldy, int k, float beta, OutT* out,
                      cudaStream_t stream) {
  SddmmCsrParams<T, Offset, OutT> p{};
  p.row_map = A.row_map, p.cols = A.entries, p.num_rows = A.num_rows, p.num_cols = A.num_cols, p.nnz = A.nnz;
  p.span_rows = prepared.span_rows, p.out = out, p.alpha = alpha, p.beta = beta;
  if (kernel == SddmmCsrKernel::kPanels) p.panels = prepared.panels;
  p.group = sddmm_group<T>(k);
  p.X = dense_ref<const T>(X, ldx, k, Layout::kRowMajor), p.Y = dense_ref<const T>(Y, ldy, k, Layout::kRowMajor);
  if (kernel == SddmmCsrKernel::kDenseTiles) {
    p.tile_starts = prepared.tile_starts;
    const int64_t across = (int64_t(A.num_cols) + kTileEdge - 1) / kTileEdge;
    p.tiles_per_row = impl::FastDivisor(static_cast<int>(std::max<int64_t>(across, 1)));
    const auto launch = [&](auto rows_constant) {
      constexpr int R = decltype(rows_constant)::value;
      const int64_t tiles = (int64_t(A.num_rows) + R - 1) / R * across;
      if (tiles > int64_t(0x7fffffff)) throw std::invalid_argument("rsh::cuda::sddmm_csr: too many tiles for one grid");
      // Chunks of up to 128 words a row need more than the default 48 KiB of shared memory.
      allow_dynamic_smem<sddmm_tile_kernel<R, T, Offset, OutT>>(tile_max_smem_bytes<R>());
      launch_programmatic(sddmm_tile_kernel<R, T, Offset, OutT>, p, static_cast<unsigned>(tiles), tile_threads<R>(),
                          tile_smem_bytes<R, T>(k), true, stream);
    };
    if (sddmm_tile_rows(A.num_rows, A.num_cols, prepared.tile_rows) == 32)
      launch(std::integral_constant<int, 32>());
    else
      launch(std::integral_constant<int, 64>());
    check_launch("sddmm_tile_kernel");
    return;
  }
  // A grid the batched kernel runs in one wave is latency-bound: its spans wait for memory once a batch. A
  // larger one is throughput-bound, where the kernel of one load at a time keeps more warps resident; from 8 of
  // its waves, each group takes 2 spans (4 from 16 waves), so that a block's consecutive spans share the rows of
  // X and Y its L1 holds, while the grid keeps waves enough to balance.
  constexpr int batch = sddmm_span_batch<T>();
  const int64_t spans = sddmm_csr_num_spans(A.nnz);
  const auto launch = [&](auto vec) {
    constexpr bool kVec = decltype(vec)::value;
    const unsigned blocks = sddmm_blocks(spans, p.group);
    if (blocks <= sddmm_wave_blocks<T, Offset, OutT, batch, kVec>()) {
      p.group_spans = 1;
      launch_programmatic(sddmm_csr_kernel<T, Offset, OutT, batch, kVec>, p, blocks, kSddmmThreadsPerBlock, 0, true,
                          stream);
      return;
    }
    const int64_t wave = sddmm_wave_blocks<T, Offset, OutT, 1, kVec>();
    p.group_spans = blocks >= 16 * wave ? 4 : blocks >= 8 * wave ? 2 : 1;
    launch_programmatic(sddmm_csr_kernel<T, Offset, OutT, 1, kVec>, p,
                        sddmm_blocks((spans + p.group_spans - 1) / p.group_spans, p.group), kSddmmThreadsPerBlock, 0,
                        true, stream);
  };
  if (lane_row_vectors(p.X) && lane_row_vectors(p.Y))
    launch(std::true_type());
  else
    launch(std::false_type());
  check_launch("sddmm_csr_kernel");
}

/// *unsorted = 1 where a row lists a column before a smaller one: a warp per row (grid-stride), each lane
/// comparing neighbours. Positions are clamped to [0, nnz), so that an unchecked row_map reads in bounds.
template <class Offset>
__global__ void csr_unsorted_kernel(const Offset* row_map, int rows, int64_t nnz, const int* entries, int* unsorted) {
  const int lane = threadIdx.x % 32;
  const int64_t warps = int64_t(gridDim.x) * blockDim.x / 32;
  for (int64_t r = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32; r < rows; r += warps) {
    const int64_t begin = std::max<int64_t>(row_map[r], 0), end = std::min<int64_t>(row_map[r + 1], nnz);
    bool bad = false;
    for (int64_t j = begin + 1 + lane; j < end; j += 32) bad |= entries[j] < entries[j - 1];
    if (__any_sync(0xffffffffu, bad)) {
      if (lane == 0) *unsorted = 1;
      return;
    }
  }
}

/// Blocks of 256 threads for the unsorted-row check: a warp per row, at most 4096 blocks.
inline unsigned unsorted_check_blocks(int rows) {
  return static_cast<unsigned>(std::min<int64_t>((int64_t(rows) + 7) / 8, 4096));
}

/// row_map nondecreasing from 0 to nnz, into *error.
template <class Offset>
__global__ void csr_row_map_check_kernel(const Offset* row_map, int rows, int64_t nnz, int* error) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r > rows) return;
  const bool bad = r == rows ? (row_map[0] != 0 || int64_t(row_map[rows]) != nnz) : row_map[r + 1] < row_map[r];
  if (bad) atomicOr(error, kCsrRowMap);
}

}  // namespace detail

template <class T>
int64_t SpmmPlan<T>::num_value_slots() const {
  return int64_t(d_->tile_nnz) + d_->res_nnz;
}

namespace detail {
/// SpmmPlan::sddmm of an FP16, BF16 or float plan.
template <class T>
void sddmm_plan(const PlanData<T>& d, const T* X, int64_t ldx, const T* Y, int64_t ldy, int k, float* slots,
                cudaStream_t stream) {
  check_sddmm_args("rsh::cuda::SpmmPlan::sddmm", d.num_rows, d.num_cols, X, ldx, Y, ldy, k);
  if (int64_t(d.tile_nnz) + d.res_nnz == 0) return;
  if (!slots) throw std::invalid_argument("rsh::cuda::SpmmPlan::sddmm: null slots");
  const DenseRef<const T> x = dense_ref<const T>(X, ldx, k, Layout::kRowMajor);
  const DenseRef<const T> y = dense_ref<const T>(Y, ldy, k, Layout::kRowMajor);
  if (d.tc_num_items > 0) {
    const SddmmTcParams<T> p{d.window_rows,
                             d.tile_cols,
                             d.tile_bitmap,
                             d.tile_val_offset,
                             d.tc_item_window,
                             d.tc_item_tile_begin,
                             d.tc_item_tile_end,
                             d.tc_num_items,
                             x,
                             y,
                             slots};
    const unsigned blocks =
        static_cast<unsigned>((d.tc_num_items + kSddmmThreadsPerBlock / 32 - 1) / (kSddmmThreadsPerBlock / 32));
    // Both operands are dense rows: FP32-level accuracy splits both (16-bit plans have one kernel).
    with_split<T>(d.math == FloatMath::kTf32 ? Tf32Split::kNone : Tf32Split::kBoth, [&](auto s) {
      sddmm_tc_kernel<T, decltype(s)::value><<<blocks, kSddmmThreadsPerBlock, 0, stream>>>(p);
    });
    check_launch("sddmm_tc_kernel");
  }
  if (d.res_nnz > 0) {
    const SddmmResidualParams<T> p{d.res_cols, d.res_items, d.res_num_items, slots + d.tile_nnz, sddmm_group<T>(k), x,
                                   y};
    sddmm_residual_kernel<T><<<sddmm_blocks(d.res_num_items, p.group), kSddmmThreadsPerBlock, 0, stream>>>(p);
    check_launch("sddmm_residual_kernel");
  }
}
}  // namespace detail

template <class T>
void SpmmPlan<T>::sddmm(const T* X, int64_t ldx, const T* Y, int64_t ldy, int k, float* slots,
                        cudaStream_t stream) const {
  using namespace detail;
  if constexpr (std::is_same<T, double>::value) {
    throw std::invalid_argument(
        "rsh::cuda::SpmmPlan<double>::sddmm: no FP64 SDDMM kernel (float, __half or __nv_bfloat16 plans)");
  } else {
    sddmm_plan(*d_, X, ldx, Y, ldy, k, slots, stream);
  }
}

template <class T, class Offset, class OutT>
void sddmm_csr(const DeviceCsr<T, Offset>& A, float alpha, const T* X, int64_t ldx, const T* Y, int64_t ldy, int k,
               float beta, OutT* out, cudaStream_t stream) {
  using namespace detail;
  const char* who = "rsh::cuda::sddmm_csr";
  const int rows = A.num_rows;
  if (rows < 0 || A.num_cols < 0 || A.nnz < 0 || (rows > 0 && !A.row_map) || (A.nnz > 0 && (!A.entries || !out)))
    throw std::invalid_argument(std::string(who) + ": negative sizes or null arrays");
  check_sddmm_args(who, rows, A.num_cols, X, ldx, Y, ldy, k);
  if (rows == 0) return;

  // flags[0]: the check's error bits; flags[1]: an unsorted row, looked for only where tiles would run.
  StreamBuffer<int> flags(2, stream);
  RSH_CUDA_CHECK(cudaMemsetAsync(flags.get(), 0, 2 * sizeof(int), stream));
  csr_row_map_check_kernel<<<static_cast<unsigned>((int64_t(rows) + 256) / 256), 256, 0, stream>>>(A.row_map, rows,
                                                                                                   A.nnz, flags.get());
  check_launch("csr_row_map_check_kernel");
  if (A.nnz > 0) {
    csr_column_check_kernel<<<stride_blocks(A.nnz), 256, 0, stream>>>(A.entries, A.nnz, A.num_cols, flags.get());
    check_launch("csr_column_check_kernel");
  }
  SddmmCsrKernel kernel = sddmm_csr_auto_kernel(rows, A.num_cols, A.nnz, true);
  if (kernel == SddmmCsrKernel::kDenseTiles) {
    // Before the check's verdict: its reads are clamped to entries' bounds, and a malformed A throws below.
    csr_unsorted_kernel<<<unsorted_check_blocks(rows), 256, 0, stream>>>(A.row_map, rows, A.nnz, A.entries,
                                                                         flags.get() + 1);
    check_launch("csr_unsorted_kernel");
  }
  int host_flags[2] = {0, 0};
  RSH_CUDA_CHECK(cudaMemcpyAsync(host_flags, flags.get(), sizeof host_flags, cudaMemcpyDeviceToHost, stream));
  RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_flags[0]) throw_csr_error(host_flags[0], rows, A.num_cols, A.nnz, who);
  if (A.nnz == 0) return;
  if (host_flags[1]) kernel = SddmmCsrKernel::kSpans;
  // Spans find their rows by binary search here (no buffer to keep them in between calls).
  launch_sddmm_csr(A, kernel, SddmmCsrPrepared{}, alpha, X, ldx, Y, ldy, k, beta, out, stream);
}

template <class Offset>
bool csr_rows_sorted(const Offset* row_map, int num_rows, int64_t nnz, const int* entries, cudaStream_t stream) {
  if (num_rows <= 0 || nnz <= 0) return true;
  if (!row_map || !entries) throw std::invalid_argument("rsh::cuda::csr_rows_sorted: null arrays");
  detail::StreamBuffer<int> unsorted(1, stream);
  RSH_CUDA_CHECK(cudaMemsetAsync(unsorted.get(), 0, sizeof(int), stream));
  detail::csr_unsorted_kernel<<<detail::unsorted_check_blocks(num_rows), 256, 0, stream>>>(row_map, num_rows, nnz,
                                                                                           entries, unsorted.get());
  detail::check_launch("csr_unsorted_kernel");
  int host = 0;
  RSH_CUDA_CHECK(cudaMemcpyAsync(&host, unsorted.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host == 0;
}

template <class Offset>
void sddmm_csr_span_rows(const Offset* row_map, int num_rows, int64_t nnz, int* span_rows, cudaStream_t stream) {
  const int64_t spans = sddmm_csr_num_spans(nnz);
  if (spans == 0) return;
  if (!row_map || !span_rows || num_rows <= 0)
    throw std::invalid_argument("rsh::cuda::sddmm_csr_span_rows: null arrays or no rows for nonzeros");
  detail::sddmm_span_rows_kernel<<<detail::stride_blocks(spans), 256, 0, stream>>>(row_map, num_rows, spans, span_rows);
  detail::check_launch("sddmm_span_rows_kernel");
}

template <class Offset>
void sddmm_csr_tile_starts(const Offset* row_map, int num_rows, int num_cols, int64_t nnz, const int* entries,
                           int* starts, cudaStream_t stream) {
  if (nnz > int64_t(INT_MAX) || num_rows < 0 || num_cols < 0)
    throw std::invalid_argument("rsh::cuda::sddmm_csr_tile_starts: nnz = " + std::to_string(nnz) +
                                " over INT_MAX or negative sizes");
  const int64_t entries_count = sddmm_csr_tile_start_entries(num_rows, num_cols);
  if (entries_count == 0) return;
  if (!row_map || !starts || (nnz > 0 && !entries))
    throw std::invalid_argument("rsh::cuda::sddmm_csr_tile_starts: null arrays");
  const int across = static_cast<int>((int64_t(num_cols) + detail::kTileEdge - 1) / detail::kTileEdge);
  detail::sddmm_tile_starts_kernel<<<detail::stride_blocks(entries_count), 256, 0, stream>>>(row_map, entries_count,
                                                                                             across, entries, starts);
  detail::check_launch("sddmm_tile_starts_kernel");
}

template <class Offset>
int64_t sddmm_csr_panel_order(const Offset* row_map, int num_rows, int64_t nnz, const int* entries, int panel_rows,
                              int* rows, int* cols, int* positions, cudaStream_t stream) {
  using namespace detail;
  const char* who = "rsh::cuda::sddmm_csr_panel_order";
  if (nnz > int64_t(INT_MAX) || panel_rows < 1)
    throw std::invalid_argument(std::string(who) + ": nnz = " + std::to_string(nnz) +
                                " over INT_MAX or panel_rows = " + std::to_string(panel_rows) + " < 1");
  if (nnz == 0) return 0;
  const auto aligned = [](const int* a) { return reinterpret_cast<uintptr_t>(a) % 16 == 0; };
  if (!row_map || !entries || num_rows <= 0 || !aligned(rows) || !aligned(cols) || !aligned(positions))
    throw std::invalid_argument(std::string(who) + ": null or unaligned arrays, or no rows for nonzeros");
  const int64_t entries_padded = sddmm_csr_panel_entries(nnz);
  StreamBuffer<uint64_t> keys(size_t(nnz), stream);
  StreamBuffer<int> values(size_t(nnz), stream), nnz_rows(size_t(nnz), stream);
  StreamBuffer<unsigned long long> distinct(1, stream);
  RSH_CUDA_CHECK(cudaMemsetAsync(distinct.get(), 0, sizeof(unsigned long long), stream));
  sddmm_panel_keys_kernel<<<static_cast<unsigned>((nnz + 255) / 256), 256, 0, stream>>>(
      row_map, num_rows, nnz, entries, panel_rows, keys.get(), values.get(), nnz_rows.get());
  check_launch("sddmm_panel_keys_kernel");
  sort_pairs(keys.get(), values.get(), nnz, stream);
  sddmm_panel_entries_kernel<<<static_cast<unsigned>((entries_padded + 255) / 256), 256, 0, stream>>>(
      keys.get(), values.get(), nnz_rows.get(), nnz, entries_padded, rows, cols, positions, distinct.get());
  check_launch("sddmm_panel_entries_kernel");
  unsigned long long host = 0;
  RSH_CUDA_CHECK(cudaMemcpyAsync(&host, distinct.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
  return static_cast<int64_t>(host);
}

template <class T, class Offset, class OutT>
void sddmm_csr(const DeviceCsr<T, Offset>& A, SddmmCsrKernel kernel, const SddmmCsrPrepared& prepared, float alpha,
               const T* X, int64_t ldx, const T* Y, int64_t ldy, int k, float beta, OutT* out, cudaStream_t stream) {
  using namespace detail;
  const char* who = "rsh::cuda::sddmm_csr (prepared)";
  check_sddmm_args(who, A.num_rows, A.num_cols, X, ldx, Y, ldy, k);
  if (A.nnz == 0) return;
  const bool unprepared = (kernel == SddmmCsrKernel::kSpans && !prepared.span_rows) ||
                          (kernel == SddmmCsrKernel::kPanels &&
                           (!prepared.panels.rows || !prepared.panels.cols || !prepared.panels.positions));
  if (A.num_rows <= 0 || !A.row_map || !A.entries || !out || unprepared)
    throw std::invalid_argument(std::string(who) + ": null arrays or no rows for nonzeros");
  launch_sddmm_csr(A, kernel, prepared, alpha, X, ldx, Y, ldy, k, beta, out, stream);
}

}  // namespace cuda
}  // namespace rsh
