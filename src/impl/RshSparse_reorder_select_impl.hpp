#pragma once
// Reorder::kAuto: the handle's per-matrix choice of row order by a cost
// model with the reordering's own cost counted (DESIGN section 5; the
// learned predictor comes later). The choice itself runs on the inspector's
// execution space (select_reorder_on); these are its host entry points.
#include <cstdint>
#include <utility>
#include <vector>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {
namespace impl {

/// What one row order gives under the partition of the options, and its
/// predicted kernel cost in dense rows moved: 8 B rows per tile, 8 C rows
/// per window, and per residual nonzero one B row weighted 2 (the CUDA-core
/// path moves a whole B row for one nonzero and ran at about half the
/// Tensor-Core path's rate on the H100 suite), plus one C row per residual row,
/// plus each B row fetched from memory past the cache once more (b_row_misses,
/// counted where B outgrows the cache: a fetch from memory costs about a load
/// from the cache again, as fitted on the generated suite's MinHash gains).
struct OrderCost {
  int64_t tiles = 0, windows = 0, residual_rows = 0, residual_nnz = 0, b_row_misses = 0;
  double cost() const {
    return 8.0 * tiles + 8.0 * windows + 2.0 * residual_nnz + 1.0 * residual_rows + 1.0 * b_row_misses;
  }
};

/// Partitions A in `order` (empty = identity) and counts what the kernels would do.
OrderCost order_cost(const HostCrs& A, const Options& options, const std::vector<int>& order);

/// The B rows A's rows fetch in `order` (empty = identity) past a cache of `cache_rows` B rows
/// (b_row_misses_on).
int64_t b_row_misses(const HostCrs& A, const std::vector<int>& order, int64_t cache_rows);

/// Policies kAuto tries: the given order and MinHash, the reordering that costs a few multiplies. Locality
/// (host, thousands of multiplies on large graphs) is never chosen for the user: it is asked for by name.
constexpr Reorder kAutoCandidates[] = {Reorder::kNone, Reorder::kMinHash};
/// MinHash replaces the given order only if it predicts at least this much less work (the work model
/// leaves out how windows share B rows with their neighbours, which a given order may do well: on a
/// block-diagonal graph it predicted 5% less work for a MinHash order that ran slower)...
constexpr double kAutoMinGain = 0.06;
/// ...and the work it saves over Options::expected_multiplies calls repays its cost, counted in multiplies
/// of the unreordered plan: gain x expected_multiplies >= kMinHashCostMultiplies.
constexpr double kMinHashCostMultiplies = 4.0;
/// The B-row term (b_row_misses_on) sorts a key a nonzero, about 24 bytes a nonzero on a GPU while it runs:
/// past this many nonzeros kAuto weighs the tile-count model alone, so that analysing a format near its
/// 2^30-nonzero limit beside a matrix that fills the device does not run out of memory.
constexpr int64_t kBRowMissesMaxNnz = int64_t(1) << 28;

struct ReorderChoice {
  Reorder policy = Reorder::kNone;
  std::vector<int> order;  ///< empty = identity
  std::vector<std::pair<Reorder, OrderCost>> considered;
};

/// Runs each of kAutoCandidates and keeps the lowest predicted cost.
ReorderChoice select_reorder(const HostCrs& A, const Options& options);

}  // namespace impl
}  // namespace rsh
