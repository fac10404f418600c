#include "impl/RshSparse_reorder_impl.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_candidate_table.hpp"
#include "impl/RshSparse_permutation_impl.hpp"
#include "impl/RshSparse_progress.hpp"
#include "impl/RshSparse_reorder_select_impl.hpp"
#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_grid_order_on.hpp"
#include "impl/inspector/RshSparse_minhash_order_on.hpp"

namespace rsh {
namespace impl {
namespace {

/// Column weights d_j^-alpha, row weights (sum over the row's columns) and
/// the inverted index (rows of each column, each with its row weight so
/// that the candidate scan reads postings only, not a per-row array). A
/// column's posting range and weight share one 16-byte record: one cache
/// miss per column on matrices without locality.
struct ColumnIndex {
  struct Column {
    int64_t begin = 0;  ///< first posting
    int degree = 0;     ///< rows holding the column
    float weight = 0;   ///< d^-alpha
  };
  struct Posting {
    int row;
    float row_weight;
  };
  std::vector<Column> cols;
  std::vector<double> row_weight;
  std::vector<Posting> postings;
};

ColumnIndex build_column_index(const HostCrs& A, double alpha) {
  // Without locality every column record is a cache miss: request the
  // records of entries kAhead positions ahead (rows are short and contiguous).
  constexpr int64_t kAhead = 32;
  const int64_t nnz = A.nnz();
  ColumnIndex ix;
  ix.cols.resize(A.num_cols);
  for (int64_t r = 0; r < A.num_rows; ++r) {
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
      if (k + kAhead < nnz) __builtin_prefetch(&ix.cols[A.entries[k + kAhead]], 1);
    for_each_column(A, r, [&](int j) { ++ix.cols[j].degree; });
  }
  int64_t total = 0;
  for (auto& c : ix.cols) {
    total += c.degree;
    c.begin = total;  // the end for now: filled backwards below
    c.weight = c.degree ? static_cast<float>(std::pow(double(c.degree), -alpha)) : 0.f;
  }
  ix.row_weight.assign(A.num_rows, 0.0);
  ix.postings.resize(total);
  // Rows last to first, each column's postings back to front: ascending rows,
  // and `begin` ends where it belongs without a separate fill cursor.
  for (int64_t r = A.num_rows - 1; r >= 0; --r) {
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
      if (k >= kAhead) __builtin_prefetch(&ix.cols[A.entries[k - kAhead]], 1);
    for_each_column(A, r, [&](int j) { ix.row_weight[r] += ix.cols[j].weight; });
    const ColumnIndex::Posting post{static_cast<int>(r), static_cast<float>(ix.row_weight[r])};
    for_each_column(A, r, [&](int j) { ix.postings[--ix.cols[j].begin] = post; });
  }
  return ix;
}

/// The k most similar candidates seen so far, most similar first (ties:
/// lower row id), kept by insertion: most candidates fail the first compare.
class TopNeighbours {
 public:
  explicit TopNeighbours(int k) : k_(k) { items_.reserve(k + 1); }
  void clear() { items_.clear(); }
  void offer(float sim, int row) {
    auto before = [](const std::pair<float, int>& x, const std::pair<float, int>& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    };
    const std::pair<float, int> item{sim, row};
    if (static_cast<int>(items_.size()) == k_ && !before(item, items_.back())) return;
    if (static_cast<int>(items_.size()) == k_) items_.pop_back();
    items_.insert(std::upper_bound(items_.begin(), items_.end(), item, before), item);
  }
  const std::vector<std::pair<float, int>>& items() const { return items_; }

 private:
  int k_;
  std::vector<std::pair<float, int>> items_;
};

struct Edge {
  float sim;
  int a, b;
};

/// The kNN graph: similarity edges (a -> b and b -> a may both appear; the
/// spanning forest skips repeats) and each row's most similar row (-1: none).
struct KnnGraph {
  std::vector<Edge> edges;
  std::vector<int> nearest;
};

/// The most similar rows of one row by weighted Jaccard; candidates are rows
/// sharing a column, found through the inverted index with bounded work:
/// every holder of an ordinary column (rarest columns first, up to max_scan
/// postings) and, of each hub column, the hub_window holders nearest in row id;
/// where that counted only part of the shared columns, the `rescore` likeliest
/// candidates are ranked by their exact similarity.
class NeighbourSearch {
 public:
  NeighbourSearch(const HostCrs& A, const ColumnIndex& ix, const ReorderOptions& o)
      : A_(A), ix_(ix), o_(o), best_(o.neighbours), likely_(o.rescore), mark_(A.num_cols, -1) {}

  /// The top `neighbours` of row r, most similar first.
  const std::vector<std::pair<float, int>>& find(int r) {
    cols_.clear();
    for_each_column(A_, r, [&](int j) { cols_.push_back(j); });
    // Rarest columns first: they name the most specific neighbours.
    std::sort(cols_.begin(), cols_.end(), [&](int x, int y) { return ix_.cols[x].degree < ix_.cols[y].degree; });
    auto is_hub = [&](int j) { return ix_.cols[j].degree > o_.max_postings; };
    int64_t expected = 0, expected_hub = 0;
    for (int j : cols_)
      is_hub(j) ? expected_hub += std::min(ix_.cols[j].degree, o_.hub_window) : expected += ix_.cols[j].degree;
    candidates_.reset(std::min<int64_t>(o_.max_scan, expected) + std::min<int64_t>(o_.max_scan, expected_hub));
    int64_t scanned = 0, scanned_hub = 0;
    for (int j : cols_) {
      const ColumnIndex::Column& c = ix_.cols[j];
      const ColumnIndex::Posting* first = ix_.postings.data() + c.begin;
      const ColumnIndex::Posting* last = first + c.degree;
      if (is_hub(j)) {
        // The hub_window holders nearest to r in row id (postings ascend by row).
        const int64_t take = std::min<int64_t>({c.degree, o_.hub_window, o_.max_scan - scanned_hub});
        const ColumnIndex::Posting* at =
            std::lower_bound(first, last, r, [](const ColumnIndex::Posting& x, int row) { return x.row < row; });
        first = std::max(first, std::min(at - take / 2, last - take)), last = first + take;
        scanned_hub += take;
      } else {
        last = first + std::min<int64_t>(c.degree, o_.max_scan - scanned);
        scanned += last - first;
      }
      for (const ColumnIndex::Posting* q = first; q < last; ++q)
        if (q->row != r) candidates_.add(q->row, c.weight, q->row_weight);
    }
    best_.clear();
    const float row_weight = static_cast<float>(ix_.row_weight[r]);
    auto jaccard = [&](float inter, float u_weight) {
      const float uni = row_weight + u_weight - inter;
      return uni > 0 ? inter / uni : 0.f;
    };
    if (o_.rescore == 0 || (scanned_hub == 0 && scanned < o_.max_scan)) {  // every shared column was counted
      candidates_.for_each([&](int u, float inter, float u_weight) { best_.offer(jaccard(inter, u_weight), u); });
    } else {
      // The scan counted only some shared columns (hub windows favour rows near in id, a cut scan the
      // rarest columns): the likeliest candidates get their exact similarity.
      likely_.clear();
      candidates_.for_each([&](int u, float inter, float u_weight) { likely_.offer(jaccard(inter, u_weight), u); });
      for (int j : cols_) mark_[j] = r;
      for (const auto& [ignored, u] : likely_.items())
        best_.offer(jaccard(shared_weight(r, u), static_cast<float>(ix_.row_weight[u])), u);
    }
    return best_.items();
  }

 private:
  /// Summed weights of the columns rows r (cols_, marked) and u share: walks
  /// u's columns, or for a much longer u (a hub row) searches them for each of r's.
  float shared_weight(int r, int u) const {
    const int* first = A_.entries.data() + A_.row_map[u];
    const int* last = A_.entries.data() + A_.row_map[u + 1];
    float inter = 0;
    if (last - first <= 8 * int64_t(cols_.size())) {
      for (const int* q = first; q < last; ++q)
        if (mark_[*q] == r && (q == first || q[-1] != *q)) inter += ix_.cols[*q].weight;
    } else {
      for (int j : cols_)
        if (std::binary_search(first, last, j)) inter += ix_.cols[j].weight;
    }
    return inter;
  }

  const HostCrs& A_;
  const ColumnIndex& ix_;
  const ReorderOptions& o_;
  std::vector<int> cols_;
  TopNeighbours best_, likely_;
  CandidateTable candidates_;
  std::vector<int> mark_;  ///< mark_[j] == r: row r holds column j
};

/// Rows locality_order samples before it builds the kNN graph: up to 4096,
/// one in 16 at most (none below 1024 rows, where the graph is cheap anyway).
int64_t paired_samples(int64_t rows) {
  return rows < 1024 ? 0 : std::min<int64_t>(4096, rows / 16);
}

/// Columns rows a and b share, counted up to `limit` (sorted rows, duplicates adjacent).
int64_t shared_columns(const HostCrs& A, int a, int b, int64_t limit) {
  int64_t i = A.row_map[a], j = A.row_map[b], shared = 0;
  while (shared < limit && i < A.row_map[a + 1] && j < A.row_map[b + 1]) {
    const int x = A.entries[i], y = A.entries[j];
    shared += x == y;
    if (x <= y)
      while (i < A.row_map[a + 1] && A.entries[i] == x) ++i;
    if (y <= x)
      while (j < A.row_map[b + 1] && A.entries[j] == y) ++j;
  }
  return shared;
}

/// Of about `samples` non-empty rows spread over A, the fraction whose most
/// similar row shares two columns or more with them.
double sampled_paired_fraction(const HostCrs& A, NeighbourSearch& search, int64_t samples) {
  const int64_t stride = std::max<int64_t>(1, A.num_rows / samples);
  int64_t paired = 0, count = 0;
  for (int64_t r = 0; r < A.num_rows; r += stride) {
    if (A.row_map[r] == A.row_map[r + 1]) continue;
    const auto& best = search.find(static_cast<int>(r));
    paired += !best.empty() && shared_columns(A, static_cast<int>(r), best.front().second, 2) == 2;
    ++count;
  }
  return count ? double(paired) / count : 0.0;
}

/// The kNN graph: every row's top `neighbours` (NeighbourSearch).
KnnGraph knn_graph(const HostCrs& A, const ColumnIndex& ix, NeighbourSearch& search, const ReorderOptions& o,
                   bool report_progress) {
  const int n = static_cast<int>(A.num_rows);
  Progress progress("reorder: Locality's kNN graph", n, report_progress);
  KnnGraph g;
  g.edges.reserve(size_t(n) * o.neighbours);
  g.nearest.assign(n, -1);
  for (int r = 0; r < n; ++r) {
    if (r % 4096 == 0) progress.update(r);
    // Without locality every column's offsets, weight and postings are
    // cache misses: request them two rows and one row ahead.
    if (r + 2 < n)
      for (int64_t k = A.row_map[r + 2]; k < std::min(A.row_map[r + 3], A.row_map[r + 2] + 64); ++k) {
        __builtin_prefetch(&ix.cols[A.entries[k]]);
      }
    if (r + 1 < n)
      for (int64_t k = A.row_map[r + 1]; k < std::min(A.row_map[r + 2], A.row_map[r + 1] + 64); ++k) {
        const int j = A.entries[k];
        const ColumnIndex::Column& c = ix.cols[j];
        for (int64_t p = c.begin; p < c.begin + std::min(c.degree, 32); p += 8)  // 8 postings a line
          __builtin_prefetch(&ix.postings[p]);
      }
    const auto& best = search.find(r);
    for (const auto& [sim, u] : best) g.edges.push_back({sim, std::min(r, u), std::max(r, u)});
    if (!best.empty()) g.nearest[r] = best.front().second;
  }
  return g;
}

/// Edges by decreasing similarity, ties in their given order: a stable LSD
/// radix sort on the bits of the (non-negative) float, three 11-bit digits
/// (2048 buckets: the scatter stays in cache).
void sort_by_decreasing_similarity(std::vector<Edge>& edges) {
  std::vector<Edge> tmp(edges.size());
  auto key = [](const Edge& e) {
    uint32_t bits;
    std::memcpy(&bits, &e.sim, sizeof bits);
    return ~bits;  // sim >= 0: larger similarity, smaller key
  };
  constexpr int kBits = 11;
  constexpr uint32_t kMask = (1u << kBits) - 1;
  for (int shift = 0; shift < 32; shift += kBits) {
    std::vector<size_t> start(kMask + 2, 0);
    for (const Edge& e : edges) ++start[((key(e) >> shift) & kMask) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    for (const Edge& e : edges) tmp[start[(key(e) >> shift) & kMask]++] = e;
    edges.swap(tmp);
  }
}

int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

/// Maximum-similarity spanning forest (Kruskal), then DFS preorder visiting
/// the most similar child first; rows without tree edges go last.
std::vector<int> spanning_forest_order(int n, std::vector<Edge> edges) {
  sort_by_decreasing_similarity(edges);
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<Edge> tree_edges;
  for (const Edge& e : edges) {
    const int ra = find_root(parent, e.a), rb = find_root(parent, e.b);
    if (ra == rb) continue;  // also repeated edges
    parent[ra] = rb;
    tree_edges.push_back(e);
  }
  // Tree adjacency as CSR, each list by ascending similarity (then row id).
  std::vector<int64_t> adj_ptr(n + 1, 0);
  for (const Edge& e : tree_edges) ++adj_ptr[e.a + 1], ++adj_ptr[e.b + 1];
  std::partial_sum(adj_ptr.begin(), adj_ptr.end(), adj_ptr.begin());
  std::vector<std::pair<float, int>> adj(adj_ptr[n]);
  std::vector<int64_t> fill(adj_ptr.begin(), adj_ptr.end() - 1);
  for (const Edge& e : tree_edges) adj[fill[e.a]++] = {e.sim, e.b}, adj[fill[e.b]++] = {e.sim, e.a};
  for (int v = 0; v < n; ++v) std::sort(adj.begin() + adj_ptr[v], adj.begin() + adj_ptr[v + 1]);
  std::vector<int> order, stack;
  std::vector<char> visited(n, 0);
  order.reserve(n);
  for (int root = 0; root < n; ++root) {
    if (visited[root] || adj_ptr[root] == adj_ptr[root + 1]) continue;
    stack.push_back(root);
    visited[root] = 1;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      order.push_back(v);
      for (int64_t k = adj_ptr[v]; k < adj_ptr[v + 1]; ++k)  // ascending: the most similar is popped first
        if (!visited[adj[k].second]) visited[adj[k].second] = 1, stack.push_back(adj[k].second);
    }
  }
  for (int r = 0; r < n; ++r)
    if (!visited[r]) order.push_back(r);  // isolated or empty rows
  return order;
}

/// The rows at positions [lo, lo + kSpan) of an order and their pairwise
/// weighted Jaccard similarities, all computed in one pass over their
/// columns: a small hash table maps each column to the span rows holding
/// it, and each column shared by several rows adds its weight to those
/// pairs' intersections (2-opt around one window boundary asks for many
/// pairs; merging sorted column lists pair by pair was most of its time).
class RowSpan {
 public:
  static constexpr int kSpan = 10;

  void load(const HostCrs& A, const ColumnIndex& ix, const int* rows, int count) {
    int64_t entries = 0;
    for (int s = 0; s < count; ++s) entries += A.row_map[rows[s] + 1] - A.row_map[rows[s]];
    columns_.reset(entries);
    for (int s = 0; s < count; ++s) {
      weight_[s] = ix.row_weight[rows[s]];
      for_each_column(A, rows[s], [&](int j) {
        bool fresh;
        Holders& c = columns_.find_or_insert(j, fresh);
        if (fresh) c.weight = ix.cols[j].weight;
        c.rows |= uint16_t(1u << s);
      });
    }
    for (int s = 0; s < count; ++s)
      for (int t = 0; t < count; ++t) inter_[s][t] = 0.0;
    columns_.for_each([&](int, const Holders& c) {
      const unsigned held = c.rows;
      if ((held & (held - 1)) == 0) return;  // one row only
      for (unsigned a = held; a; a &= a - 1)
        for (unsigned b = a & (a - 1); b; b &= b - 1) inter_[__builtin_ctz(a)][__builtin_ctz(b)] += c.weight;
    });
  }

  double similarity(int s, int t) const {
    const double inter = s < t ? inter_[s][t] : inter_[t][s], uni = weight_[s] + weight_[t] - inter;
    return uni > 0 ? inter / uni : 0.0;
  }

 private:
  struct Holders {
    uint16_t rows = 0;   ///< bit s: span row s holds the column
    float weight = 0.f;  ///< d^-alpha
  };
  static_assert(kSpan <= 16, "rsh: span rows are bits of a 16-bit mask");
  IntKeyTable<Holders> columns_;
  double weight_[kSpan];
  double inter_[kSpan][kSpan];  ///< s < t: summed weights of the columns rows s and t share
};

/// 2-opt across each window boundary: reverse order[i..j] (i in the last half
/// of a window, j in the first half of the next) when that lowers the summed
/// dissimilarity of adjacent rows. Reordering inside one window cannot change
/// its tiles; moving rows across the boundary can.
void two_opt(const HostCrs& A, const ColumnIndex& ix, std::vector<int>& order, bool report_progress) {
  const int n = static_cast<int>(order.size());
  Progress progress("reorder: Locality's 2-opt", n, report_progress);
  RowSpan span;
  for (int boundary = 8; boundary + 1 < n; boundary += 8) {
    if (boundary % 4096 == 0) progress.update(boundary);
    // Positions boundary - 5 .. boundary + 4 take part; slot[p - lo] is the
    // span row now at position p.
    const int lo = boundary - 5, count = std::min(n, boundary + 5) - lo;
    // The rows are scattered over A: request the offsets of the rows three
    // boundaries ahead, their columns and row weights two ahead and their
    // column records one ahead.
    for (int p = lo + 8; p < std::min(n, lo + 8 + RowSpan::kSpan); ++p)
      for (int64_t k = A.row_map[order[p]]; k < std::min(A.row_map[order[p] + 1], A.row_map[order[p]] + 32); ++k)
        __builtin_prefetch(&ix.cols[A.entries[k]]);
    for (int p = lo + 16; p < std::min(n, lo + 16 + RowSpan::kSpan); ++p) {
      __builtin_prefetch(A.entries.data() + A.row_map[order[p]]);  // a row start may be nnz
      __builtin_prefetch(&ix.row_weight[order[p]]);
    }
    for (int p = lo + 24; p < std::min(n, lo + 24 + RowSpan::kSpan); ++p) __builtin_prefetch(&A.row_map[order[p]]);
    span.load(A, ix, order.data() + lo, count);
    int slot[RowSpan::kSpan];
    std::iota(slot, slot + count, 0);
    auto d = [&](int x, int y) { return 1.0 - span.similarity(slot[x - lo], slot[y - lo]); };
    bool changed = false;
    for (int i = boundary - 4; i < boundary; ++i)
      for (int j = boundary; j < std::min(n - 1, boundary + 4); ++j) {
        const double delta = d(i - 1, j) + d(i, j + 1) - d(i - 1, i) - d(j, j + 1);
        if (delta < -1e-12) std::reverse(slot + (i - lo), slot + (j - lo) + 1), changed = true;
      }
    if (!changed) continue;
    int rows[RowSpan::kSpan];
    for (int s = 0; s < count; ++s) rows[s] = order[lo + slot[s]];
    std::copy(rows, rows + count, order.begin() + lo);
  }
}

/// Alg. 3, lines 28-32: rows sharing no column with either neighbour in the
/// order (DFS backtracking leaves them between unrelated rows) move right
/// behind their most similar row when that one is not isolated itself, else
/// to the tail; the others keep their order.
void place_isolated_rows(const HostCrs& A, const std::vector<int>& nearest, std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  auto shares_column = [&](int a, int b) { return shared_columns(A, a, b, 1) == 1; };
  std::vector<char> isolated(n, 0);
  for (int p = 0; p < n; ++p) {
    if (p + 16 < n) __builtin_prefetch(&A.row_map[order[p + 16]]);  // rows are scattered over A
    if (p + 8 < n) __builtin_prefetch(A.entries.data() + A.row_map[order[p + 8]]);
    const int r = order[p];
    if (A.row_map[r] == A.row_map[r + 1]) continue;  // empty rows stay where they are
    isolated[r] = !(p > 0 && shares_column(order[p - 1], r)) && !(p + 1 < n && shares_column(r, order[p + 1]));
  }
  auto host_of = [&](int r) { return nearest[r] >= 0 && !isolated[nearest[r]] ? nearest[r] : -1; };
  // Isolated rows grouped by host (CSR, in their order), the hostless ones last.
  std::vector<int> guest_ptr(n + 1, 0), guests, tail;
  for (int r : order)
    if (isolated[r] && host_of(r) >= 0) ++guest_ptr[host_of(r) + 1];
  std::partial_sum(guest_ptr.begin(), guest_ptr.end(), guest_ptr.begin());
  guests.resize(guest_ptr[n]);
  std::vector<int> fill(guest_ptr.begin(), guest_ptr.end() - 1);
  for (int r : order) {
    if (!isolated[r]) continue;
    if (host_of(r) >= 0)
      guests[fill[host_of(r)]++] = r;
    else
      tail.push_back(r);
  }
  std::vector<int> placed;
  placed.reserve(n);
  for (int u : order) {
    if (isolated[u]) continue;
    placed.push_back(u);
    placed.insert(placed.end(), guests.begin() + guest_ptr[u], guests.begin() + guest_ptr[u + 1]);
  }
  placed.insert(placed.end(), tail.begin(), tail.end());
  order.swap(placed);
}

}  // namespace

std::vector<int> locality_order(const HostCrs& A, const ReorderOptions& o, bool report_progress) {
  if (o.neighbours < 1 || o.max_postings < 1 || o.max_scan < 1 || o.hub_window < 0 || o.rescore < 0 ||
      !(o.alpha >= 0) || !(o.min_paired_rows >= 0))
    throw std::invalid_argument("rsh::ReorderOptions: neighbours = " + std::to_string(o.neighbours) +
                                ", max_postings = " + std::to_string(o.max_postings) +
                                ", max_scan = " + std::to_string(o.max_scan) +
                                " must be >= 1, hub_window = " + std::to_string(o.hub_window) +
                                ", rescore = " + std::to_string(o.rescore) + ", alpha = " + std::to_string(o.alpha) +
                                " and min_paired_rows = " + std::to_string(o.min_paired_rows) + " >= 0");
  const ColumnIndex ix = build_column_index(A, o.alpha);
  NeighbourSearch search(A, ix, o);
  // Rows that share at most one column with any other row (uniform random)
  // leave no tiles for windows to fill: keep their order.
  const int64_t samples = paired_samples(A.num_rows);
  if (samples > 0 && sampled_paired_fraction(A, search, samples) < o.min_paired_rows) return {};
  KnnGraph knn = knn_graph(A, ix, search, o, report_progress);
  std::vector<int> order = spanning_forest_order(static_cast<int>(A.num_rows), std::move(knn.edges));
  if (o.two_opt) two_opt(A, ix, order, report_progress);
  if (o.place_isolated) place_isolated_rows(A, knn.nearest, order);
  // A similarity order can still fill tiles worse than the given one (a tiny
  // graph, or one already in a good order): then keep the given order.
  Options tiles_only;
  tiles_only.partition = Partition::kTensorCoreOnly;
  if (order_cost(A, tiles_only, order).tiles > order_cost(A, tiles_only, {}).tiles) return {};
  return order;
}

std::vector<int> row_order(const HostCrs& A, const Options& options) {
  switch (options.reorder) {
    case Reorder::kNone:
      return {};
    case Reorder::kLocality:
      return locality_order(A, options.reorder_options, options.report_progress);
    case Reorder::kMinHash: {
      const auto order =
          minhash_order_on(Kokkos::DefaultHostExecutionSpace(), sorted_view_of(A),
                           options.reorder_options.minhash_label_rounds, options.reorder_options.minhash_window_chunk);
      return std::vector<int>(order.data(), order.data() + order.extent(0));
    }
    case Reorder::kGridBlocks: {
      const Kokkos::DefaultHostExecutionSpace exec;
      const GridShape grid = grid_shape_on(exec, sorted_view_of(A));
      if (!grid.found()) return {};
      const auto order = grid_blocks_order_on(exec, grid);
      return std::vector<int>(order.data(), order.data() + order.extent(0));
    }
    case Reorder::kAuto:
      return select_reorder(A, options).order;
    default:
      return permutation_order(A, options.reorder, options.reorder_options);
  }
}

}  // namespace impl
}  // namespace rsh
