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
/// Whether kAuto tries MinHash at all. The trial (the order, then both orders' work counts) has a cost of
/// its own that a fixed count of multiplies misjudges: on a GPU it is milliseconds of launches and
/// read-backs even on a small matrix, where a multiply takes tens of microseconds (hundreds of multiplies).
/// So where a space has a trial model, kAuto tries MinHash only if the largest gain a reordering could
/// bring over Options::expected_multiplies calls, at the fastest a multiply could run, repays the trial:
///   kAutoMaxGain x expected_multiplies x multiply_floor >= trial.
/// Both sides are bounds fitted on the H100 (perf_tests/results/MODELS.md): the trial's time from below
/// (a fixed part plus a part a nonzero), the multiply's from below (B's rows a nonzero brings, gathered at
/// the fastest rate the kernels reach, where neighbouring rows share their B rows in L1).
struct MinHashTrialModel {
  double fixed_seconds = 0;            ///< 0: no model (host spaces): kAuto always tries MinHash
  double seconds_per_nnz = 0;          ///< the trial's part a nonzero of A
  double gather_bytes_per_second = 0;  ///< the multiply's fastest rate in B bytes gathered
  bool applies() const { return fixed_seconds > 0; }
};
/// The largest share of a multiply's time a reordering is expected to save: MinHash halved it on a point
/// cloud in random order, the largest gain measured.
constexpr double kAutoMaxGain = 0.6;

/// Whether the MinHash trial can pay for a matrix of `nnz` nonzeros multiplied by `num_vectors` columns of B
/// of `value_bytes` bytes (0: not known), `expected_multiplies` times (see MinHashTrialModel).
inline bool minhash_trial_pays(const MinHashTrialModel& model, int64_t nnz, int num_vectors, int value_bytes,
                               double expected_multiplies) {
  if (!model.applies() || value_bytes <= 0) return true;
  const double multiply_floor = static_cast<double>(nnz) * num_vectors * value_bytes / model.gather_bytes_per_second;
  const double trial = model.fixed_seconds + model.seconds_per_nnz * static_cast<double>(nnz);
  return kAutoMaxGain * expected_multiplies * multiply_floor >= trial;
}
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
