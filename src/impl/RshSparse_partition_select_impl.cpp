#include "impl/RshSparse_partition_select_impl.hpp"

#include "impl/RshSparse_plan_selector_impl.hpp"

#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_partition_cost_on.hpp"

namespace rsh {
namespace impl {

double PartitionCost::tensor_core_us(Arithmetic arith) const {
  switch (arith) {
    case Arithmetic::kFp16:
      return 4.97 + 4.88e-3 * cta_max_tiles + 1.10e-3 * windows + 6.28e-5 * residual_nnz;
    case Arithmetic::kTf32:
      return 4.50 + 9.16e-3 * cta_max_tiles + 1.14e-3 * windows + 1.23e-4 * residual_nnz;
    case Arithmetic::kFp32:
      return 4.75 + 9.73e-3 * cta_max_tiles + 1.35e-3 * windows + 1.18e-4 * residual_nnz;
    case Arithmetic::kFp64:
      return 4.59 + 1.62e-2 * cta_max_tiles + 3.38e-3 * windows + 2.76e-4 * residual_nnz;
  }
  return 0;
}

double CudaCoreCost::us(Arithmetic arith) const {
  // Least squares over the shared matrices under CudaCoreOnly at pieces of 4, 8, 16 and 32
  // (scripts/fit_partition_model.py). The CUDA-core kernel is FP32 under TF32 and FP32-level arithmetic
  // alike, so the two share one model.
  if (arith == Arithmetic::kFp16)
    return 2.64 + 2.87e-4 * items + 1.78e-5 * nnz + 0.139 * longest + (split ? 0.171 : 0.0);
  // FP64: fitted at the model's pieces (not swept), atomic rows' pieces summed in groups.
  if (arith == Arithmetic::kFp64)
    return 3.11 + 9.11e-4 * items + 7.35e-5 * nnz + 6.32e-2 * longest + (split ? 0.78 : 0.0);
  return 2.53 + 4.35e-4 * items + 2.81e-5 * nnz + 0.125 * longest + (split ? 0.255 : 0.0);
}

double PartitionCost::cuda_core_us(Arithmetic arith) const {
  return cuda.us(arith);
}

CudaCoreCost cuda_core_cost(const HostCrs& A, int piece_nnz, int max_len) {
  return cuda_core_cost_on(Kokkos::DefaultHostExecutionSpace(), host_array(A.row_map), A.num_rows, piece_nnz, max_len);
}

CudaCoreCost best_cuda_core_cost(const HostCrs& A, const Options& options, Arithmetic arith) {
  return best_cuda_core_cost_on(Kokkos::DefaultHostExecutionSpace(), host_array(A.row_map), A.num_rows, options, arith);
}

int residual_piece_nnz(const HostCrs& A, const Options& options, Partition partition, Arithmetic arith) {
  return residual_piece_nnz_on(Kokkos::DefaultHostExecutionSpace(), host_array(A.row_map), A.num_rows, options,
                               partition, arith);
}

double PartitionCost::dense_blocks_us(Arithmetic arith) const {
  // Least squares on relative error over the DLMC layers and ogbl-ddi run under DenseBlocks
  // (scripts/fit_dense_model.py; the runs: perf_tests/results/MODELS.md).
  switch (arith) {
    case Arithmetic::kFp16:
      return 4.76 + 3.30e-6 * dense_slots;
    case Arithmetic::kTf32:
      return 5.05 + 5.45e-6 * dense_slots;
    case Arithmetic::kFp32:
      return 5.51 + 7.22e-6 * dense_slots;
    case Arithmetic::kFp64:
      return 5.98 + 1.032e-5 * dense_slots;
  }
  return 0;
}

bool PartitionCost::prefer_cuda_core(Arithmetic arith) const {
  if (!choice_needs_row_structured(nnz, arith)) return true;  // TF32 / FP32 past the model's range
  // FP16 past it: RowStructured. FP64 takes the CUDA-core path there, whose atomic rows add in groups.
  if (nnz > kPartitionModelMaxNnz && arith == Arithmetic::kFp16) return false;
  return cuda_core_us(arith) < tensor_core_us(arith);
}

Partition PartitionCost::choose(Arithmetic arith, PlanSelector selector) const {
  if (selector == PlanSelector::kLearned) {
    const SelectorTree tree = selector_tree(arith);
    if (tree.size > 0) return walk_selector_tree(tree, selector_features(*this, arith));
  }
  const Partition sparse = prefer_cuda_core(arith) ? Partition::kCudaCoreOnly : Partition::kRowStructured;
  if (dense_slots > kDenseModelMaxSlots) return sparse;
  const double sparse_us = sparse == Partition::kCudaCoreOnly ? cuda_core_us(arith) : tensor_core_us(arith);
  return dense_blocks_us(arith) < sparse_us ? Partition::kDenseBlocks : sparse;
}

PartitionCost partition_cost(const HostCrs& A, const HostPattern& p, const Options& options, Arithmetic arith) {
  return partition_cost_on(Kokkos::DefaultHostExecutionSpace(), A.num_rows, A.num_cols, host_array(A.row_map), p,
                           options, arith);
}

}  // namespace impl
}  // namespace rsh
