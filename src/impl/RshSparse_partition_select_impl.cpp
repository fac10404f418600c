#include "impl/RshSparse_partition_select_impl.hpp"

#include <cstddef>

#include "impl/RshSparse_plan_selector_impl.hpp"

#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_partition_cost_on.hpp"

namespace rsh {
namespace impl {

namespace {

/// A linear time model's coefficients, fitted at `num_vectors` columns of B.
template <int Terms>
struct FittedAt {
  int num_vectors;
  double coef[Terms];
};

/// The time `fits` (ordered by N) predict for `terms` at `num_vectors`: linear in N between the two fits
/// around it, the nearest fit outside their range (a model is trusted only where it was measured).
template <int Terms, std::size_t Fits>
double predict_at(const FittedAt<Terms> (&fits)[Fits], const double (&terms)[Terms], int num_vectors) {
  auto at = [&](const FittedAt<Terms>& f) {
    double us = 0;
    for (int i = 0; i < Terms; ++i) us += f.coef[i] * terms[i];
    return us;
  };
  if (num_vectors <= fits[0].num_vectors) return at(fits[0]);
  for (std::size_t i = 1; i < Fits; ++i)
    if (num_vectors <= fits[i].num_vectors) {
      const double w = double(num_vectors - fits[i - 1].num_vectors) / (fits[i].num_vectors - fits[i - 1].num_vectors);
      return (1 - w) * at(fits[i - 1]) + w * at(fits[i]);
    }
  return at(fits[Fits - 1]);
}

// FP64 is fitted at N = 64 as well as 128: at 64 the dense-block grid and the residual lanes change shape,
// and the N = 128 models chose dense blocks for a layer that CUDA cores ran faster
// (perf_tests/results/MODELS.md). The other arithmetics have their N = 128 fit alone.
constexpr FittedAt<4> kTensorCoreFp64[] = {{64, {4.43, 8.71e-3, 7.34e-4, 1.33e-4}},
                                           {128, {4.59, 1.62e-2, 3.38e-3, 2.76e-4}}};
constexpr FittedAt<5> kCudaCoreFp64[] = {{64, {3.03, 5.08e-4, 2.86e-5, 9.18e-2, 0.756}},
                                         {128, {3.11, 9.11e-4, 7.35e-5, 6.32e-2, 0.78}}};
constexpr FittedAt<2> kDenseBlocksFp64[] = {{64, {5.54, 6.14e-6}}, {128, {5.98, 1.032e-5}}};

}  // namespace

double PartitionCost::tensor_core_us(Arithmetic arith, int num_vectors) const {
  switch (arith) {
    case Arithmetic::kFp16:
      return 4.97 + 4.88e-3 * cta_max_tiles + 1.10e-3 * windows + 6.28e-5 * residual_nnz;
    case Arithmetic::kTf32:
      return 4.50 + 9.16e-3 * cta_max_tiles + 1.14e-3 * windows + 1.23e-4 * residual_nnz;
    case Arithmetic::kFp32:
      return 5.04 + 9.72e-3 * cta_max_tiles + 1.34e-3 * windows + 1.18e-4 * residual_nnz;
    case Arithmetic::kFp64: {
      const double terms[] = {1.0, double(cta_max_tiles), double(windows), double(residual_nnz)};
      return predict_at(kTensorCoreFp64, terms, num_vectors);
    }
  }
  return 0;
}

double CudaCoreCost::us(Arithmetic arith, int num_vectors) const {
  // Least squares over the shared matrices under CudaCoreOnly at pieces of 4, 8, 16 and 32
  // (scripts/fit_partition_model.py). The CUDA-core kernel is FP32 under TF32 and FP32-level arithmetic
  // alike, so the two share one model.
  if (arith == Arithmetic::kFp16)
    return 2.64 + 2.87e-4 * items + 1.78e-5 * nnz + 0.139 * longest + (split ? 0.171 : 0.0);
  // FP64: fitted at the model's pieces (not swept), atomic rows' pieces summed in groups.
  if (arith == Arithmetic::kFp64) {
    const double terms[] = {1.0, double(items), double(nnz), double(longest), split ? 1.0 : 0.0};
    return predict_at(kCudaCoreFp64, terms, num_vectors);
  }
  return 2.78 + 4.71e-4 * items + 2.38e-5 * nnz + 0.0705 * longest + (split ? 0.421 : 0.0);
}

double PartitionCost::cuda_core_us(Arithmetic arith, int num_vectors) const {
  return cuda.us(arith, num_vectors);
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

double PartitionCost::dense_blocks_us(Arithmetic arith, int num_vectors) const {
  // Least squares on relative error over the DLMC layers and ogbl-ddi run under DenseBlocks
  // (scripts/fit_dense_model.py; the runs: perf_tests/results/MODELS.md).
  switch (arith) {
    case Arithmetic::kFp16:
      return 4.76 + 3.30e-6 * dense_slots;
    case Arithmetic::kTf32:
      return 5.05 + 5.45e-6 * dense_slots;
    case Arithmetic::kFp32:
      return 5.51 + 7.22e-6 * dense_slots;
    case Arithmetic::kFp64: {
      const double terms[] = {1.0, double(dense_slots)};
      return predict_at(kDenseBlocksFp64, terms, num_vectors);
    }
  }
  return 0;
}

bool PartitionCost::prefer_cuda_core(Arithmetic arith) const {
  // Past the models' range every arithmetic takes the CUDA-core path: it ran faster on the large generated
  // matrices but the banded one, and leaves out the RowStructured build the comparison needs
  // (perf_tests/results/MODELS.md).
  if (!choice_needs_row_structured(nnz)) return true;
  return cuda_core_us(arith) < tensor_core_us(arith);
}

Partition PartitionCost::choose(Arithmetic arith, PlanSelector selector, int num_vectors) const {
  if (selector == PlanSelector::kLearned) {
    const SelectorTree tree = selector_tree(arith);
    if (tree.size > 0) return walk_selector_tree(tree, selector_features(*this, arith));
  }
  // The sparse path by the N = 128 models at every N (at N = 64 FP64's own fits told the two sparse paths
  // apart worse than these); DenseBlocks against it at the multiply's N.
  const Partition sparse = prefer_cuda_core(arith) ? Partition::kCudaCoreOnly : Partition::kRowStructured;
  if (dense_slots > kDenseModelMaxSlots) return sparse;
  const double sparse_us =
      sparse == Partition::kCudaCoreOnly ? cuda_core_us(arith, num_vectors) : tensor_core_us(arith, num_vectors);
  return dense_blocks_us(arith, num_vectors) < sparse_us ? Partition::kDenseBlocks : sparse;
}

PartitionCost partition_cost(const HostCrs& A, const HostPattern& p, const Options& options, Arithmetic arith) {
  return partition_cost_on(Kokkos::DefaultHostExecutionSpace(), A.num_rows, A.num_cols, host_array(A.row_map), p,
                           options, arith);
}

}  // namespace impl
}  // namespace rsh
