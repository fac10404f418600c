#pragma once
// cuSPARSE baseline: cusparseSpMM on CSR, row- or column-major B and C, op(A)
// = A or A^T, one algorithm per instance (ALG1/ALG2/ALG3; the summary takes
// the best of those cuSPARSE supports). FP16 and BF16
// run A, B, C in 16 bits with FP32 compute; FP32 and FP64 run everything in
// their own precision.
#include <cuda_bf16.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "RshSparse_benchmark_cuda.hpp"
#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {
namespace bench {

#define RSH_CUSPARSE_CHECK(call)                                                         \
  do {                                                                                   \
    const cusparseStatus_t st_ = (call);                                                 \
    if (st_ != CUSPARSE_STATUS_SUCCESS)                                                  \
      throw std::runtime_error(std::string(#call) + ": " + cusparseGetErrorString(st_)); \
  } while (0)

/// The process's cuSPARSE handle, made on first use.
inline cusparseHandle_t cusparse_handle() {
  static cusparseHandle_t h = [] {
    cusparseHandle_t x;
    RSH_CUSPARSE_CHECK(cusparseCreate(&x));
    return x;
  }();
  return h;
}

template <class T>
constexpr cudaDataType cuda_type() {
  return std::is_same<T, double>::value          ? CUDA_R_64F
         : std::is_same<T, float>::value         ? CUDA_R_32F
         : std::is_same<T, __nv_bfloat16>::value ? CUDA_R_16BF
                                                 : CUDA_R_16F;
}

template <class T>
class CusparseSpmm {
 public:
  /// Throws std::runtime_error when cuSPARSE does not support the algorithm here.
  /// `row_major`: the order of B and C (leading dimension n), else column-major (leading dimension rows).
  /// `transpose`: C = A^T * B (CUSPARSE_OPERATION_TRANSPOSE on A's CSR).
  CusparseSpmm(const impl::HostCrs& A, const std::vector<T>& values, int n, int alg, cusparseHandle_t handle,
               cudaStream_t stream, bool row_major = true, bool transpose = false)
      : handle_(handle),
        m_(A.num_rows),
        k_(A.num_cols),
        n_(n),
        alg_(alg),
        row_major_(row_major),
        op_(transpose ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE) {
    std::vector<int> row_map(A.row_map.begin(), A.row_map.end());
    row_map_ = DeviceArray<int>(row_map);
    cols_ = DeviceArray<int>(A.entries);
    vals_ = DeviceArray<T>(values);
    RSH_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
    RSH_CUSPARSE_CHECK(cusparseCreateCsr(&A_, m_, k_, A.nnz(), row_map_.get(), cols_.get(), vals_.get(),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                         cuda_type<T>()));
  }
  ~CusparseSpmm() {
    if (A_) cusparseDestroySpMat(A_);
  }

  std::string name() const { return "cusparse_alg" + std::to_string(alg_); }

  /// C = op(A) * B; buffers are bound per call (the rotating copies).
  void run(const T* B, T* C, cudaStream_t stream) {
    using Compute = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    const cusparseOrder_t order = row_major_ ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
    const int64_t b_rows = op_ == CUSPARSE_OPERATION_TRANSPOSE ? m_ : k_;
    const int64_t c_rows = op_ == CUSPARSE_OPERATION_TRANSPOSE ? k_ : m_;
    cusparseDnMatDescr_t b, c;
    RSH_CUSPARSE_CHECK(
        cusparseCreateDnMat(&b, b_rows, n_, row_major_ ? n_ : b_rows, const_cast<T*>(B), cuda_type<T>(), order));
    RSH_CUSPARSE_CHECK(cusparseCreateDnMat(&c, c_rows, n_, row_major_ ? n_ : c_rows, C, cuda_type<T>(), order));
    const Compute alpha = 1, beta = 0;
    const cudaDataType compute = cuda_type<Compute>();
    const auto alg = algorithm();
    if (!buffer_ready_) {
      size_t bytes = 0;
      RSH_CUSPARSE_CHECK(cusparseSpMM_bufferSize(handle_, op_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A_, b, &beta,
                                                 c, compute, alg, &bytes));
      buffer_ = DeviceArray<char>(bytes);
      RSH_CUSPARSE_CHECK(cusparseSpMM_preprocess(handle_, op_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A_, b, &beta,
                                                 c, compute, alg, buffer_.get()));
      buffer_ready_ = true;
    }
    RSH_CUSPARSE_CHECK(cusparseSpMM(handle_, op_, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A_, b, &beta, c, compute,
                                    alg, buffer_.get()));
    cusparseDestroyDnMat(b);
    cusparseDestroyDnMat(c);
  }

 private:
  cusparseSpMMAlg_t algorithm() const {
    return alg_ == 1 ? CUSPARSE_SPMM_CSR_ALG1 : alg_ == 2 ? CUSPARSE_SPMM_CSR_ALG2 : CUSPARSE_SPMM_CSR_ALG3;
  }
  cusparseHandle_t handle_;
  int64_t m_, k_;
  int n_, alg_;
  bool row_major_;
  cusparseOperation_t op_;
  DeviceArray<int> row_map_, cols_;
  DeviceArray<T> vals_;
  DeviceArray<char> buffer_;
  bool buffer_ready_ = false;
  cusparseSpMatDescr_t A_ = nullptr;
};

}  // namespace bench
}  // namespace rsh
