#pragma once
// CUDA-core residual in staged ranges, for plans whose rows' columns lie close
// together (banded matrices): a range is kStagedRows consecutive residual
// items (whole rows); where its columns span at most kStagedMaxBRows B rows
// and it holds at most kStagedMaxNnz nonzeros, one CTA copies those B rows
// (a 256-byte slice of each), the items, column ids and values into shared
// memory with cp.async, and its rows then multiply from there. A B row is
// read from L2 about once a range instead of once a nonzero, and the copies
// of the next range are in flight while this one multiplies (two stages in
// persistent CTAs): the per-row chain of dependent loads that bounds
// residual_kernel on such matrices is gone. Ranges that do not fit read
// their nonzeros and B rows from global memory in the same loop.
#include <climits>
#include <cstdint>

#include "cuda/RshSparse_spmm_kernel.cuh"  // the residual's pieces (fma_row, RawRow), spmm_prologue

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kStagedRows = 64;        ///< residual items a range
constexpr int kStagedMaxBRows = 96;    ///< B rows a range stages: its columns' span
constexpr int kStagedMaxNnz = 1024;    ///< nonzeros a range stages
constexpr int kStagedLanes = 16;       ///< lanes a row: 16 x 16 bytes, a 256-byte slice of a B row
constexpr int kStagedChunkBytes = 16;  ///< what a lane loads of a B row
constexpr int kStagedNotStaged = -1;   ///< StagedRange::cols of a range read from global memory
/// Share of the residual's nonzeros in staged ranges from which the planner takes the staged kernel: its
/// ranges from global memory are slower than residual_kernel's rows, so most of the work must be staged.
constexpr double kStagedMinShare = 0.9;
/// Ranges a resident CTA from which the planner takes the staged kernel (see staged_chosen).
constexpr int kStagedMinRangesPerCta = 4;

/// A range as the kernel reads it: B rows [col_begin, col_begin + cols) and nonzeros [nnz_begin, nnz_end)
/// (cols = kStagedNotStaged: the range multiplies from global memory).
struct alignas(16) StagedRange {
  int col_begin, cols, nnz_begin, nnz_end;
};

/// Features a lane holds: one 16-byte chunk of a B row.
template <class T>
constexpr int staged_lane_features() {
  return kStagedChunkBytes / int(sizeof(T));
}
/// Features of a slice: what a range stages of each B row (128 for 16-bit elements, 64 for FP32).
template <class T>
constexpr int staged_slice_features() {
  return kStagedLanes * staged_lane_features<T>();
}

/// One stage of a CTA. Column ids and values are copied in 16-byte chunks from the chunk holding the range's
/// first nonzero, so each array has one chunk of room past kStagedMaxNnz.
template <class T>
struct StagedStage {
  uint4 b[kStagedMaxBRows * kStagedLanes];
  int cols[kStagedMaxNnz + kStagedChunkBytes / sizeof(int)];
  T vals[kStagedMaxNnz + kStagedChunkBytes / sizeof(T)];
  ResidualItem items[kStagedRows];
};
template <class T>
constexpr int staged_smem_bytes() {
  return 2 * int(sizeof(StagedStage<T>));
}

template <class T, class OutT>
struct StagedParams {
  ResidualParams<T, OutT> res;  ///< nonzeros, items, B, C, alpha, beta (group and item_blocks unused)
  const StagedRange* ranges;
  int num_ranges;
  int slices;       ///< ceil(n / staged_slice_features<T>())
  int64_t nnz;      ///< residual nonzeros: copies of column ids and values stop there
  bool wait_first;  ///< as SpmmParams::wait_first
};

/// Work unit u: a range and a slice (slice-major: CTAs running at once share a slice), and the range's
/// description (an empty one past the last unit). P: the staged kernels' parameters (num_ranges, slices,
/// ranges).
struct StagedUnit {
  int range, slice;
  StagedRange m;
};
template <class P>
__device__ __forceinline__ StagedUnit staged_unit(const P& p, int u) {
  if (u >= p.num_ranges * p.slices) return StagedUnit{0, 0, StagedRange{0, kStagedNotStaged, 0, 0}};
  const int slice = p.slices == 1 ? 0 : u / p.num_ranges, range = u - slice * p.num_ranges;
  return StagedUnit{range, slice, p.ranges[range]};
}

/// Copies elements [begin, end) of src into dst, from the 16-byte chunk holding `begin`; dst[i] holds
/// src[(begin rounded down to a chunk) + i]. Nothing past src[total) is read (src is 16-byte aligned): a
/// last chunk cut by `total` is copied element by element.
template <class E>
__device__ __forceinline__ void stage_elements(E* dst, const E* src, int begin, int end, int64_t total) {
  constexpr int kPer = kStagedChunkBytes / int(sizeof(E));
  const int first = begin & ~(kPer - 1), chunks = (end - first + kPer - 1) / kPer;
  for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
    const int64_t at = int64_t(first) + int64_t(c) * kPer;
    if (at + kPer <= total) {
      cp_async_16_l2(static_cast<unsigned>(__cvta_generic_to_shared(dst + c * kPer)), src + at, true);
    } else {
      for (int e = 0; e < kPer; ++e) dst[c * kPer + e] = at + e < total ? src[at + e] : E{};
    }
  }
}

/// Requests the copies of a unit's range into a stage (no commit); nothing for a range from global memory.
/// Thread t copies chunk t % kStagedLanes of B rows t / kStagedLanes, then every kRowsAtOnce-th row.
template <class T, class OutT>
__device__ __forceinline__ void request_range(const StagedParams<T, OutT>& p, StagedStage<T>& st,
                                              const StagedUnit& unit) {
  const StagedRange& m = unit.m;
  if (m.cols == kStagedNotStaged) return;
  constexpr int V = staged_lane_features<T>(), kRowsAtOnce = kResThreadsPerBlock / kStagedLanes;
  const DenseRef<const T>& B = p.res.B;
  const int lane = threadIdx.x % kStagedLanes, f = unit.slice * staged_slice_features<T>() + lane * V;
  const bool fill = f < B.n;  // n is a multiple of 8 (DenseRef::vec): a chunk is wholly in or past n
  const int first = threadIdx.x / kStagedLanes;
  const T* src = B.ptr + (int64_t(m.col_begin) + first) * B.row_stride + f;
  const int64_t src_step = kRowsAtOnce * B.row_stride;
  for (int r = first; r < m.cols; r += kRowsAtOnce, src += src_step)
    cp_async_16_l2(static_cast<unsigned>(__cvta_generic_to_shared(st.b + r * kStagedLanes + lane)), fill ? src : B.ptr,
                   fill);
  const int item0 = unit.range * kStagedRows, items = min(kStagedRows, p.res.num_items - item0);
  for (int i = threadIdx.x; i < items; i += blockDim.x)
    cp_async_16_l2(static_cast<unsigned>(__cvta_generic_to_shared(st.items + i)), p.res.items + item0 + i, true);
  stage_elements(st.cols, p.res.res_cols, m.nnz_begin, m.nnz_end, p.nnz);
  stage_elements(st.vals, p.res.values, m.nnz_begin, m.nnz_end, p.nnz);
}

/// acc += A(row, k) * B(col_k, lane's features) over nonzeros [k, end), four at a time: their loads first.
template <int V, class T, class Source>
__device__ __forceinline__ void accumulate_staged(Frag<V, Accum<T>>& acc, int k, int end, const Source& src) {
  constexpr int kUnroll = 4;
#pragma unroll 1
  for (; k + kUnroll <= end; k += kUnroll) {
    RawRow<T, V> b[kUnroll];
    Accum<T> a[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) src.row(b[u], src.col(k + u)), a[u] = src.val(k + u);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) fma_row<T, V>(acc, a[u], b[u]);
  }
  for (; k < end; ++k) {
    RawRow<T, V> b;
    src.row(b, src.col(k));
    fma_row<T, V>(acc, src.val(k), b);
  }
}

/// A staged range's nonzeros and B rows in shared memory.
template <class T>
struct StagedSource {
  const StagedStage<T>& st;
  int col_begin, cols_first, vals_first, lane;
  __device__ __forceinline__ int col(int k) const { return st.cols[k - cols_first]; }
  __device__ __forceinline__ Accum<T> val(int k) const { return to_acc(st.vals[k - vals_first]); }
  template <int V>
  __device__ __forceinline__ void row(RawRow<T, V>& r, int c) const {
    const uint4 u = st.b[(c - col_begin) * kStagedLanes + lane];
    r.w[0] = u.x, r.w[1] = u.y, r.w[2] = u.z, r.w[3] = u.w;
  }
};
/// A range's nonzeros and B rows in global memory.
template <class T, class OutT>
struct GlobalSource {
  const ResidualParams<T, OutT>& res;
  int f;
  __device__ __forceinline__ int col(int k) const { return __ldg(res.res_cols + k); }
  __device__ __forceinline__ Accum<T> val(int k) const { return to_acc(res.values[k]); }
  template <int V>
  __device__ __forceinline__ void row(RawRow<T, V>& r, int c) const {
    r.load(res.B, c, f);
  }
};

/// Multiplies items [item0, item0 + items) (whole rows) of slice `slice` from global memory: a row per 16 lanes.
/// The staged kernels' ranges that do not fit in shared memory.
template <class T, class OutT>
__device__ __forceinline__ void multiply_rows_from_global(const ResidualParams<T, OutT>& res, int item0, int items,
                                                          int slice) {
  constexpr int V = staged_lane_features<T>(), kRowsAtOnce = kResThreadsPerBlock / kStagedLanes;
  const int f = slice * staged_slice_features<T>() + threadIdx.x % kStagedLanes * V;
  for (int i = threadIdx.x / kStagedLanes; i < items; i += kRowsAtOnce) {
    const ResidualItem item = res.items[item0 + i];
    Frag<V, Accum<T>> acc = {};
    accumulate_staged<V, T>(acc, item.begin, item.end, GlobalSource<T, OutT>{res, f});
    if (f < res.C.n) store_row(res.C, item.row, f, acc, res.alpha, res.beta, false);
  }
}

/// Multiplies a unit's range from its stage (or from global memory): a row per 16 lanes.
template <class T, class OutT>
__device__ __forceinline__ void multiply_range(const StagedParams<T, OutT>& p, const StagedStage<T>& st,
                                               const StagedUnit& unit) {
  constexpr int V = staged_lane_features<T>(), kRowsAtOnce = kResThreadsPerBlock / kStagedLanes;
  const StagedRange& m = unit.m;
  const int item0 = unit.range * kStagedRows, items = min(kStagedRows, p.res.num_items - item0);
  if (m.cols == kStagedNotStaged) return multiply_rows_from_global(p.res, item0, items, unit.slice);
  const int lane = threadIdx.x % kStagedLanes, f = unit.slice * staged_slice_features<T>() + lane * V;
  constexpr int kColsPer = kStagedChunkBytes / int(sizeof(int)), kValsPer = kStagedChunkBytes / int(sizeof(T));
  const StagedSource<T> src{st, m.col_begin, m.nnz_begin & ~(kColsPer - 1), m.nnz_begin & ~(kValsPer - 1), lane};
  for (int i = threadIdx.x / kStagedLanes; i < items; i += kRowsAtOnce) {
    const ResidualItem item = st.items[i];
    Frag<V, Accum<T>> acc = {};
    accumulate_staged<V, T>(acc, item.begin, item.end, src);
    if (f < p.res.C.n) store_row(p.res.C, item.row, f, acc, p.res.alpha, p.res.beta, false);
  }
}

/// The persistent two-stage loop of the staged kernels over the work units (range, slice), with `work`'s
/// request(stage, unit) (issues the unit's copies, no commit), multiply(stage, unit) (between two barriers) and
/// retire() (after the closing barrier). The next unit's copies are requested before this one multiplies.
/// The description of the unit after next is loaded by one thread before this unit multiplies and handed to
/// the others through `handed` at the closing barrier: loaded by every thread, it is moved into uniform
/// registers at once, and each unit would wait there for a load from L2.
template <class P, class Stage, class Work>
__device__ __forceinline__ void run_staged_units(const P& p, Stage* stages, StagedUnit& handed, Work& work) {
  const int units = p.num_ranges * p.slices, step = gridDim.x;
  int u = blockIdx.x;
  StagedUnit now = staged_unit(p, u), next = staged_unit(p, u + step);
  work.request(stages[0], now);
  cp_async_commit();
  for (int it = 0; u < units; u += step, ++it) {
    StagedUnit after;
    if (threadIdx.x == 0) after = staged_unit(p, u + 2 * step);  // in flight through this unit
    if (u + step < units) work.request(stages[(it + 1) % 2], next);
    cp_async_commit();
    cp_async_wait<1>();  // this unit's copies have landed
    __syncthreads();
    work.multiply(stages[it % 2], now);
    if (threadIdx.x == 0) handed = after;
    __syncthreads();  // the stage is free for the unit after next; `handed` is written
    work.retire();
    now = next, next = handed;
  }
}

/// What run_staged_units does with a unit of staged ranges.
template <class T, class OutT>
struct RangeWork {
  const StagedParams<T, OutT>& p;
  __device__ __forceinline__ void request(StagedStage<T>& st, const StagedUnit& unit) const {
    request_range(p, st, unit);
  }
  __device__ __forceinline__ void multiply(const StagedStage<T>& st, const StagedUnit& unit) const {
    multiply_range(p, st, unit);
  }
  __device__ __forceinline__ void retire() const {}
};

/// Persistent CTAs over the work units (range, slice), two stages (run_staged_units). Every item is a whole row
/// (no pieces, no atomics): staged_planned.
template <class T, class OutT>
__global__ void __launch_bounds__(kResThreadsPerBlock) staged_range_kernel(const StagedParams<T, OutT> p) {
  extern __shared__ uint4 staged_smem[];
  __shared__ StagedUnit handed;
  spmm_prologue(p);
  RangeWork<T, OutT> work{p};
  run_staged_units(p, reinterpret_cast<StagedStage<T>*>(staged_smem), handed, work);
}

/// Describes the ranges of kStagedRows items (a warp a range): B rows and nonzeros, staged where they fit and
/// every item is a whole row. counts[0] += the staged ranges' nonzeros; counts[1] += ranges with pieces or
/// atomic items (a plan with any cannot take the staged kernel).
static __global__ void __launch_bounds__(256)
    staged_ranges_kernel(const ResidualItem* items, int num_items, int num_local, const int* cols, int num_ranges,
                         StagedRange* ranges, unsigned long long* counts) {
  const int range = int((int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32), lane = threadIdx.x % 32;
  if (range >= num_ranges) return;
  int col_min = INT_MAX, col_max = -1, nnz_begin = INT_MAX, nnz_end = 0;
  unsigned whole = 1;
  for (int i = range * kStagedRows + lane; i < min(num_items, (range + 1) * kStagedRows); i += 32) {
    const ResidualItem it = items[i];
    whole &= unsigned(it.pieces == 1 && i < num_local);
    if (it.begin >= it.end) continue;
    nnz_begin = min(nnz_begin, it.begin), nnz_end = max(nnz_end, it.end);
    for (int k = it.begin; k < it.end; ++k) col_min = min(col_min, cols[k]), col_max = max(col_max, cols[k]);
  }
  col_min = __reduce_min_sync(0xffffffffu, col_min), col_max = __reduce_max_sync(0xffffffffu, col_max);
  nnz_begin = __reduce_min_sync(0xffffffffu, nnz_begin), nnz_end = __reduce_max_sync(0xffffffffu, nnz_end);
  whole = __reduce_and_sync(0xffffffffu, whole);
  if (lane != 0) return;
  const bool empty = col_max < 0;
  const bool staged = whole && (empty || (col_max - col_min < kStagedMaxBRows && nnz_end - nnz_begin <= kStagedMaxNnz));
  ranges[range] = staged ? StagedRange{empty ? 0 : col_min, empty ? 0 : col_max - col_min + 1, empty ? 0 : nnz_begin,
                                       empty ? 0 : nnz_end}
                         : StagedRange{0, kStagedNotStaged, 0, 0};
  if (staged && !empty) atomicAdd(counts, static_cast<unsigned long long>(nnz_end - nnz_begin));
  if (!whole) atomicAdd(counts + 1, 1ull);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
