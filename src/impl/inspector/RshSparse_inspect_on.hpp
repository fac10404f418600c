#pragma once
// The inspector pipeline on an execution space, where A's views live:
// check + sort -> statistics -> (reordering) -> partition -> RS-Tile +
// residual -> schedule, with the time of each phase. Only the host
// reorderings (Locality, the load and mask permutations) read a host copy of
// A's pattern.
#include <iostream>
#include <string>

#include "impl/inspector/RshSparse_inspector_views.hpp"
#include "impl/inspector/RshSparse_nonzero_partition_on.hpp"
#include "impl/inspector/RshSparse_partition_cost_on.hpp"
#include "impl/inspector/RshSparse_reorder_on.hpp"
#include "impl/inspector/RshSparse_rstile_on.hpp"
#include "impl/inspector/RshSparse_schedule_on.hpp"
#include "impl/inspector/RshSparse_signature_on.hpp"
#include "impl/inspector/RshSparse_stats_on.hpp"

namespace rsh {
namespace impl {

/// Seconds of the host in each phase of an inspection. A phase's device work counts where the phase waits
/// for a result (most read sizes back) and under Options::report_progress, which fences every phase.
struct PhaseTimes {
  double convert = 0, stats = 0, reorder = 0, partition = 0, build = 0, schedule = 0, upload = 0;
  std::string to_string() const;
};

template <class MemorySpace>
struct InspectionOf {
  RsTilePattern<MemorySpace> pattern;
  MatrixStats stats;
  PhaseTimes times;
  uint64_t signature = 0;                           ///< hash of the user's row_map and entries
  Reorder reorder = Reorder::kNone;                 ///< the row order applied (kAuto's choice when asked for kAuto)
  Partition partition = Partition::kRowStructured;  ///< the partition applied (kAuto's choice when asked for kAuto)
};

/// Validates A (throws std::invalid_argument naming `who`), sorts its rows and runs the pipeline on
/// `exec`; the format lands in exec's memory space. `value_bytes` with Options::allow_tf32
/// (arithmetic_of) selects the cost model of Partition::kAuto.
template <class ExecSpace, class RowMap, class Entries>
InspectionOf<typename ExecSpace::memory_space> inspect_on(const ExecSpace& exec, int64_t num_rows, int64_t num_cols,
                                                          const RowMap& row_map, const Entries& entries,
                                                          int64_t num_values, const Options& options, const char* who,
                                                          int value_bytes) {
  using Mem = typename ExecSpace::memory_space;
  const ProfilingRegion region("rsh::inspect");  // what Kokkos Tools (scripts/kokkos_timeline.cpp) see of it
  // The phases' temporaries come from one arena, freed when the inspection ends; `out` holds none of them.
  const InspectorScratch<ExecSpace> scratch(exec, static_cast<int64_t>(entries.extent(0)));
  // The format's views from the backend's pool, where it has one; the format holds them.
  const PooledViewScope<ExecSpace> pooled(exec);
  InspectionOf<Mem> out;
  Kokkos::Timer timer;
  // Ends a phase: adds its time (phases may run twice), reports it when asked, restarts the clock. Only a
  // report waits for the phase's device work: a fence at every phase would keep the device's queue empty
  // while the host launches the next phase (PhaseTimes).
  auto phase = [&](const char* name, double& seconds) {
    if (options.report_progress) exec.fence();
    seconds += timer.seconds();
    if (options.report_progress)
      std::clog << "rsh: inspect " << num_rows << " x " << num_cols << " (" << entries.extent(0) << " nnz) on "
                << ExecSpace::name() << ": " << name << " done in " << 1e3 * seconds << " ms" << std::endl;
    timer.reset();
  };
  check_tuning(options);
  if (static_cast<int64_t>(entries.extent(0)) > Experimental::kMaxPanelNnz)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(entries.extent(0)) +
                                " nonzeros: one format holds at most 2^30 (its offsets are 32-bit); a handle "
                                "analyses a larger matrix as row panels");
  const SortedCrs<Mem> A = sorted_crs(exec, num_rows, num_cols, row_map, entries, num_values, who);
  out.signature = A.signature;
  phase("validate + sort", out.times.convert);
  out.stats = stats_on(exec, A, long_window_nnz(exec, options, A.nnz), options.window_statistics);
  phase("statistics", out.times.stats);

  const RowOrderOf<Mem> ordered = row_order_on(exec, A, options, value_bytes);
  const View1<const int, Mem> order = ordered.order;
  out.reorder = ordered.policy;
  phase("reorder", out.times.reorder);

  const Arithmetic arith = arithmetic_of(value_bytes, options);
  auto build = [&](Partition partition, int piece_nnz) {
    Options o = options;
    o.partition = partition;
    // BalancedBlocks: a work item a group of tiles (BRP's TC Block Group), unless items may not split.
    if (partition == Partition::kBalancedBlocks && !options.deterministic &&
        o.tuning.max_tiles_per_item > kBalancedGroupTiles)
      o.tuning.max_tiles_per_item = kBalancedGroupTiles;
    // (DenseBlocks: every row residual. The statistics' count of non-empty rows spares that a wait.)
    const RowRoles<Mem> roles = assigns_nonzeros(partition)
                                    ? nonzero_partition_on(exec, A, order, o)
                                    : partition_on(exec, A, order, o, out.stats.num_rows - out.stats.empty_rows);
    phase("partition", out.times.partition);
    RsTilePattern<Mem> p = rstile_on(exec, A, roles, long_window_nnz(exec, options, A.nnz));
    phase("RS-Tile build", out.times.build);
    schedule_on(exec, p, o, piece_nnz, value_bytes);
    p.dense_blocks = partition == Partition::kDenseBlocks;
    phase("schedule", out.times.schedule);
    return p;
  };
  auto piece_for = [&](Partition partition) {
    return residual_piece_nnz_on(exec, A.row_map, num_rows, options, partition, arith);
  };
  if (options.partition != Partition::kAuto || grid_blocks_want_cuda_cores(out.reorder, value_bytes)) {
    out.partition = options.partition != Partition::kAuto ? options.partition : Partition::kCudaCoreOnly;
    out.pattern = build(out.partition, piece_for(out.partition));
    out.pattern.storage = pooled.storage();
    return out;
  }
  // kAuto counts RowStructured's Tensor-Core terms without building it (unless its choice does without
  // them), then builds the partition it chooses.
  const PartitionCost cost =
      choice_needs_row_structured(A.nnz)
          ? partition_cost_counted_on(exec, A, order, options, arith, out.stats.max_row_nnz)
          : partition_cost_on(exec, num_rows, num_cols, A.row_map, RsTilePattern<Mem>{}, options, arith);
  phase("partition", out.times.partition);
  out.partition = cost.choose(arith, options.plan_selector, model_num_vectors(options));
  // CudaCoreOnly takes the piece length the cost already chose (residual_piece_nnz would search again).
  const int piece = out.partition == Partition::kCudaCoreOnly ? cost.cuda.piece_nnz : piece_for(out.partition);
  out.pattern = build(out.partition, piece);
  out.pattern.storage = pooled.storage();
  return out;
}

}  // namespace impl
}  // namespace rsh
