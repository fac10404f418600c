#include "impl/RshSparse_inspector.hpp"

#include <Kokkos_Core.hpp>
#include <iostream>
#include <sstream>

#include "impl/RshSparse_partition_impl.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/RshSparse_reorder_impl.hpp"
#include "impl/RshSparse_reorder_select_impl.hpp"

namespace rsh {
namespace impl {

std::string PhaseTimes::to_string() const {
  std::ostringstream os;
  os << "inspector phases [ms]: convert " << 1e3 * convert << ", stats " << 1e3 * stats << ", reorder " << 1e3 * reorder
     << ", partition " << 1e3 * partition << ", build " << 1e3 * build << ", schedule " << 1e3 * schedule << ", upload "
     << 1e3 * upload << "\n";
  return os.str();
}

uint64_t pattern_signature(const HostCrs& A) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  auto mix = [&h](uint64_t v) {
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ULL;
  };
  mix(A.num_rows), mix(A.num_cols);
  for (int64_t v : A.row_map) mix(static_cast<uint64_t>(v));
  for (int v : A.entries) mix(static_cast<uint32_t>(v));
  return h;
}

namespace {

/// Partition, RS-Tile build and schedule (residual pieces of piece_nnz) of
/// `ordered` (A's rows in `order`, empty = identity) under `partition`; rows
/// named by their ids in A.
template <class Phase>
HostPattern build_pattern(const HostCrs& ordered, const std::vector<int>& order, const std::vector<int64_t>& source,
                          Options options, Partition partition, int piece_nnz, PhaseTimes& times, Phase&& phase) {
  options.partition = partition;
  const RowPartition rows = partition_rows(ordered, options, {});  // DenseBlocks: all rows residual
  phase("partition", times.partition);
  HostPattern p = build_rstile(ordered, rows, source);
  if (!order.empty()) {
    for (size_t i = 0; i < p.window_rows.extent(0); ++i)
      if (p.window_rows(i) >= 0) p.window_rows(i) = order[p.window_rows(i)];
    for (size_t j = 0; j < p.res_rows.extent(0); ++j) p.res_rows(j) = order[p.res_rows(j)];
  }
  phase("RS-Tile build", times.build);
  build_schedule(p, options, piece_nnz);
  p.dense_blocks = partition == Partition::kDenseBlocks;
  phase("schedule", times.schedule);
  return p;
}

}  // namespace

Inspection inspect(HostCrs A, const Options& options, const char* who, int value_bytes) {
  Inspection out;
  Kokkos::Timer timer;
  // Ends a phase: adds its time (phases may run twice), reports it when asked, restarts the clock.
  auto phase = [&](const char* name, double& seconds) {
    seconds += timer.seconds();
    if (options.report_progress)
      std::clog << "rsh: inspect " << A.num_rows << " x " << A.num_cols << " (" << A.nnz() << " nnz): " << name
                << " done in " << 1e3 * seconds << " ms" << std::endl;
    timer.reset();
  };
  validate_crs(A, who);
  check_item_bounds(options);
  out.signature = pattern_signature(A);
  std::vector<int64_t> source = sort_rows(A);
  phase("validate + sort", out.times.convert);
  out.stats = compute_stats(A);
  phase("statistics", out.times.stats);
  std::vector<int> order;
  if (options.reorder == Reorder::kAuto) {
    ReorderChoice choice = select_reorder(A, options);
    out.reorder = choice.policy;
    order = std::move(choice.order);
  } else {
    order = row_order(A, options);
    out.reorder = order.empty() ? Reorder::kNone : options.reorder;  // Locality may keep the given order
  }
  phase("reorder", out.times.reorder);
  // Partition and build on a copy with the rows in order, so that both read
  // A front to back (on a scattered order they missed the cache on every
  // row), then name the rows by their ids in A again.
  const HostCrs permuted = order.empty() ? HostCrs() : permute_rows(A, order, source);
  const HostCrs& ordered = order.empty() ? A : permuted;
  const bool choose = options.partition == Partition::kAuto;
  const Arithmetic arith = arithmetic_of(value_bytes, options);
  out.partition = choose ? Partition::kRowStructured : options.partition;
  // kAuto builds RowStructured first for the cost's Tensor-Core terms, unless its choice does without them
  // (the RS-Tile build is seconds on the largest matrices).
  if (!choose || choice_needs_row_structured(ordered.nnz(), arith))
    out.pattern = build_pattern(ordered, order, source, options, out.partition,
                                residual_piece_nnz(ordered, options, out.partition, arith), out.times, phase);
  if (choose) {
    const PartitionCost cost = partition_cost(ordered, out.pattern, options, arith);
    out.partition = cost.choose(arith);
    // CudaCoreOnly takes the piece length the cost already chose (residual_piece_nnz would search again).
    const int piece = out.partition == Partition::kCudaCoreOnly
                          ? cost.cuda.piece_nnz
                          : residual_piece_nnz(ordered, options, out.partition, arith);
    if (out.partition != Partition::kRowStructured)
      out.pattern = build_pattern(ordered, order, source, options, out.partition, piece, out.times, phase);
  }
  return out;
}

std::vector<double> scatter_values(const HostPattern& p, const std::vector<double>& values) {
  const int64_t tile_nnz = p.num_tiles() ? p.tile_val_offset(p.num_tiles()) : 0;
  std::vector<double> slots(tile_nnz + p.res_cols.extent(0), 0.0);
  for (size_t k = 0; k < values.size(); ++k) slots[p.value_dest(k)] += values[k];  // duplicates summed
  return slots;
}

}  // namespace impl
}  // namespace rsh
