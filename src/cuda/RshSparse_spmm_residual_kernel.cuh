#pragma once
// CUDA-core part of the CSR residual: a group of G lanes (G = 4..32, so
// that G x V features cover n with little waste) computes one work item (a
// residual row or a piece of one) for one slice of G x V features; each lane
// owns V = 8 features (FP16: 8 consecutive, one 16-byte B load; FP32: two
// runs of 4, see dense_access) or V = 4 (FP32: one run). Column ids and values
// are loaded G at a time, one per lane, into the group's shared-memory slots,
// from which every lane reads them (ResidualSlot); or each lane loads them
// itself (NonzeroSource). A CTA runs 256 / G
// consecutive items of one slice (CTAs slice by slice); a row cut into pieces
// inside that range is summed through shared memory by its first piece, so
// only rows too long for one CTA add into C with atomics.
// FP64 lanes hold V = 4 (two runs of 2, one 16-byte load each) or V = 2 (one
// run) and accumulate in FP64.
#include <cstdint>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "impl/RshSparse_fast_divisor.hpp"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kResLog2ThreadsPerBlock = 8;
constexpr int kResThreadsPerBlock = 1 << kResLog2ThreadsPerBlock;
static_assert(kResThreadsPerBlock / 32 % kResidualPieceAlign == 0,
              "rsh::spmm: a residual CTA holds whole aligned groups of pieces");

/// One residual work item as the kernels read it: residual_kernel in one
/// 16-byte load before its loop; the fused kernel the nonzero range before
/// the loop and the C row and piece count after it (a cache hit; not held in
/// registers through the loop).
struct alignas(16) ResidualItem {
  int begin, end;  ///< nonzero range in res_cols / values
  int row;         ///< the C row (not an index into the residual rows: no dependent load)
  int pieces;      ///< HostFormat::res_item_pieces
};

template <class T, class OutT>
struct ResidualParams {
  const int* res_cols;
  const T* values;  ///< residual values (aligned with res_cols)
  const ResidualItem* items;
  int num_items, num_local;
  int group;                      ///< lanes per item: 4, 8, 16 or 32
  int slices;                     ///< ceil(n / (V * group))
  impl::FastDivisor item_blocks;  ///< CTAs per slice
  DenseRef<const T> B;
  DenseRef<OutT> C;
  Accum<T> alpha, beta;
};

/// acc += a * b for one lane's V features of a B row.
template <class T, int V>
__device__ __forceinline__ void fma_row(Frag<V, Accum<T>>& acc, Accum<T> a, const RawRow<T, V>& b) {
#pragma unroll
  for (int x = 0; x < V; ++x) acc.v[x] = fma(a, b.get(x), acc.v[x]);
}

/// How residual lanes read their V features of a B row. VecRows is the
/// common case: B row-major with 16-byte aligned rows (DenseRef::vec) less than
/// 2^31 bytes apart. A lane computes its chunks' base addresses once, and each
/// row costs one multiply-add an address; a chunk past n reads the row's first
/// features instead (a lane never stores features past n). RawRow::load's
/// per-row checks (layout, range, padding rows, 64-bit offsets) took more
/// instructions than the loads in this issue-bound loop, and residual rows are
/// never padding.
template <class T, int V>
struct VecRows {
  static constexpr int kChunks = RawRow<T, V>::kChunks, kChunkElems = RawRow<T, V>::kChunkElems;
  const char* base[kChunks];
  int stride_bytes;

  __host__ __device__ __forceinline__ static bool applies(const DenseRef<const T>& B) {
    return B.vec && B.row_stride <= int64_t(INT32_MAX / int(sizeof(T)));
  }
  __device__ __forceinline__ VecRows(const DenseRef<const T>& B, int f, int qs)
      : stride_bytes(static_cast<int>(B.row_stride) * int(sizeof(T))) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int fc = run_feature<T>(f, c * kChunkElems, qs);  // chunks are wholly in or past n (n % 8 == 0)
      base[c] = reinterpret_cast<const char*>(B.ptr + (fc < B.n ? fc : 0));
    }
  }
  __device__ __forceinline__ void load(RawRow<T, V>& r, int row) const {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      // Unsigned 32 x 32 -> 64 bits (rows and the stride are >= 0): one IMAD.WIDE.U32 with the base as addend.
      const uint64_t offset = static_cast<uint64_t>(static_cast<uint32_t>(row)) * static_cast<uint32_t>(stride_bytes);
      const uint4 u = __ldg(reinterpret_cast<const uint4*>(base[c] + offset));
      r.w[4 * c] = u.x, r.w[4 * c + 1] = u.y, r.w[4 * c + 2] = u.z, r.w[4 * c + 3] = u.w;
    }
  }
};
/// Any other layout: RawRow::load, with its checks, per row. B by reference:
/// read from the kernel's parameters where it is used, not held in registers.
template <class T, int V>
struct CheckedRows {
  const DenseRef<const T>& B;
  int f, qs;
  __device__ __forceinline__ void load(RawRow<T, V>& r, int row) const { r.load(B, row, f, qs); }
};

/// A nonzero of an item as a group's lanes use it: column id and value side by
/// side, so that one shared-memory load gives both (8 bytes; 16 for FP64), and
/// a batch of two FP32 or FP16 nonzeros is one 16-byte load.
template <class T>
struct alignas(2 * sizeof(Accum<T>) >= 8 ? 2 * sizeof(Accum<T>) : 8) ResidualSlot {
  int col;
  Accum<T> val;
};
template <int kBatch, class T>
struct alignas(kBatch * sizeof(ResidualSlot<T>) <= 16 ? kBatch * sizeof(ResidualSlot<T>) : 16) NonzeroBatch {
  ResidualSlot<T> s[kBatch];
};

/// Where a group's lanes get an item's nonzeros:
/// - kSlots (StagedNonzeros): loaded G at a time, one a lane, into the group's
///   shared-memory slots. residual_kernel's latency shape takes these: shuffles
///   cost it two SHFLs and, with a group's mask, a convergence check (MATCH,
///   REDUX, VOTE, BRA.DIV) a row.
/// - kShuffles (ShuffledNonzeros): from the lane that loaded each. The fused
///   kernel keeps these: its single-row batches gain nothing from 16-byte slot
///   loads, and the slots' stores and warp barriers are then pure cost
///   (perf_tests/results/MODELS.md).
/// - kDirect (DirectNonzeros): every lane loads each nonzero itself (the G
///   lanes of an item one address, one request). residual_kernel's throughput
///   shape takes these: its 32 registers cannot hold the slots' loop.
enum class NonzeroSource { kSlots, kShuffles, kDirect };

template <class T>
struct StagedNonzeros {
  const ResidualSlot<T>* slots;
  template <int kBatch>
  __device__ __forceinline__ NonzeroBatch<kBatch, T> fetch(int first) const {
    return *reinterpret_cast<const NonzeroBatch<kBatch, T>*>(slots + first);
  }
};
/// kBatch nonzeros from `first`, `slot(i, valid)` giving nonzero i (with
/// weight zero where not valid): one past `count` is nonzero `first` again (a
/// cache hit), so the trip count is fixed and the loads need no branch.
template <int kBatch, class T, class Slot>
__device__ __forceinline__ NonzeroBatch<kBatch, T> padded_batch(int first, int count, const Slot& slot) {
  NonzeroBatch<kBatch, T> batch;
#pragma unroll
  for (int u = 0; u < kBatch; ++u) {
    const bool valid = first + u < count;  // uniform in the group
    batch.s[u] = slot(valid ? first + u : first, valid);
  }
  return batch;
}

template <class T>
struct ShuffledNonzeros {
  int my_col;
  Accum<T> my_val;
  int count, G;
  unsigned mask;
  template <int kBatch>
  __device__ __forceinline__ NonzeroBatch<kBatch, T> fetch(int first) const {
    return padded_batch<kBatch, T>(first, count, *this);
  }
  __device__ __forceinline__ ResidualSlot<T> operator()(int i, bool valid) const {
    const Accum<T> v = __shfl_sync(mask, my_val, i, G);
    return {__shfl_sync(mask, my_col, i, G), valid ? v : Accum<T>(0)};
  }
};

/// Each lane loads the item's nonzeros from A's arrays, by reference: read from
/// the kernel's parameters where they are used, not held in registers (the
/// throughput shape has 32).
template <class T, class OutT>
struct DirectNonzeros {
  const ResidualParams<T, OutT>& p;
  int begin, count;
  template <int kBatch>
  __device__ __forceinline__ NonzeroBatch<kBatch, T> fetch(int first) const {
    return padded_batch<kBatch, T>(first, count, *this);
  }
  __device__ __forceinline__ ResidualSlot<T> operator()(int i, bool valid) const {
    const int k = begin + i;
    return {__ldg(p.res_cols + k), valid ? to_acc(p.values[k]) : Accum<T>(0)};
  }
};

/// The B rows of kBatch consecutive nonzeros of an item and their weights, requested together.
template <int kBatch, int V, class T>
struct ResidualBatch {
  RawRow<T, V> b[kBatch];
  Accum<T> a[kBatch];

  template <class Rows, class Nonzeros>
  __device__ __forceinline__ void load(const Rows& rows, const Nonzeros& nonzeros, int first) {
    const NonzeroBatch<kBatch, T> batch = nonzeros.template fetch<kBatch>(first);
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      a[u] = batch.s[u].val;
      rows.load(b[u], batch.s[u].col);
    }
  }
  __device__ __forceinline__ void accumulate(Frag<V, Accum<T>>& acc) const {
#pragma unroll
    for (int u = 0; u < kBatch; ++u) fma_row(acc, a[u], b[u]);
  }
};

/// acc += the products of `count` nonzeros with their B rows: ResidualBatch-es
/// of kBatch rows in two alternating sets, the next batch requested before the
/// current one is multiplied (two batches in flight).
template <int kBatch, int V, class T, class Rows, class Nonzeros>
__device__ __forceinline__ void accumulate_batches(const Rows& rows, const Nonzeros& nonzeros, int count,
                                                   Frag<V, Accum<T>>& acc) {
  ResidualBatch<kBatch, V, T> even, odd;
  even.load(rows, nonzeros, 0);
  for (int i0 = 0;; i0 += 2 * kBatch) {
    if (i0 + kBatch < count) odd.load(rows, nonzeros, i0 + kBatch);
    even.accumulate(acc);
    if (i0 + kBatch >= count) break;
    if (i0 + 2 * kBatch < count) even.load(rows, nonzeros, i0 + 2 * kBatch);
    odd.accumulate(acc);
    if (i0 + 2 * kBatch >= count) break;
  }
}

/// acc += the products of an item's nonzeros [k_begin, k_end) with their B
/// rows: kDirect in one pass; else G nonzeros at a time, one a lane. In slots,
/// one past the item repeats its last column with weight zero (a cache hit), so
/// a batch that reaches past the item needs no branch either.
template <int kBatch, NonzeroSource S, int V, class T, class OutT, class Rows>
__device__ __forceinline__ void accumulate_item(const ResidualParams<T, OutT>& p, const Rows& rows, int k_begin,
                                                int k_end, int lane_in_group, unsigned mask,
                                                ResidualSlot<T>* group_slots, Frag<V, Accum<T>>& acc) {
  static_assert(kBatch == 1 || kBatch == 2, "rsh::spmm: batches of one or two slots (G is even)");
  if constexpr (S == NonzeroSource::kDirect) {
    const int count = k_end - k_begin;
    if (count > 0) accumulate_batches<kBatch, V, T>(rows, DirectNonzeros<T, OutT>{p, k_begin, count}, count, acc);
    return;
  }
  const int G = p.group;
  for (int base = k_begin; base < k_end; base += G) {
    const int k = base + lane_in_group;
    const int count = min(G, k_end - base);
    if constexpr (S == NonzeroSource::kSlots) {
      __syncwarp(mask);  // the group has read the previous nonzeros' slots
      group_slots[lane_in_group] = {__ldg(p.res_cols + min(k, k_end - 1)),
                                    k < k_end ? to_acc(p.values[k]) : Accum<T>(0)};
      __syncwarp(mask);
      accumulate_batches<kBatch, V, T>(rows, StagedNonzeros<T>{group_slots}, count, acc);
    } else {
      const int my_col = k < k_end ? __ldg(p.res_cols + k) : -1;
      const Accum<T> my_val = k < k_end ? to_acc(p.values[k]) : Accum<T>(0);
      accumulate_batches<kBatch, V, T>(rows, ShuffledNonzeros<T>{my_col, my_val, count, G, mask}, count, acc);
    }
  }
}

/// One CTA's share of the residual work (kResThreadsPerBlock threads);
/// `partials` holds V accumulators per thread, `slots` one ResidualSlot a
/// thread where S is kSlots (else unused). residual_kernel (kSlots or
/// kDirect): B rows through VecRows where the layout allows. The fused
/// kernel's residual CTAs (kShuffles): RawRow::load.
template <int kBatch, NonzeroSource S, int V, class T, class OutT>
__device__ __forceinline__ void residual_block(const ResidualParams<T, OutT>& p, int64_t block, Accum<T>* partials,
                                               ResidualSlot<T>* slots) {
  // G is a power of two and the CTAs per slice a FastDivisor: no integer
  // division on the way to the first load (the kernel's chain of dependent
  // steps is its time on a small matrix).
  const int G = p.group, log2_g = __ffs(G) - 1;
  const int lane = threadIdx.x % 32, lane_in_group = lane & (G - 1);
  // 32-bit block arithmetic (the grid has < 2^31 CTAs): a 64-bit division
  // is a measurable part of a kernel that runs 2-3 us on a small matrix.
  const int b = static_cast<int>(block);
  // Slice-major: CTAs running at the same time share a slice, so an SM's L1
  // holds the B rows of one slice only.
  const int slice = p.slices == 1 ? 0 : p.item_blocks.divide(b), item_block = b - slice * p.item_blocks.divisor();
  const int item = (item_block << (kResLog2ThreadsPerBlock - log2_g)) + (threadIdx.x >> log2_g);
  // FP16: 8 consecutive features a lane; FP32 and FP64: runs of one 16-byte vector (4 floats, 2 doubles)
  // R x G apart (whole sectors a load, see dense_access).
  constexpr int R = run_elems<T>();
  const int qs = sizeof(T) >= 4 ? R * G : R;
  const int f = slice * V * G + (sizeof(T) >= 4 ? R : 8) * lane_in_group;
  const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1) << (lane - lane_in_group);
  // Small matrices are latency-bound: one load before the first column id.
  // Standalone, it is the whole item (its row and piece count then wait in
  // two registers, and nothing is loaded between the loop and the store); the
  // fused kernel, at its 64 registers, loads those after the loop (a cache hit).
  const bool has_item = item < p.num_items;  // whole groups alike
  // kDirect (32 registers) loads them after the loop too: holding them through it spills.
  constexpr bool kStandalone = S != NonzeroSource::kShuffles, kLateRow = S != NonzeroSource::kSlots;
  int4 whole = make_int4(0, 0, 0, 0);
  if (has_item) {
    if constexpr (!kLateRow) {
      whole = __ldg(reinterpret_cast<const int4*>(p.items + item));
    } else {
      const int2 range = __ldg(reinterpret_cast<const int2*>(p.items + item));
      whole.x = range.x, whole.y = range.y;
    }
  }
  const int k_begin = whole.x, k_end = whole.y;

  Frag<V, Accum<T>> acc = {};
  ResidualSlot<T>* group_slots = S == NonzeroSource::kSlots ? slots + (threadIdx.x - lane_in_group) : nullptr;
  // kDirect runs only where VecRows applies (residual_throughput_planned): RawRow::load's checks would spill it.
  if (S == NonzeroSource::kDirect || (kStandalone && VecRows<T, V>::applies(p.B)))  // uniform in the grid
    accumulate_item<kBatch, S>(p, VecRows<T, V>(p.B, f, qs), k_begin, k_end, lane_in_group, mask, group_slots, acc);
  else if constexpr (S != NonzeroSource::kDirect)
    accumulate_item<kBatch, S>(p, CheckedRows<T, V>{p.B, f, qs}, k_begin, k_end, lane_in_group, mask, group_slots, acc);
  // Pieces of one row sit in consecutive groups: the first adds the others'
  // partial sums (same lane in group gi + j: thread + j * G).
  if (kLateRow && has_item) {
    const int2 row_pieces = __ldg(reinterpret_cast<const int2*>(p.items + item) + 1);
    whole.z = row_pieces.x, whole.w = row_pieces.y;
  }
  const int row = whole.z, pieces = whole.w;
  if (__syncthreads_or(pieces != 1)) {
    Accum<T>* mine = partials + threadIdx.x;
    if (pieces == 0)
#pragma unroll
      for (int x = 0; x < V; ++x) mine[x * kResThreadsPerBlock] = acc.v[x];
    __syncthreads();
#pragma unroll 1
    for (int j = 1; j < pieces; ++j)
#pragma unroll
      for (int x = 0; x < V; ++x) acc.v[x] += mine[x * kResThreadsPerBlock + j * G];
  }
  if (pieces > 0 && f < p.C.n) store_row(p.C, row, f, acc, p.alpha, p.beta, item >= p.num_local, qs);
}

/// C(r, :) = beta * C(r, :) for the listed rows, negative ids skipped (beta == 0 writes zeros):
/// the rows of atomic work items, before those add into them. A warp a row,
/// lanes over its features (16-byte vectors where C allows). The multiply
/// launches behind it with programmatic dependent launch: its CTAs start at
/// once and only atomic items wait for this grid (wait_for_prior_grid).
template <class OutT, class A>
__global__ void __launch_bounds__(256) scale_rows_kernel(const int* rows, int num_rows, DenseRef<OutT> C, A beta) {
  allow_dependent_launch();
  constexpr int kVec = 16 / int(sizeof(OutT));
  const int lane = threadIdx.x % 32, warps = gridDim.x * (blockDim.x / 32);
  for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < num_rows; r += warps) {
    if (rows[r] < 0) continue;  // a slot left unused
    OutT* base = C.ptr + rows[r] * C.row_stride;
    if (C.vec) {  // n a multiple of 8, rows 16-byte aligned
      for (int f = kVec * lane; f < C.n; f += kVec * 32) {
        alignas(16) OutT x[kVec];
        *reinterpret_cast<uint4*>(x) = beta != 0 ? *reinterpret_cast<const uint4*>(base + f) : uint4{0, 0, 0, 0};
#pragma unroll
        for (int i = 0; i < kVec; ++i) x[i] = from_acc<OutT>(beta * to_acc(x[i]));
        *reinterpret_cast<uint4*>(base + f) = *reinterpret_cast<const uint4*>(x);
      }
    } else {
      for (int f = lane; f < C.n; f += 32) {
        OutT& c = base[f * C.col_stride];
        c = from_acc<OutT>(beta != 0 ? beta * to_acc(c) : A(0));
      }
    }
  }
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
