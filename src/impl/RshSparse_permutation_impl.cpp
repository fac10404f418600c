#include "impl/RshSparse_permutation_impl.hpp"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_candidate_table.hpp"
#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {
namespace {

std::vector<int64_t> row_loads(const HostCrs& A) {
  std::vector<int64_t> load(A.num_rows);
  for (int64_t r = 0; r < A.num_rows; ++r) load[r] = A.row_map[r + 1] - A.row_map[r];
  return load;
}

/// Rows by decreasing load, ties by row id (a stable, platform-independent order).
std::vector<int> by_decreasing_load(const std::vector<int64_t>& load) {
  std::vector<int> rows(load.size());
  std::iota(rows.begin(), rows.end(), 0);
  std::stable_sort(rows.begin(), rows.end(), [&](int a, int b) { return load[a] > load[b]; });
  return rows;
}

// ---- Load-balancing permutations -------------------------------------------

/// Flipped sort: each CTA's 64 rows of the sorted order are dealt to its 8
/// windows like cards, the direction flipped every round, so no window
/// always gets the heaviest row of a round.
std::vector<int> flipped_sort(const std::vector<int64_t>& load) {
  const std::vector<int> sorted = by_decreasing_load(load);
  const int n = static_cast<int>(sorted.size()), cta_rows = kWindowRows * kWindowsPerCta;
  std::vector<int> order;
  order.reserve(n);
  std::vector<std::vector<int>> windows;
  for (int begin = 0; begin < n; begin += cta_rows) {
    const int m = std::min(cta_rows, n - begin), nw = (m + kWindowRows - 1) / kWindowRows;
    windows.assign(nw, {});
    for (int k = 0; k < m; ++k) {
      const int round = k / nw, idx = k % nw;
      windows[round % 2 == 0 ? idx : nw - 1 - idx].push_back(sorted[begin + k]);
    }
    for (const auto& w : windows) order.insert(order.end(), w.begin(), w.end());
  }
  return order;
}

/// LPT sort: rows by decreasing load, each to the window with the least
/// load so far that still has room, which minimises the heaviest window.
std::vector<int> lpt_sort(const std::vector<int64_t>& load) {
  const int n = static_cast<int>(load.size());
  const int num_windows = (n + kWindowRows - 1) / kWindowRows;
  std::vector<std::vector<int>> windows(num_windows);
  using Slot = std::pair<int64_t, int>;  // (load so far, window)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<Slot>> lightest;
  for (int w = 0; w < num_windows; ++w) lightest.push({0, w});
  for (int r : by_decreasing_load(load)) {
    const Slot s = lightest.top();
    lightest.pop();
    windows[s.second].push_back(r);
    const int capacity = std::min(kWindowRows, n - kWindowRows * s.second);
    if (static_cast<int>(windows[s.second].size()) < capacity) lightest.push({s.first + load[r], s.second});
  }
  std::vector<int> order;
  order.reserve(n);
  for (const auto& w : windows) order.insert(order.end(), w.begin(), w.end());
  return order;
}

// ---- Cache-aware (Hamming) permutations --------------------------------------

/// Row bit masks as sorted lists of column blocks, an inverted index from
/// blocks to rows that drops rows once placed, and the nearest-row query.
class MaskIndex {
 public:
  MaskIndex(const HostCrs& A, const ReorderOptions& o) : max_postings_(o.max_postings), max_scan_(o.max_scan) {
    const int n = static_cast<int>(A.num_rows);
    const int64_t num_blocks = (A.num_cols + o.mask_block_columns - 1) / o.mask_block_columns;
    mask_ptr_.assign(n + 1, 0);
    for (int r = 0; r < n; ++r) {
      int prev = -1;
      for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
        const int b = A.entries[k] / o.mask_block_columns;
        if (b != prev) masks_.push_back(b), prev = b;  // sorted columns: blocks sorted too
      }
      mask_ptr_[r + 1] = static_cast<int64_t>(masks_.size());
    }
    post_begin_.assign(num_blocks + 1, 0);
    for (int b : masks_) ++post_begin_[b + 1];
    std::partial_sum(post_begin_.begin(), post_begin_.end(), post_begin_.begin());
    post_end_.assign(post_begin_.begin(), post_begin_.end() - 1);
    postings_.resize(masks_.size());
    for (int r = 0; r < n; ++r)
      for (int64_t k = mask_ptr_[r]; k < mask_ptr_[r + 1]; ++k) postings_[post_end_[masks_[k]]++] = r;
    used_.assign(n, 0);
  }

  int64_t size(int r) const { return mask_ptr_[r + 1] - mask_ptr_[r]; }
  bool used(int r) const { return used_[r] != 0; }
  void take(int r) { used_[r] = 1; }

  /// Hamming distance of two masks: blocks in one but not the other.
  int64_t distance(int a, int b) const {
    int64_t i = mask_ptr_[a], j = mask_ptr_[b], shared = 0;
    while (i < mask_ptr_[a + 1] && j < mask_ptr_[b + 1]) {
      if (masks_[i] == masks_[j])
        ++shared, ++i, ++j;
      else if (masks_[i] < masks_[j])
        ++i;
      else
        ++j;
    }
    return size(a) + size(b) - 2 * shared;
  }

  /// The unused row nearest to `ref` among those `eligible` accepts, ties
  /// broken by `before(u, v)` (u preferred to v). Candidates are the rows
  /// sharing a block with `ref` (at most max_scan postings; blocks of more
  /// than max_postings rows only when nothing else is shared) and
  /// `fallback`, an unused eligible row the caller names (-1: none).
  template <class Eligible, class Before>
  int nearest(int ref, int fallback, Eligible&& eligible, Before&& before) {
    int best = -1;
    int64_t best_d = 0;
    auto consider = [&](int u, int64_t d) {
      if (best < 0 || d < best_d || (d == best_d && u != best && before(u, best))) best = u, best_d = d;
    };
    for (int pass = 0; pass < 2 && best < 0; ++pass) {
      auto in_pass = [&](int b) { return (post_end_[b] - post_begin_[b] > max_postings_) == (pass == 1); };
      int64_t expected = 0;  // the table must hold every row the scan may add
      for (int64_t k = mask_ptr_[ref]; k < mask_ptr_[ref + 1]; ++k)
        if (in_pass(masks_[k]))
          expected = std::min(max_scan_, expected + post_end_[masks_[k]] - post_begin_[masks_[k]]);
      table_.reset(expected);
      int64_t scanned = 0;
      for (int64_t k = mask_ptr_[ref]; k < mask_ptr_[ref + 1]; ++k)
        if (in_pass(masks_[k])) scanned += scan_block(masks_[k], max_scan_ - scanned);
      table_.for_each([&](int u, float shared, float) {
        if (eligible(u)) consider(u, size(ref) + size(u) - 2 * static_cast<int64_t>(shared));
      });
    }
    if (fallback >= 0 && fallback != best) consider(fallback, distance(ref, fallback));
    return best;
  }

 private:
  /// Adds up to `budget` unused rows of block b to the table; placed rows
  /// found on the way are dropped from the list (each once over the run).
  int64_t scan_block(int b, int64_t budget) {
    int64_t read = post_begin_[b], kept = read, end = post_end_[b], visited = 0;
    while (read < end && visited < budget) {
      const int u = postings_[read++];
      if (used_[u]) continue;
      postings_[kept++] = u;
      ++visited;
      table_.add(u, 1.f);
    }
    // Close the gap [kept, read) with the unscanned tail.
    const int64_t gap = read - kept, tail = end - read, moved = std::min(gap, tail);
    std::copy(postings_.begin() + end - moved, postings_.begin() + end, postings_.begin() + kept);
    post_end_[b] = tail <= gap ? kept + tail : end - gap;
    return visited;
  }

  int64_t max_postings_, max_scan_;
  std::vector<int64_t> mask_ptr_;
  std::vector<int> masks_;
  std::vector<int64_t> post_begin_, post_end_;
  std::vector<int> postings_;
  std::vector<char> used_;
  CandidateTable table_;
};

/// Walks a list of rows, returning the first not yet placed.
class NextUnused {
 public:
  NextUnused(std::vector<int> rows, const MaskIndex& ix) : rows_(std::move(rows)), ix_(ix) {}
  int get() {
    while (pos_ < rows_.size() && ix_.used(rows_[pos_])) ++pos_;
    return pos_ < rows_.size() ? rows_[pos_] : -1;
  }

 private:
  std::vector<int> rows_;
  size_t pos_ = 0;
  const MaskIndex& ix_;
};

/// Warp-aware (each window seeded with the lightest unplaced row) or
/// CTA-aware (one chain over all rows) nearest-mask ordering; `tie(u, v,
/// order, masks)` decides between equally near rows.
template <class Tie>
std::vector<int> hamming_chain(const HostCrs& A, const ReorderOptions& o, bool reseed_windows, Tie&& tie) {
  const int n = static_cast<int>(A.num_rows);
  const std::vector<int64_t> load = row_loads(A);
  MaskIndex ix(A, o);
  std::vector<int> lightest(n);
  std::iota(lightest.begin(), lightest.end(), 0);
  std::stable_sort(lightest.begin(), lightest.end(), [&](int a, int b) { return load[a] < load[b]; });
  std::vector<int> smallest(n);
  std::iota(smallest.begin(), smallest.end(), 0);
  std::stable_sort(smallest.begin(), smallest.end(), [&](int a, int b) { return ix.size(a) < ix.size(b); });
  NextUnused next_light(std::move(lightest), ix), next_small(std::move(smallest), ix);
  std::vector<int> order;
  order.reserve(n);
  while (static_cast<int>(order.size()) < n) {
    int r;
    if (order.empty() || (reseed_windows && order.size() % kWindowRows == 0)) {
      r = next_light.get();
    } else {
      r = ix.nearest(
          order.back(), next_small.get(), [](int) { return true; }, [&](int u, int v) { return tie(u, v, order, ix); });
    }
    ix.take(r);
    order.push_back(r);
  }
  return order;
}

/// Hybrid-1: plain sort, rows of equal load chained by nearest mask.
std::vector<int> hybrid1(const HostCrs& A, const ReorderOptions& o) {
  const std::vector<int64_t> load = row_loads(A);
  const std::vector<int> sorted = by_decreasing_load(load);
  MaskIndex ix(A, o);
  std::vector<int> order;
  order.reserve(sorted.size());
  for (size_t begin = 0; begin < sorted.size();) {
    size_t end = begin;
    while (end < sorted.size() && load[sorted[end]] == load[sorted[begin]]) ++end;
    const int64_t group_load = load[sorted[begin]];
    NextUnused next(std::vector<int>(sorted.begin() + begin, sorted.begin() + end), ix);
    for (size_t i = begin; i < end; ++i) {
      const int r = order.empty() ? next.get()
                                  : ix.nearest(
                                        order.back(), next.get(), [&](int u) { return load[u] == group_load; },
                                        [](int u, int v) { return u < v; });
      ix.take(r);
      order.push_back(r);
    }
    begin = end;
  }
  return order;
}

}  // namespace

std::vector<int> permutation_order(const HostCrs& A, Reorder policy, const ReorderOptions& o) {
  if (o.mask_block_columns < 1 || o.max_postings < 1 || o.max_scan < 1)
    throw std::invalid_argument("rsh::ReorderOptions: mask_block_columns = " + std::to_string(o.mask_block_columns) +
                                ", max_postings = " + std::to_string(o.max_postings) +
                                ", max_scan = " + std::to_string(o.max_scan) + " must be >= 1");
  const std::vector<int64_t> load = row_loads(A);
  // Ties between equally near rows: the row id (plain), the load closest to
  // the previous row's (2.1, 2.3), or the nearest to the window's first row (2.2).
  auto by_id = [](int u, int v, const std::vector<int>&, const MaskIndex&) { return u < v; };
  auto by_load = [&](int u, int v, const std::vector<int>& order, const MaskIndex&) {
    const int64_t du = std::llabs(load[u] - load[order.back()]), dv = std::llabs(load[v] - load[order.back()]);
    return du != dv ? du < dv : u < v;
  };
  switch (policy) {
    case Reorder::kPlainSort:
      return by_decreasing_load(load);
    case Reorder::kFlippedSort:
      return flipped_sort(load);
    case Reorder::kLptSort:
      return lpt_sort(load);
    case Reorder::kWarpAware:
      return hamming_chain(A, o, true, by_id);
    case Reorder::kCtaAware:
      return hamming_chain(A, o, false, by_id);
    case Reorder::kHybrid1:
      return hybrid1(A, o);
    case Reorder::kHybrid2_1:
      return hamming_chain(A, o, false, by_load);
    case Reorder::kHybrid2_2:
      return hamming_chain(A, o, false, [](int u, int v, const std::vector<int>& order, const MaskIndex& masks) {
        const size_t pos = order.size();
        const size_t first = pos % kWindowRows ? pos - pos % kWindowRows : pos - std::min<size_t>(pos, kWindowRows);
        const int64_t du = masks.distance(u, order[first]), dv = masks.distance(v, order[first]);
        return du != dv ? du < dv : u < v;
      });
    case Reorder::kHybrid2_3:
      return hamming_chain(A, o, true, by_load);
    default:
      throw std::invalid_argument(std::string("rsh::impl::permutation_order: ") + reorder_name(policy) +
                                  " is not a row-permutation policy");
  }
}

}  // namespace impl
}  // namespace rsh
