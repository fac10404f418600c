#pragma once
// SDDMM spans in panel order with the panel's rows of X in shared memory
// (SddmmCsrKernel::kStagedPanels). In panel order (sddmm_csr_panel_order) a
// span's eight nonzeros mostly share a column, so a group loads one row of Y
// for them but eight rows of X, each from L2 where the blocks that walk one
// panel run on different SMs. Here a block takes kPanelSpansPerGroup
// consecutive spans a group, stages the rows of X of the panel its first
// nonzero lies in once, and its spans read those rows from shared memory (the
// rows of a next panel, where its spans reach past the first, from X itself).
#include <cstdint>

#include "cuda/RshSparse_sddmm_kernel.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kPanelSpansPerGroup = 4;  ///< spans a lane group walks in one block

/// Words a staged row of X takes: k features in whole 16-byte pieces (sddmm_staged_panel_bytes).
template <class T>
constexpr int panel_row_words(int k) {
  return (k * int(sizeof(T)) + 15) / 16 * 4;
}

/// X's rows as the staged spans load them: rows [first, first + count) from the staged panel (`pitch` words a
/// row), others from X itself.
template <class T>
struct XRowsStaged {
  const DenseRef<const T>& X;
  const uint32_t* staged;
  int first, count, pitch;
  template <int V>
  __device__ __forceinline__ void operator()(RawRow<T, V>& x, int row, int f) const {
    static_assert(RawRow<T, V>::kWords == 4, "one 16-byte piece a lane");
    const unsigned i = unsigned(row - first);
    if (i < unsigned(count)) {
      const uint4 u = *reinterpret_cast<const uint4*>(staged + i * pitch + f * int(sizeof(T)) / 4);
      x.w[0] = u.x, x.w[1] = u.y, x.w[2] = u.z, x.w[3] = u.w;
    } else {
      x.load(X, row, f);
    }
  }
};

/// Blocks of the staged-panel kernel for `spans` spans of `group` lanes.
inline unsigned panel_blocks(int64_t spans, int group) {
  const int64_t per_block = int64_t(kSddmmThreadsPerBlock / group) * kPanelSpansPerGroup;
  const int64_t blocks = (spans + per_block - 1) / per_block;
  if (blocks > int64_t(0x7fffffff)) throw std::invalid_argument("rsh::cuda::sddmm: problem too large for one grid");
  return static_cast<unsigned>(blocks);
}

/// Group j of the block walks spans first + j, first + j + groups, ...: at each step the block's groups take
/// consecutive spans, which share columns and so rows of Y in L1.
template <class T, class Offset, class OutT>
__global__ void __launch_bounds__(kSddmmThreadsPerBlock) sddmm_panel_kernel(SddmmCsrParams<T, Offset, OutT> p) {
  extern __shared__ __align__(16) uint32_t staged[];
  const int groups = kSddmmThreadsPerBlock / p.group;
  const int64_t first = int64_t(blockIdx.x) * groups * kPanelSpansPerGroup;
  // The block's first nonzero is never padding: the grid covers the spans and no more.
  const int P = p.panels.panel_rows;
  const int r0 = p.panels.rows[first * kSddmmCsrSpan] / P * P;
  const int count = min(P, p.num_rows - r0), words = panel_row_words<T>(p.X.n);
  stage_rows<T, kSddmmThreadsPerBlock>(p.X, r0, count, count, 0, words, words, staged);
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
  const XRowsStaged<T> x{p.X, staged, r0, count, words};
  for (int i = 0; i < kPanelSpansPerGroup; ++i)
    sddmm_span<1>(p, first + int64_t(i) * groups + threadIdx.x / p.group, x);
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
