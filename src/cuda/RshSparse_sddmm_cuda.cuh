#pragma once
// SDDMM launchers of the raw CUDA API: SpmmPlan::sddmm (Tensor-Core tiles +
// CUDA-core residual into value slots) and sddmm_csr (CUDA cores over a
// CSR, into its value order). Included by one .cu per precision, after the
// plan and the handle-free multiply.
#include <string>

#include "cuda/RshSparse_sddmm_kernel.cuh"
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

template <class T, class Offset, class OutT>
void launch_sddmm_csr(const DeviceCsr<T, Offset>& A, const int* span_rows, float alpha, const T* X, int64_t ldx,
                      const T* Y, int64_t ldy, int k, float beta, OutT* out, cudaStream_t stream) {
  SddmmCsrParams<T, Offset, OutT> p{};
  p.row_map = A.row_map, p.cols = A.entries, p.num_rows = A.num_rows, p.nnz = A.nnz, p.span_rows = span_rows;
  p.out = out, p.alpha = alpha, p.beta = beta;
  p.group = sddmm_group<T>(k);
  p.X = dense_ref<const T>(X, ldx, k, Layout::kRowMajor), p.Y = dense_ref<const T>(Y, ldy, k, Layout::kRowMajor);
  sddmm_csr_kernel<T, Offset, OutT>
      <<<sddmm_blocks(sddmm_csr_num_spans(A.nnz), p.group), kSddmmThreadsPerBlock, 0, stream>>>(p);
  check_launch("sddmm_csr_kernel");
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

  StreamBuffer<int> error(1, stream);
  RSH_CUDA_CHECK(cudaMemsetAsync(error.get(), 0, sizeof(int), stream));
  csr_row_map_check_kernel<<<static_cast<unsigned>((int64_t(rows) + 256) / 256), 256, 0, stream>>>(A.row_map, rows,
                                                                                                   A.nnz, error.get());
  check_launch("csr_row_map_check_kernel");
  if (A.nnz > 0) {
    csr_column_check_kernel<<<stride_blocks(A.nnz), 256, 0, stream>>>(A.entries, A.nnz, A.num_cols, error.get());
    check_launch("csr_column_check_kernel");
  }
  int host_error = 0;
  RSH_CUDA_CHECK(cudaMemcpyAsync(&host_error, error.get(), sizeof host_error, cudaMemcpyDeviceToHost, stream));
  RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_error) throw_csr_error(host_error, rows, A.num_cols, A.nnz, who);
  if (A.nnz == 0) return;

  launch_sddmm_csr(A, static_cast<const int*>(nullptr), alpha, X, ldx, Y, ldy, k, beta, out, stream);
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

template <class T, class Offset, class OutT>
void sddmm_csr(const DeviceCsr<T, Offset>& A, const int* span_rows, float alpha, const T* X, int64_t ldx, const T* Y,
               int64_t ldy, int k, float beta, OutT* out, cudaStream_t stream) {
  using namespace detail;
  const char* who = "rsh::cuda::sddmm_csr (prepared)";
  check_sddmm_args(who, A.num_rows, A.num_cols, X, ldx, Y, ldy, k);
  if (A.nnz == 0) return;
  if (A.num_rows <= 0 || !A.row_map || !A.entries || !out || !span_rows)
    throw std::invalid_argument(std::string(who) + ": null arrays or no rows for nonzeros");
  launch_sddmm_csr(A, span_rows, alpha, X, ldx, Y, ldy, k, beta, out, stream);
}

}  // namespace cuda
}  // namespace rsh
