#pragma once
// Tensor-Core residual in staged tiles, for CUDA-core plans of 16-bit
// operands whose ranges of kTileRows consecutive rows share few distinct
// columns (a stencil with its rows in blocks of its grid: Reorder::kGridBlocks).
// A range's distinct columns (at most kTileMaxCols, found at the plan's
// construction by staged_tiles_kernel) are staged as compacted B rows with
// cp.async, its nonzeros are scattered into a dense kTileRows x kTileMaxCols
// tile of A in shared memory, and C(range) = tile x staged B runs on
// mma.m16n8k16 with FP32 accumulation. A B row is read once a range instead of
// once a nonzero, and the multiply takes a few instructions a tile where the
// CUDA-core loop takes about 26 a nonzero and lane. Ranges that do not fit
// multiply from global memory in the same persistent two-stage loop as the
// staged ranges (run_staged_units).
#include <climits>
#include <cstdint>

#include "cuda/RshSparse_spmm_mma_traits.cuh"
#include "cuda/RshSparse_spmm_staged_kernel.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTileRows = 32;      ///< residual items (whole rows) a range: two m16 MMA rows
constexpr int kTileMaxCols = 144;  ///< distinct columns a range stages: 9 k16 steps
constexpr int kTileK = 16;         ///< columns an MMA step takes
/// Elements a row of the A tile: kTileMaxCols and one 16-byte chunk, an odd count of chunks, so that the
/// eight rows an ldmatrix reads fall in distinct banks.
constexpr int kTileStride = kTileMaxCols + 8;
/// Nonzeros a distinct column from which a range is staged: with fewer, staging its B rows reads as many bytes
/// as the CUDA-core loop gathers, and the tile's zeros cost MMA steps for nothing.
constexpr int kTileMinReuse = 4;
/// Nonzeros a thread scatters into the tile (kStagedMaxNnz over the CTA's threads).
constexpr int kTileScatterPerThread = kStagedMaxNnz / kResThreadsPerBlock;
static_assert(kTileScatterPerThread * kResThreadsPerBlock == kStagedMaxNnz, "whole scatter rounds");
static_assert(kTileMaxCols % kTileK == 0 && kTileMaxCols % (kResThreadsPerBlock / kStagedLanes) == 0,
              "a range's B rows are whole MMA steps and whole rounds of copies");
static_assert(kTileRows * kTileStride < (1 << 16), "a tile slot fits 16 bits");

/// One stage: the range's compacted B rows (a 128-feature slice each, chunks swizzled by row), its nonzeros'
/// tile slots and values (from the 16-byte chunk holding its first nonzero, see stage_elements) and its items.
template <class T>
struct TileStage {
  uint4 b[kTileMaxCols * kStagedLanes];
  uint16_t slots[kStagedMaxNnz + kStagedChunkBytes / sizeof(uint16_t)];
  T vals[kStagedMaxNnz + kStagedChunkBytes / sizeof(T)];
  ResidualItem items[kTileRows];
};
/// Two stages and the A tile.
template <class T>
constexpr int staged_tile_smem_bytes() {
  return 2 * int(sizeof(TileStage<T>)) + kTileRows * kTileStride * int(sizeof(T));
}

/// Byte offset of 16-byte chunk `chunk` of staged B row `u`: chunks XOR-swizzled by the row's low three bits,
/// so that the eight rows an ldmatrix.trans reads at one chunk fall in distinct banks.
__device__ __forceinline__ unsigned tile_b_offset(int u, int chunk) {
  return unsigned(u * kStagedLanes + (chunk ^ (u & 7))) * kStagedChunkBytes;
}

template <class T, class OutT>
struct StagedTileParams {
  ResidualParams<T, OutT> res;  ///< nonzeros, items, B, C, alpha, beta (group and item_blocks unused)
  const StagedRange* ranges;    ///< col_begin: the range's first entry of cols; cols: its distinct columns
  const int* cols;              ///< each staged range's distinct columns, ascending
  const uint16_t* slots;        ///< each residual nonzero's place in its range's tile (aligned with res_cols)
  int num_ranges;
  int slices;       ///< ceil(n / staged_slice_features<T>())
  int64_t nnz;      ///< residual nonzeros: copies of slots and values stop there
  bool wait_first;  ///< as SpmmParams::wait_first
};

/// Requests the copies of a unit's range into a stage (no commit); nothing for a range from global memory.
/// The range's column ids are loaded first, all of a thread's at once, then its B rows' copies are issued:
/// rows past the range's columns up to a whole MMA step are zero-filled.
template <class T, class OutT>
__device__ __forceinline__ void request_tile_range(const StagedTileParams<T, OutT>& p, TileStage<T>& st,
                                                   const StagedUnit& unit) {
  const StagedRange& m = unit.m;
  if (m.cols == kStagedNotStaged) return;
  constexpr int V = staged_lane_features<T>(), kRowsAtOnce = kResThreadsPerBlock / kStagedLanes;
  constexpr int kRowsPerThread = kTileMaxCols / kRowsAtOnce;
  const DenseRef<const T>& B = p.res.B;
  const int lane = threadIdx.x % kStagedLanes, f = unit.slice * staged_slice_features<T>() + lane * V;
  const int first = threadIdx.x / kStagedLanes, padded = (m.cols + kTileK - 1) / kTileK * kTileK;
  int col[kRowsPerThread];
#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int u = first + i * kRowsAtOnce;
    col[i] = u < m.cols ? __ldg(p.cols + m.col_begin + u) : 0;
  }
  const unsigned b_base = static_cast<unsigned>(__cvta_generic_to_shared(st.b));
#pragma unroll
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int u = first + i * kRowsAtOnce;
    const bool fill = u < m.cols && f < B.n;  // n is a multiple of 8 (DenseRef::vec)
    if (u < padded)
      cp_async_16_l2(b_base + tile_b_offset(u, lane), fill ? B.ptr + int64_t(col[i]) * B.row_stride + f : B.ptr, fill);
  }
  const int item0 = unit.range * kTileRows, items = min(kTileRows, p.res.num_items - item0);
  for (int i = threadIdx.x; i < items; i += blockDim.x)
    cp_async_16_l2(static_cast<unsigned>(__cvta_generic_to_shared(st.items + i)), p.res.items + item0 + i, true);
  stage_elements(st.slots, p.slots, m.nnz_begin, m.nnz_end, p.nnz);
  stage_elements(st.vals, p.res.values, m.nnz_begin, m.nnz_end, p.nnz);
}

/// C(range's rows, this warp's 16 features) = alpha * tile x staged B + beta * C: warp w takes features
/// [16w, 16w + 16) of the slice for both m16 halves of the range, an ldmatrix of each half of A and one
/// (transposed) of B a k16 step.
template <class T, class OutT>
__device__ __forceinline__ void multiply_tile(const StagedTileParams<T, OutT>& p, const TileStage<T>& st, const T* tile,
                                              const StagedUnit& unit) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int f0 = unit.slice * staged_slice_features<T>() + warp * 16;
  if (f0 >= p.res.C.n) return;
  const int steps = (unit.m.cols + kTileK - 1) / kTileK;
  // ldmatrix: lane l addresses row l % 8 of 8x8 matrix l / 8; matrix bit 0 picks the +8 rows of A (the +8 k
  // rows of B), bit 1 the +8 columns of A (the +8 features of B).
  const int matrix = lane / 8, row8 = lane % 8;
  const unsigned a_base = static_cast<unsigned>(__cvta_generic_to_shared(tile)) +
                          unsigned(((matrix & 1) * 8 + row8) * kTileStride + (matrix >> 1) * 8) * unsigned(sizeof(T));
  const unsigned b_base = static_cast<unsigned>(__cvta_generic_to_shared(st.b));
  const int b_row = (matrix & 1) * 8 + row8, b_chunk = warp * 2 + (matrix >> 1);
  float acc[2][2][4] = {};
#pragma unroll 3
  for (int s = 0; s < steps; ++s) {
    uint32_t a0[4], a1[4], b[4];
    ldmatrix_x4(a0, a_base + unsigned(s * kTileK) * unsigned(sizeof(T)));
    ldmatrix_x4(a1, a_base + unsigned(16 * kTileStride + s * kTileK) * unsigned(sizeof(T)));
    ldmatrix_x4_trans(b, b_base + tile_b_offset(s * kTileK + b_row, b_chunk));
    mma_m16n8k16<T>(acc[0][0], a0[0], a0[1], a0[2], a0[3], b[0], b[1]);
    mma_m16n8k16<T>(acc[0][1], a0[0], a0[1], a0[2], a0[3], b[2], b[3]);
    mma_m16n8k16<T>(acc[1][0], a1[0], a1[1], a1[2], a1[3], b[0], b[1]);
    mma_m16n8k16<T>(acc[1][1], a1[0], a1[1], a1[2], a1[3], b[2], b[3]);
  }
  const int items = min(kTileRows, p.res.num_items - unit.range * kTileRows), g = lane / 4, q = lane % 4;
#pragma unroll
  for (int half = 0; half < 2; ++half)
#pragma unroll
    for (int h8 = 0; h8 < 2; ++h8) {
      const int r = half * 16 + h8 * 8 + g;
      if (r >= items) continue;
      const int row = st.items[r].row;
#pragma unroll
      for (int j = 0; j < 2; ++j)
        store_small<2>(p.res.C, row, f0 + j * 8 + 2 * q,
                       Frag<2, float>{{acc[half][j][2 * h8], acc[half][j][2 * h8 + 1]}}, p.res.alpha, p.res.beta);
    }
}

/// What run_staged_units does with a unit of staged tiles. The tile is all zeros between units: a unit's
/// scatter writes its nonzeros into it, and retire() (after the closing barrier) writes zeros back to the same
/// slots, which each thread keeps in registers.
template <class T, class OutT>
struct TileWork {
  static constexpr uint16_t kNoSlot = 0xffff;
  const StagedTileParams<T, OutT>& p;
  T* tile;
  uint16_t mine[kTileScatterPerThread];

  __device__ __forceinline__ void request(TileStage<T>& st, const StagedUnit& unit) const {
    request_tile_range(p, st, unit);
  }
  __device__ __forceinline__ void multiply(const TileStage<T>& st, const StagedUnit& unit) {
    const StagedRange& m = unit.m;
    if (m.cols == kStagedNotStaged) {
      const int item0 = unit.range * kTileRows;
      return multiply_rows_from_global(p.res, item0, min(kTileRows, p.res.num_items - item0), unit.slice);
    }
    constexpr int kPer = kStagedChunkBytes / int(sizeof(uint16_t));
    static_assert(kPer == kStagedChunkBytes / int(sizeof(T)), "slots and values staged from the same chunk");
    const int first = m.nnz_begin & ~(kPer - 1);
#pragma unroll
    for (int j = 0; j < kTileScatterPerThread; ++j) {
      const int k = m.nnz_begin + int(threadIdx.x) + j * kResThreadsPerBlock;
      mine[j] = k < m.nnz_end ? st.slots[k - first] : kNoSlot;
      if (k < m.nnz_end) tile[mine[j]] = st.vals[k - first];
    }
    __syncthreads();  // the tile is whole
    multiply_tile(p, st, tile, unit);
  }
  __device__ __forceinline__ void retire() {
#pragma unroll
    for (int j = 0; j < kTileScatterPerThread; ++j)
      if (mine[j] != kNoSlot) tile[mine[j]] = T{}, mine[j] = kNoSlot;
  }
};

/// Persistent CTAs over the work units (range, slice) of staged tiles, two stages (run_staged_units).
template <class T, class OutT>
__global__ void __launch_bounds__(kResThreadsPerBlock) staged_tile_kernel(const StagedTileParams<T, OutT> p) {
  extern __shared__ uint4 staged_smem[];
  __shared__ StagedUnit handed;
  TileStage<T>* stages = reinterpret_cast<TileStage<T>*>(staged_smem);
  T* tile = reinterpret_cast<T*>(stages + 2);
  for (int i = threadIdx.x; i < kTileRows * kTileStride; i += blockDim.x) tile[i] = T{};
  spmm_prologue(p);
  TileWork<T, OutT> work{p, tile, {}};
#pragma unroll
  for (int j = 0; j < kTileScatterPerThread; ++j) work.mine[j] = TileWork<T, OutT>::kNoSlot;
  run_staged_units(p, stages, handed, work);  // its first barrier orders the zeros before any scatter
}

/// Describes the residual's ranges of kTileRows items for staged_tile_kernel, a warp a range: the range's column
/// ids are sorted in shared memory (bitonic), its distinct ones written to cols (kTileMaxCols a range) and each
/// nonzero's tile slot (row in the range x kTileStride + its column's rank) to slots. A range is staged where
/// its items are whole rows, contiguous, at most kStagedMaxNnz nonzeros over at most kTileMaxCols distinct
/// columns with at least kTileMinReuse nonzeros a column. counts[0] += the staged ranges' nonzeros; counts[1]
/// += ranges with pieces or atomic items (a plan with any cannot take the tiles).
static __global__ void __launch_bounds__(256)
    staged_tiles_kernel(const ResidualItem* items, int num_items, int num_local, const int* cols, int num_ranges,
                        StagedRange* ranges, int* range_cols, uint16_t* slots, unsigned long long* counts) {
  constexpr int kWarps = 256 / 32;
  __shared__ int keys[kWarps][kStagedMaxNnz];
  __shared__ int distinct[kWarps][kTileMaxCols];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int range = blockIdx.x * kWarps + warp;
  if (range >= num_ranges) return;  // the rest synchronises only within warps
  int* sorted = keys[warp];
  int* uniq = distinct[warp];
  const int i = range * kTileRows + lane;  // a lane an item
  const bool have = i < num_items;
  const ResidualItem it = have ? items[i] : ResidualItem{0, 0, 0, 1};
  const unsigned whole = __reduce_and_sync(0xffffffffu, unsigned(!have || (it.pieces == 1 && i < num_local)));
  const int len = it.end - it.begin;
  const int begin = __reduce_min_sync(0xffffffffu, len > 0 ? it.begin : INT_MAX);
  const int end = __reduce_max_sync(0xffffffffu, len > 0 ? it.end : 0);
  const int total = __reduce_add_sync(0xffffffffu, len);
  const StagedRange not_staged{0, kStagedNotStaged, 0, 0};
  if (!whole) {
    if (lane == 0) ranges[range] = not_staged, atomicAdd(counts + 1, 1ull);
    return;
  }
  if (total == 0) {  // empty rows: C = beta * C from a tile of no columns
    if (lane == 0) ranges[range] = StagedRange{0, 0, 0, 0};
    return;
  }
  if (total > kStagedMaxNnz || end - begin != total) {
    if (lane == 0) ranges[range] = not_staged;
    return;
  }
  int padded = 32;
  while (padded < total) padded *= 2;
  for (int k = lane; k < padded; k += 32) sorted[k] = k < total ? cols[begin + k] : INT_MAX;
  __syncwarp();
  for (int size = 2; size <= padded; size *= 2)
    for (int stride = size / 2; stride > 0; stride /= 2) {
      for (int t = lane; t < padded / 2; t += 32) {
        const int lo = 2 * stride * (t / stride) + t % stride, hi = lo + stride;
        const int a = sorted[lo], b = sorted[hi];
        if ((a > b) == ((lo & size) == 0)) sorted[lo] = b, sorted[hi] = a;
      }
      __syncwarp();
    }
  int count = 0;
  for (int base = 0; base < total; base += 32) {
    const int k = base + lane;
    const bool fresh = k < total && (k == 0 || sorted[k] != sorted[k - 1]);
    const unsigned ballot = __ballot_sync(0xffffffffu, fresh);
    const int at = count + __popc(ballot & ((1u << lane) - 1));
    if (fresh && at < kTileMaxCols) uniq[at] = sorted[k];
    count += __popc(ballot);
  }
  __syncwarp();
  if (count > kTileMaxCols || total < kTileMinReuse * count) {
    if (lane == 0) ranges[range] = not_staged;
    return;
  }
  const int col_begin = range * kTileMaxCols;
  for (int u = lane; u < count; u += 32) range_cols[col_begin + u] = uniq[u];
  for (int k = it.begin; k < it.end; ++k) {  // the lane's row: each column's rank among the distinct ones
    const int c = cols[k];
    int lo = 0, hi = count - 1;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (uniq[mid] < c)
        lo = mid + 1;
      else
        hi = mid;
    }
    slots[k] = static_cast<uint16_t>(lane * kTileStride + lo);
  }
  if (lane == 0) {
    ranges[range] = StagedRange{col_begin, count, begin, end};
    atomicAdd(counts, static_cast<unsigned long long>(total));
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
