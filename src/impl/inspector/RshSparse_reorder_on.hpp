#pragma once
// The row order of the inspector on its execution space: MinHash and kAuto's
// choice run where A's views live; the host reorderings (Locality and the
// load / mask permutations) from a host copy of A's pattern.
#include <type_traits>
#include <vector>

#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/RshSparse_reorder_impl.hpp"
#include "impl/RshSparse_reorder_select_impl.hpp"
#include "impl/inspector/RshSparse_b_row_misses_on.hpp"
#include "impl/inspector/RshSparse_grid_order_on.hpp"
#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_minhash_order_on.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// What the kernels would do with A partitioned under `options` in `order` (empty = identity).
template <class ExecSpace>
OrderCost order_cost_on(const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
                        const View1<const int, typename ExecSpace::memory_space>& order, const Options& options) {
  using Mem = typename ExecSpace::memory_space;
  const RowRoles<Mem> roles = partition_on(exec, A, order, options);
  OrderCost c;
  c.windows = roles.num_windows();
  c.tiles =
      window_tiles_on(exec, A, ListedWindows<Mem>{roles.window_rows}, c.windows, long_window_nnz(exec, options, A.nnz))
          .first;
  c.residual_rows = static_cast<int64_t>(roles.res_rows.extent(0));
  c.residual_nnz = residual_nnz_on(exec, A, roles);
  return c;
}

/// MinHashTrialModel on ExecSpace: the H100's bounds on a GPU, none on host spaces (there the trial's
/// cost has not been measured against the multiply's, and kAuto keeps trying MinHash).
template <class ExecSpace>
MinHashTrialModel minhash_trial_model() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
  // Fitted from below on the reorder phases and multiplies of the matrices over 1M nonzeros
  // (perf_tests/results/MODELS.md).
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) return MinHashTrialModel{4e-3, 0.35e-9, 12.8e12};
#endif
  return MinHashTrialModel{};
}

/// A row order on the inspector's space and the policy that made it.
template <class MemorySpace>
struct RowOrderOf {
  Reorder policy = Reorder::kNone;
  View1<const int, MemorySpace> order;                    ///< position -> row; empty = identity
  std::vector<std::pair<Reorder, OrderCost>> considered;  ///< kAuto: each candidate's predicted work
};

/// Reorder::kAuto (see kAutoCandidates): the candidate predicting the least work, if it repays its cost;
/// the given order, without trying MinHash, unless `try_minhash` (minhash_trial_pays).
template <class ExecSpace>
RowOrderOf<typename ExecSpace::memory_space> select_reorder_on(const ExecSpace& exec,
                                                               const SortedCrs<typename ExecSpace::memory_space>& A,
                                                               const Options& options, bool try_minhash) {
  using Mem = typename ExecSpace::memory_space;
  RowOrderOf<Mem> best;
  if (!(options.expected_multiplies >= 0))
    throw std::invalid_argument("rsh::Options: expected_multiplies = " + std::to_string(options.expected_multiplies) +
                                " must be >= 0");
  if (!try_minhash) return best;
  Options partition_only = options;
  partition_only.reorder = Reorder::kNone;
  OrderCost identity = order_cost_on(exec, A, View1<const int, Mem>(), partition_only);
  const View1<const int, Mem> minhash = minhash_order_on(exec, A, options.reorder_options.minhash_label_rounds,
                                                         options.reorder_options.minhash_window_chunk);
  OrderCost hashed = order_cost_on(exec, A, minhash, partition_only);
  // While B fits the cache every order fetches each B row once: the term would only add a constant.
  const int64_t cache_rows = reorder_cache_rows<ExecSpace>(options);
  if (cache_rows > 0 && A.num_cols > cache_rows && A.nnz <= kBRowMissesMaxNnz) {
    identity.b_row_misses = b_row_misses_on(exec, A, View1<const int, Mem>(), cache_rows);
    hashed.b_row_misses = b_row_misses_on(exec, A, minhash, cache_rows);
  }
  best.considered.push_back({Reorder::kNone, identity});
  best.considered.push_back({Reorder::kMinHash, hashed});
  const double gain = identity.cost() > 0 ? 1.0 - hashed.cost() / identity.cost() : 0.0;
  if (gain >= kAutoMinGain && gain * options.expected_multiplies >= kMinHashCostMultiplies) {
    best.policy = Reorder::kMinHash;
    best.order = minhash;
  }
  return best;
}

/// Rows from which Reorder::kAuto looks for a grid (grid_blocks_tried): the staged tiles' rule wants 4 ranges of
/// 32 rows a resident CTA of the H100 (2 CTAs an SM), and a grid of fewer rows would not take them.
constexpr int64_t kGridAutoMinRows = 32768;

/// Whether Reorder::kAuto tries the grid-blocks order first: on Kokkos::Cuda, for 16-bit values (the staged
/// Tensor-Core tiles it is made for) and at least kGridAutoMinRows rows.
template <class ExecSpace>
bool grid_blocks_tried(int64_t num_rows, int value_bytes) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
  return std::is_same<ExecSpace, Kokkos::Cuda>::value && value_bytes == 2 && num_rows >= kGridAutoMinRows;
#else
  (void)num_rows, (void)value_bytes;
  return false;
#endif
}

/// Whether rows in grid blocks go to a CUDA-core plan where the partition is kAuto's to choose: the staged tiles
/// that the order is made for run in CUDA-core plans of 16-bit values, which the partition's models do not know.
inline bool grid_blocks_want_cuda_cores(Reorder applied, int value_bytes) {
  return applied == Reorder::kGridBlocks && value_bytes == 2;
}

/// A grid-blocks row order where A is a grid's operator (policy kGridBlocks); the given order otherwise.
template <class ExecSpace>
RowOrderOf<typename ExecSpace::memory_space> grid_blocks_on(const ExecSpace& exec,
                                                            const SortedCrs<typename ExecSpace::memory_space>& A) {
  RowOrderOf<typename ExecSpace::memory_space> out;
  const GridShape grid = grid_shape_on(exec, A);
  if (grid.found()) out.policy = Reorder::kGridBlocks, out.order = grid_blocks_order_on(exec, grid);
  return out;
}

/// The row order options.reorder asks for, on `exec` (kAuto: select_reorder_on, trying MinHash where its
/// trial can pay for multiplies of B values of `value_bytes` bytes; 0: not known, MinHash is tried).
template <class ExecSpace>
RowOrderOf<typename ExecSpace::memory_space> row_order_on(const ExecSpace& exec,
                                                          const SortedCrs<typename ExecSpace::memory_space>& A,
                                                          const Options& options, int value_bytes) {
  using Mem = typename ExecSpace::memory_space;
  RowOrderOf<Mem> out;
  switch (options.reorder) {
    case Reorder::kNone:
      return out;
    case Reorder::kMinHash:
      out.policy = Reorder::kMinHash;
      out.order = minhash_order_on(exec, A, options.reorder_options.minhash_label_rounds,
                                   options.reorder_options.minhash_window_chunk);
      return out;
    case Reorder::kGridBlocks:
      return grid_blocks_on(exec, A);
    case Reorder::kAuto:
      if (grid_blocks_tried<ExecSpace>(A.num_rows, value_bytes)) {
        RowOrderOf<Mem> grid = grid_blocks_on(exec, A);
        if (grid.policy == Reorder::kGridBlocks) return grid;
      }
      return select_reorder_on(exec, A, options,
                               minhash_trial_pays(minhash_trial_model<ExecSpace>(), A.nnz, model_num_vectors(options),
                                                  value_bytes, options.expected_multiplies));
    default:
      break;
  }
  HostCrs host;  // A's pattern on the host, for the host reorderings
  host.num_rows = A.num_rows, host.num_cols = A.num_cols;
  const auto row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_map);
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.entries);
  host.row_map.assign(row_map.data(), row_map.data() + row_map.extent(0));
  host.entries.assign(entries.data(), entries.data() + entries.extent(0));
  host.values.assign(host.entries.size(), 1.0);
  const std::vector<int> host_order = row_order(host, options);
  out.policy = host_order.empty() ? Reorder::kNone : options.reorder;  // Locality may keep the given order
  const auto order = uninitialized_view<int>(exec, "rsh::order", host_order.size());
  Kokkos::deep_copy(order, HostArray<const int>(host_order.data(), host_order.size()));
  out.order = order;
  return out;
}

}  // namespace impl
}  // namespace rsh
