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
    case Arithmetic::kFp64:  // 103 matrices (95 shared + 8 generated) under RowStructured: h100_2026-11-27.md
      return 4.59 + 1.62e-2 * cta_max_tiles + 3.38e-3 * windows + 2.76e-4 * residual_nnz;
  }
  return 0;
}

double CudaCoreCost::us(Arithmetic arith) const {
  // Least squares over the 95 shared matrices under CudaCoreOnly at pieces of 4, 8, 16 and 32 (H100,
  // N = 128; scripts/fit_partition_model.py): picking the piece by it gives x0.953 FP16 / x0.942 TF32
  // rsh time against pieces of 16 (best piece x0.941 / x0.923). FP16: perf_tests/results/h100_2026-11-23e.md;
  // TF32 refit with FP32 lanes of 4 features: h100_2026-11-23g.md. The CUDA-core kernel is FP32 under
  // TF32 and FP32-level arithmetic alike (its refit under FP32 in h100_2026-11-24.md came within 3%).
  if (arith == Arithmetic::kFp16)
    return 2.64 + 2.87e-4 * items + 1.78e-5 * nnz + 0.139 * longest + (split ? 0.171 : 0.0);
  // FP64: the 103 matrices (95 shared + 8 generated) under CudaCoreOnly at the model's pieces, atomic rows'
  // pieces summed in groups (h100_2026-11-27.md; pieces not swept).
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
  // Least squares on relative error over the 59 DLMC layers and ogbl-ddi run under DenseBlocks (H100,
  // N = 128, scripts/fit_dense_model.py): FP16 and TF32 in perf_tests/results/h100_2026-11-23e.md (max error
  // 8% / 16%), FP32-level in h100_2026-11-24.md; FP64 (mma.m16n8k16, clusters held in one wave) over the
  // same 60 matrices in h100_2026-11-27c.md.
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
  // FP16 past it: RowStructured. FP64 takes the CUDA-core path there: faster than RowStructured on each of
  // the eight generated matrices once atomic rows add in groups (R-MAT 20 0.96x against 0.86x cuSPARSE,
  // stencil 1.34x against 1.14x; h100_2026-11-27.md).
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
