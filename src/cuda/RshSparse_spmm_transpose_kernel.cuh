#pragma once
// Column-major (Kokkos::LayoutLeft) B and C through row-major copies. The
// multiply kernels gather whole B rows and store whole C rows as 16-byte
// vectors; in column-major order a row is n scattered elements, one 32-byte
// sector each: up to 8x the L2 transactions of a row-major row for FP32 (16x
// for FP16), on every nonzero for B and on every row for C. A copy costs one
// coalesced read and write of B (and of C) instead.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/RshSparse_cuda_device_array.hpp"
#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_spmm_dense_access.cuh"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTransposeTile = 32;  ///< the square tile a CTA moves through shared memory
constexpr int kTransposeRows = 8;   ///< thread rows of a CTA (32 x 8 threads, 4 elements each)

/// How column-major operands are multiplied (KernelConfig::column_major 0): B is read in place when it is at
/// most kColumnMajorInPlaceBBytes (its strided gathers stay in each SM's L1 and the call is launch-bound);
/// else B goes through a row-major copy, and C is written in place (mode 2) when the operands are at most
/// kColumnMajorInPlaceCBytes and no work item adds into C with atomics (strided atomics and pre-scaling cost
/// more than C's copy), else through a copy too (mode 3). The sizes are fitted on the H100
/// (perf_tests/results/MODELS.md).
constexpr int64_t kColumnMajorInPlaceBBytes = int64_t(96) << 10;
constexpr int64_t kColumnMajorInPlaceCBytes = int64_t(2) << 20;

/// KernelConfig::column_major's modes: 1 in place, 2 B copied, 3 B and C copied.
inline int column_major_mode(int rows, int cols, int n, int element_bytes, bool atomic_items) {
  if (int64_t(cols) * n * element_bytes <= kColumnMajorInPlaceBBytes) return 1;
  if (int64_t(rows + cols) * n * element_bytes <= kColumnMajorInPlaceCBytes && !atomic_items) return 2;
  return 3;
}

/// Features of a row-major copy: n rounded up to 8, so that its rows are whole 16-byte vectors.
inline int transposed_width(int n) {
  return (n + 7) / 8 * 8;
}

/// dst(q, p) = src(p, q) + beta * dst(q, p) (beta == 0: dst not read; in Src's accumulator type) for p < p_out, q <
/// q_count, with src(p, q) = 0 for p >= p_count: src is p_count x q_count row-major (element (p, q) at src[p * src_ld +
/// q]), dst q_count x p_out row-major. A 1-D grid of 32 x 32 tiles (q fastest), 32 x 8 threads a tile:
/// reads go along q and writes along p, 32 consecutive elements a warp, through a padded shared tile.
/// Launched behind the multiply that writes src (programmatic dependent launch), it waits for it first.
template <class Src, class Dst>
__global__ void __launch_bounds__(kTransposeTile* kTransposeRows)
    transpose_kernel(const Src* __restrict__ src, int64_t src_ld, int p_count, int q_count, Dst* __restrict__ dst,
                     int64_t dst_ld, int p_out, Accum<Src> beta) {
  __shared__ Accum<Src> tile[kTransposeTile][kTransposeTile + 1];  // +1: column reads hit 32 banks
  allow_dependent_launch();
  wait_for_prior_grid();
  const int q_tiles = (q_count + kTransposeTile - 1) / kTransposeTile;
  const int p0 = static_cast<int>(blockIdx.x / q_tiles) * kTransposeTile;
  const int q0 = static_cast<int>(blockIdx.x % q_tiles) * kTransposeTile;
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int y = ty; y < kTransposeTile; y += kTransposeRows) {
    const int p = p0 + y, q = q0 + tx;
    tile[y][tx] = p < p_count && q < q_count ? to_acc(src[int64_t(p) * src_ld + q]) : Accum<Src>(0);
  }
  __syncthreads();
#pragma unroll
  for (int y = ty; y < kTransposeTile; y += kTransposeRows) {
    const int q = q0 + y, p = p0 + tx;
    if (q >= q_count || p >= p_out) continue;
    Dst& d = dst[int64_t(q) * dst_ld + p];
    d = from_acc<Dst>(beta != 0 ? tile[tx][y] + beta * to_acc(d) : tile[tx][y]);
  }
}

/// Launches transpose_kernel on `stream` (see there), behind the kernel before it (`after_prior`: src is
/// what that kernel writes) with programmatic dependent launch; nothing to do for an empty matrix.
template <class Src, class Dst>
void transpose(const Src* src, int64_t src_ld, int p_count, int q_count, Dst* dst, int64_t dst_ld, int p_out,
               Accum<Src> beta, cudaStream_t stream, bool after_prior) {
  if (p_out == 0 || q_count == 0) return;
  const int64_t tiles =
      int64_t((p_out + kTransposeTile - 1) / kTransposeTile) * ((q_count + kTransposeTile - 1) / kTransposeTile);
  if (tiles > int64_t(0x7fffffff)) throw std::invalid_argument("rsh::cuda::spmm: dense matrix too large to transpose");
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(tiles));
  cfg.blockDim = dim3(kTransposeTile, kTransposeRows);
  cfg.stream = stream;
  cudaLaunchAttribute attr = programmatic_launch();
  cfg.attrs = &attr, cfg.numAttrs = programmatic_attrs(after_prior);
  cudaLaunchKernelEx(&cfg, transpose_kernel<Src, Dst>, src, src_ld, p_count, q_count, dst, dst_ld, p_out, beta);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("rsh::cuda::spmm: launch of transpose_kernel failed: ") +
                             cudaGetErrorString(err));
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
