// FP32 operands: Tensor-Core tiles in TF32, residual in FP32.
#include "cuda/RshSparse_spmm_cuda_instantiate.cuh"

namespace rsh {
namespace cuda {
RSH_CUDA_INSTANTIATE_SPMM(float);
RSH_CUDA_INSTANTIATE_SDDMM_CSR(float);
template void sddmm_csr_span_rows<int>(const int*, int, int64_t, int*, cudaStream_t);
template void sddmm_csr_span_rows<int64_t>(const int64_t*, int, int64_t, int*, cudaStream_t);
template int64_t sddmm_csr_panel_order<int>(const int*, int, int64_t, const int*, int, int*, int*, int*, cudaStream_t);
template int64_t sddmm_csr_panel_order<int64_t>(const int64_t*, int, int64_t, const int*, int, int*, int*, int*,
                                                cudaStream_t);
template void sddmm_csr_tile_starts<int>(const int*, int, int, int64_t, const int*, int*, cudaStream_t);
template void sddmm_csr_tile_starts<int64_t>(const int64_t*, int, int, int64_t, const int*, int*, cudaStream_t);
template bool csr_rows_sorted<int>(const int*, int, int64_t, const int*, cudaStream_t);
template bool csr_rows_sorted<int64_t>(const int64_t*, int, int64_t, const int*, cudaStream_t);

SddmmCsrKernel sddmm_csr_auto_kernel(int64_t rows, int64_t cols, int64_t nnz, bool rows_sorted) {
  const int64_t tiles = sddmm_csr_num_tiles(rows, cols);
  if (!rows_sorted || tiles < 64 || tiles > int64_t(0x7fffffff)) return SddmmCsrKernel::kSpans;
  const double fill = double(nnz) / (4096.0 * double(tiles));
  return fill >= (tiles >= 128 ? 0.12 : 0.25) ? SddmmCsrKernel::kDenseTiles : SddmmCsrKernel::kSpans;
}

int sddmm_tile_rows(int64_t rows, int64_t cols, int requested) {
  if (requested == 32 || requested == 64) return requested;
  if (requested != 0)
    throw std::invalid_argument("rsh::cuda::sddmm_tile_rows: " + std::to_string(requested) +
                                " rows a tile block (0, 32 or 64)");
  int device = 0, sms = 0;
  RSH_CUDA_CHECK(cudaGetDevice(&device));
  RSH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sddmm_csr_num_tiles(rows, cols) < int64_t(sms) ? 32 : 64;
}

bool device_available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

int64_t device_l2_bytes() {
  int device = 0, bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess)
    return 0;
  return bytes;
}
}  // namespace cuda
}  // namespace rsh
