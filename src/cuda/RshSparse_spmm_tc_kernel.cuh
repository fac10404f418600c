#pragma once
// Tensor-Core part of the RS-Tile kernel (RSH-SpMM Alg. 2, swap-and-transpose).
// A warp computes one work item (a window or a piece of one), or a 1/K share
// of its tiles, for one slice of B / C (64 features and 4 m16n8k8 MMAs per
// tile for FP16; 32 features and 2 MMAs for TF32). The next two tiles'
// indices, bitmaps, values and B rows load into two register sets while the
// current tile's MMAs run (register double buffering, Alg. 2's fragB[2]; B
// goes straight to registers, not through cp.async and shared memory); the
// FP32 accumulators stay in registers across the item and C rows are stored
// once, at their original row ids.
#include <cstdint>

#include "cuda/RshSparse_spmm_dense_access.cuh"
#include "cuda/RshSparse_spmm_mma_traits.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTcWarpsPerBlock = 8;
/// Features of B / C one warp covers: 8 lane groups x V (64 for FP16 with 4
/// MMAs of M = 16 per tile, 32 for TF32 with 2).
template <class T>
__host__ __device__ constexpr int tc_slice_features() {
  return 8 * MmaTraits<T>::kLaneFeatures;
}

template <class T, class OutT>
struct TcParams {
  const int* window_rows;       ///< 8 * windows
  const int* tile_cols;         ///< 8 * tiles, -1 = padding
  const uint64_t* tile_bitmap;  ///< tiles
  const int* tile_val_offset;   ///< tiles + 1
  const T* values;              ///< tile values in bitmap order
  const int* item_window;
  const int* item_tile_begin;
  const int* item_tile_end;
  int num_items, num_unsplit;
  int slices;          ///< ceil(n / tc_slice_features<T>())
  int warps_per_item;  ///< K in {1, 2, 4, 8}: warps sharing one (item, slice)
  DenseRef<const T> B;
  DenseRef<OutT> C;
  Accum<T> alpha, beta;
};

/// Metadata of kTcStages consecutive tiles of a warp, loaded by the whole
/// warp at once (lane l: column l % 8 of tile l / 8, and the bitmap and
/// value offset of tile l % 4): one coalesced load for what would be
/// 4 x 4 dependent loads per lane, and 4 registers instead of 20.
struct MetaBatch {
  int col, base;
  uint64_t bits;

  /// `tile(u)` is the global index of batch tile u, or -1 past the warp's tiles.
  template <class P, class TileOf>
  __device__ __forceinline__ void load(const P& p, TileOf&& tile, int lane) {
    const int tc = tile(lane / 8), tb = tile(lane % 4);
    col = tc >= 0 ? __ldg(p.tile_cols + 8 * tc + lane % 8) : -1;
    bits = tb >= 0 ? __ldg(p.tile_bitmap + tb) : 0;
    base = tb >= 0 ? __ldg(p.tile_val_offset + tb) : 0;
  }
};

/// One tile's metadata as one lane needs it: the compacted columns of its
/// two B rows, the bitmap and the offset of the tile's values.
template <class T>
struct TileMeta {
  int ca, cb, base;
  uint64_t bits;

  /// Tile u of a batch (all lanes take part: warp shuffles).
  __device__ __forceinline__ TileMeta(const MetaBatch& m, int u, int q)
      : ca(__shfl_sync(0xffffffffu, m.col, 8 * u + MmaTraits<T>::col_a(q))),
        cb(__shfl_sync(0xffffffffu, m.col, 8 * u + MmaTraits<T>::col_b(q))),
        base(__shfl_sync(0xffffffffu, m.base, u)),
        bits(__shfl_sync(0xffffffffu, m.bits, u)) {}
};

/// The lane's two A values of a tile as the MMA's B fragment: bitmap decoded
/// in registers (the value of bit b is at the popcount of the bits below it).
template <class T, Tf32Split S, class P>
__device__ __forceinline__ typename MmaTraits<T, S>::BFrag tile_values(const P& p, const TileMeta<T>& m, int g, int q) {
  const int bit_a = 8 * g + MmaTraits<T>::col_a(q), bit_b = 8 * g + MmaTraits<T>::col_b(q);
  const uint64_t below_a = m.bits & ((uint64_t(1) << bit_a) - 1), below_b = m.bits & ((uint64_t(1) << bit_b) - 1);
  const T a = (m.bits >> bit_a) & 1 ? p.values[m.base + __popcll(below_a)] : from_acc<T>(0.f);
  const T b = (m.bits >> bit_b) & 1 ? p.values[m.base + __popcll(below_b)] : from_acc<T>(0.f);
  return MmaTraits<T, S>::pack(a, b);
}

/// Shared-memory stages of one warp: per stage, each lane's two 16-byte B
/// chunks (rows ca and cb, features f .. f+V-1), lane-contiguous so that
/// both the asynchronous writes and the reads are conflict-free.
constexpr int kTcStages = 4;  ///< ring slots (values, B) = tiles per metadata batch
constexpr int kTcAhead = 3;   ///< B and values are requested this many tiles ahead
static_assert(kTcStages == 4, "rsh::spmm: a MetaBatch holds 4 tiles (8 columns each over 32 lanes)");
constexpr int kTcStageChunks = 2 * 32;
constexpr int kTcRingChunks = kTcStages * kTcStageChunks;  ///< uint4 per warp
static_assert(16 * 32 * sizeof(float) <= kTcRingChunks * sizeof(uint4) &&
                  4 * 32 * sizeof(double) <= kTcRingChunks * sizeof(uint4),
              "rsh::spmm: partial sums fit in a warp's ring");

/// Requests one tile's B rows into a stage: cp.async where the layout allows
/// 16-byte copies (zero-filled for padding columns and features past n), a
/// plain load and store otherwise.
template <class T>
__device__ __forceinline__ void request_b(const DenseRef<const T>& B, const TileMeta<T>& m, int f, uint4* stage,
                                          int lane) {
  constexpr int V = MmaTraits<T>::kLaneFeatures;
  const int rows[2] = {m.ca, m.cb};
#pragma unroll
  for (int c = 0; c < 2; ++c) {
    uint4* dst = stage + c * 32 + lane;
    if (B.vec) {
      const bool fill = rows[c] >= 0 && f + V <= B.n;
      cp_async_16(dst, fill ? B.ptr + rows[c] * B.row_stride + f : B.ptr, fill);
    } else {
      RawRow<T, V> r;
      r.load(B, rows[c], f);
      *dst = make_uint4(r.w[0], r.w[1], r.w[2], r.w[3]);
    }
  }
}

/// One CTA's share of the Tensor-Core work: 8 warps; each (item, slice)
/// task is taken by `warps_per_item` (K) warps that split its tiles
/// round-robin and reduce through shared memory, so long windows use K
/// warps without atomics. `ring` holds kTcRingChunks uint4 per warp. S: how float operands meet the MMAs.
template <Tf32Split S, class T, class OutT>
__device__ __forceinline__ void tc_block(const TcParams<T, OutT>& p, int64_t block, uint4* ring_all) {
  // Preconditions: K divides 8; K is uniform over the launch, so the barrier below is CTA-uniform.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int K = p.warps_per_item;
  const int64_t task = block * (kTcWarpsPerBlock / K) + warp / K;
  const int kk = warp % K;
  const bool active = task < int64_t(p.num_items) * p.slices;
  const int g = lane / 4, q = lane % 4;
  const int item = active ? static_cast<int>(task / p.slices) : 0;
  using Traits = MmaTraits<T, S>;
  using Acc = typename Traits::Acc;
  constexpr int V = Traits::kLaneFeatures, J = Traits::kMmas, R = Traits::kAccPerMma;  // features, MMAs, results
  const int f = active ? static_cast<int>(task % p.slices) * tc_slice_features<T>() + V * g : 0;  // lane's first
  uint4* ring = ring_all + warp * kTcRingChunks;
  // The C rows this lane stores (rows 2q, 2q+1 of the window), requested now
  // so that their two dependent loads overlap the tile loop instead of
  // adding to the critical path of short items (small matrices).
  int r0 = -1, r1 = -1;
  if (active && kk == 0) {
    const int w = p.item_window[item];
    r0 = p.window_rows[8 * w + 2 * q], r1 = p.window_rows[8 * w + 2 * q + 1];
  }

  Acc acc[J][R] = {};  // (MMA j, fragment element): C^T(features x 8 rows) per MMA
  if (active) {
    // The warp's tiles: t0, t0 + K, ... (count of them). Tile i lives in ring
    // slot i % kTcStages; its B rows (cp.async) and values are requested
    // kTcAhead tiles ahead, from metadata batches loaded a batch ahead, so
    // neither the index loads nor the B loads stall the MMAs.
    const int t0 = p.item_tile_begin[item] + kk, t_end = p.item_tile_end[item];
    const int count = t0 < t_end ? (t_end - t0 + K - 1) / K : 0;
    auto batch_tiles = [&](int first) { return [=](int u) { return first + u < count ? t0 + (first + u) * K : -1; }; };
    MetaBatch cur, nxt;  // batches k and k+1 while batch k's tiles multiply
    cur.load(p, batch_tiles(0), lane);
    nxt.load(p, batch_tiles(kTcStages), lane);
    typename Traits::BFrag vals[kTcStages];
    auto request = [&](const MetaBatch& m, int u, int slot, bool valid) {
      const TileMeta<T> meta(m, u, q);
      if (valid) {
        request_b(p.B, meta, f, ring + slot * kTcStageChunks, lane);
        vals[slot] = tile_values<T, S>(p, meta, g, q);
      }
      cp_async_commit();
    };
#pragma unroll
    for (int s = 0; s < kTcAhead; ++s) request(cur, s, s, s < count);
    for (int base = 0; base < count; base += kTcStages) {
#pragma unroll
      for (int s = 0; s < kTcStages; ++s) {
        const int i = base + s;
        if (i >= count) break;
        cp_async_wait<kTcAhead - 1>();  // tile i's B is in slot s
        RawRow<T, V> ba, bb;
        const uint4 ua = ring[s * kTcStageChunks + lane], ub = ring[s * kTcStageChunks + 32 + lane];
        ba.w[0] = ua.x, ba.w[1] = ua.y, ba.w[2] = ua.z, ba.w[3] = ua.w;
        bb.w[0] = ub.x, bb.w[1] = ub.y, bb.w[2] = ub.z, bb.w[3] = ub.w;
        Traits::mma(acc, ba, bb, vals[s]);
        // Tile i + kTcAhead: slot (s + kTcAhead) % kTcStages, in this batch or the next (constant once unrolled).
        const int ahead = s + kTcAhead;
        request(ahead < kTcStages ? cur : nxt, ahead % kTcStages, ahead % kTcStages, i + kTcAhead < count);
        if (ahead == kTcStages) cur.load(p, batch_tiles(base + 2 * kTcStages), lane);  // cur is done: batch k+2
      }
      const MetaBatch t = cur;  // batch k+1 becomes current
      cur = nxt, nxt = t;
    }
    cp_async_wait<0>();  // no copy may land after the ring is reused below
  }
  // Partial sums of warp w: J x R x 32 accumulators inside w's own ring (free once its copies landed).
  auto partial = [&](int w) { return reinterpret_cast<Acc*>(ring_all + w * kTcRingChunks); };

  // Split-K reduction: (element, lane) per warp, conflict-free.
  if (K > 1) {
#pragma unroll
    for (int e = 0; e < R * J; ++e) partial(warp)[e * 32 + lane] = acc[e / R][e % R];
    __syncthreads();
    if (kk == 0)
      for (int other = 1; other < K; ++other)
#pragma unroll
        for (int e = 0; e < R * J; ++e) acc[e / R][e % R] += partial(warp + other)[e * 32 + lane];
  }
  if (!active || kk != 0 || f >= p.C.n) return;

  // Epilogue: lane holds rows 2q, 2q+1 of the window, features f .. f+V-1.
  Frag<V, Acc> row0, row1;
  Traits::rows(acc, row0, row1);
  const bool atomic = item >= p.num_unsplit;
  if (r0 >= 0) store_row(p.C, r0, f, row0, p.alpha, p.beta, atomic);
  if (r1 >= 0) store_row(p.C, r1, f, row1, p.alpha, p.beta, atomic);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
