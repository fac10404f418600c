#include "impl/RshSparse_reorder_impl.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_candidate_table.hpp"
#include "impl/RshSparse_permutation_impl.hpp"
#include "impl/RshSparse_reorder_select_impl.hpp"

namespace rsh {
namespace impl {
namespace {

/// Column weights d_j^-alpha, row weights (sum over the row's columns) and
/// the inverted index (rows of each column).
struct ColumnIndex {
  std::vector<double> weight;
  std::vector<double> row_weight;
  std::vector<int64_t> ptr;
  std::vector<int> rows;
};

ColumnIndex build_column_index(const HostCrs& A, double alpha) {
  ColumnIndex ix;
  std::vector<int64_t> degree(A.num_cols, 0);
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
      if (k == A.row_map[r] || A.entries[k] != A.entries[k - 1]) ++degree[A.entries[k]];
  ix.weight.resize(A.num_cols);
  ix.ptr.assign(A.num_cols + 1, 0);
  for (int64_t j = 0; j < A.num_cols; ++j) {
    ix.weight[j] = degree[j] ? std::pow(double(degree[j]), -alpha) : 0.0;
    ix.ptr[j + 1] = ix.ptr[j] + degree[j];
  }
  ix.row_weight.assign(A.num_rows, 0.0);
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
      if (k == A.row_map[r] || A.entries[k] != A.entries[k - 1]) ix.row_weight[r] += ix.weight[A.entries[k]];
  ix.rows.resize(ix.ptr.back());
  std::vector<int64_t> fill(ix.ptr.begin(), ix.ptr.end() - 1);
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
      if (k == A.row_map[r] || A.entries[k] != A.entries[k - 1]) ix.rows[fill[A.entries[k]]++] = static_cast<int>(r);
  return ix;
}

/// Weighted Jaccard similarity of two rows by merging their sorted columns.
double similarity(const HostCrs& A, const ColumnIndex& ix, int a, int b) {
  int64_t i = A.row_map[a], ie = A.row_map[a + 1], j = A.row_map[b], je = A.row_map[b + 1];
  double inter = 0, uni = 0;
  int prev = -1;
  while (i < ie || j < je) {
    int col;
    const bool both = i < ie && j < je && A.entries[i] == A.entries[j];
    if (j >= je || (i < ie && A.entries[i] < A.entries[j])) {
      col = A.entries[i++];
    } else if (i >= ie || A.entries[j] < A.entries[i]) {
      col = A.entries[j++];
    } else {
      col = A.entries[i++], ++j;
    }
    if (col == prev) continue;  // duplicate entries
    prev = col;
    uni += ix.weight[col];
    if (both) inter += ix.weight[col];
  }
  return uni > 0 ? inter / uni : 0.0;
}

struct Edge {
  double sim;
  int a, b;
};

/// Top-k neighbours of every row by weighted Jaccard; candidates are rows
/// sharing a column, found through the inverted index with bounded work.
std::vector<Edge> knn_edges(const HostCrs& A, const ColumnIndex& ix, const ReorderOptions& o) {
  const int n = static_cast<int>(A.num_rows);
  auto degree = [&](int j) { return ix.ptr[j + 1] - ix.ptr[j]; };
  std::vector<Edge> edges;
  std::vector<int> cols;
  std::vector<std::pair<double, int>> scored;
  CandidateTable candidates;
  for (int r = 0; r < n; ++r) {
    cols.assign(A.entries.begin() + A.row_map[r], A.entries.begin() + A.row_map[r + 1]);
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    // Rarest columns first: they name the most specific neighbours.
    std::sort(cols.begin(), cols.end(), [&](int x, int y) { return degree(x) < degree(y); });
    bool found = false;
    for (int pass = 0; pass < 2 && !found; ++pass) {  // hub columns only when nothing else is shared
      auto used = [&](int j) { return (degree(j) > o.max_postings) == (pass == 1); };
      int64_t expected = 0;
      for (int j : cols)
        if (used(j)) expected = std::min<int64_t>(o.max_scan, expected + degree(j));
      candidates.reset(expected);
      int64_t scanned = 0;
      for (int j : cols) {
        if (!used(j)) continue;
        for (int64_t p = ix.ptr[j]; p < ix.ptr[j + 1] && scanned < o.max_scan; ++p, ++scanned)
          if (ix.rows[p] != r) candidates.add(ix.rows[p], ix.weight[j]);
      }
      found = !candidates.empty();
    }
    scored.clear();
    candidates.for_each([&](int u, double inter) {
      const double uni = ix.row_weight[r] + ix.row_weight[u] - inter;
      scored.push_back({uni > 0 ? inter / uni : 0.0, u});
    });
    const size_t k = std::min<size_t>(o.neighbours, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + k, scored.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    for (size_t i = 0; i < k; ++i)
      edges.push_back({scored[i].first, std::min(r, scored[i].second), std::max(r, scored[i].second)});
  }
  std::sort(edges.begin(), edges.end(),
            [](const Edge& x, const Edge& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  edges.erase(
      std::unique(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.a == y.a && x.b == y.b; }),
      edges.end());
  return edges;
}

int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

/// Maximum-similarity spanning forest (Kruskal), then DFS preorder visiting
/// the most similar child first; rows without tree edges go last.
std::vector<int> spanning_forest_order(int n, std::vector<Edge> edges) {
  std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) {
    return x.sim != y.sim ? x.sim > y.sim : (x.a != y.a ? x.a < y.a : x.b < y.b);
  });
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<std::vector<std::pair<double, int>>> tree(n);
  for (const Edge& e : edges) {
    const int ra = find_root(parent, e.a), rb = find_root(parent, e.b);
    if (ra == rb) continue;
    parent[ra] = rb;
    tree[e.a].push_back({e.sim, e.b});
    tree[e.b].push_back({e.sim, e.a});
  }
  for (auto& adj : tree)
    std::sort(adj.begin(), adj.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<int> order, stack;
  std::vector<char> visited(n, 0);
  order.reserve(n);
  for (int root = 0; root < n; ++root) {
    if (visited[root] || tree[root].empty()) continue;
    stack.push_back(root);
    visited[root] = 1;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      order.push_back(v);
      for (const auto& child : tree[v])  // ascending similarity: the most similar is popped first
        if (!visited[child.second]) visited[child.second] = 1, stack.push_back(child.second);
    }
  }
  for (int r = 0; r < n; ++r)
    if (!visited[r]) order.push_back(r);  // isolated or empty rows
  return order;
}

/// 2-opt across each window boundary: reverse order[i..j] (i in the last half
/// of a window, j in the first half of the next) when that lowers the summed
/// dissimilarity of adjacent rows. Reordering inside one window cannot change
/// its tiles; moving rows across the boundary can.
void two_opt(const HostCrs& A, const ColumnIndex& ix, std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  auto d = [&](int x, int y) { return 1.0 - similarity(A, ix, order[x], order[y]); };
  for (int boundary = 8; boundary + 1 < n; boundary += 8) {
    for (int i = std::max(1, boundary - 4); i < boundary; ++i)
      for (int j = boundary; j < std::min(n - 1, boundary + 4); ++j) {
        const double delta = 1.0 - similarity(A, ix, order[i - 1], order[j]) + 1.0 -
                             similarity(A, ix, order[i], order[j + 1]) - d(i - 1, i) - d(j, j + 1);
        if (delta < -1e-12) std::reverse(order.begin() + i, order.begin() + j + 1);
      }
  }
}

}  // namespace

std::vector<int> locality_order(const HostCrs& A, const ReorderOptions& o) {
  if (o.neighbours < 1 || o.max_postings < 1 || o.max_scan < 1 || !(o.alpha >= 0))
    throw std::invalid_argument("rsh::ReorderOptions: neighbours = " + std::to_string(o.neighbours) +
                                ", max_postings = " + std::to_string(o.max_postings) +
                                ", max_scan = " + std::to_string(o.max_scan) + " must be >= 1 and alpha >= 0");
  const ColumnIndex ix = build_column_index(A, o.alpha);
  std::vector<int> order = spanning_forest_order(static_cast<int>(A.num_rows), knn_edges(A, ix, o));
  if (o.two_opt) two_opt(A, ix, order);
  return order;
}

std::vector<int> row_order(const HostCrs& A, const Options& options) {
  switch (options.reorder) {
    case Reorder::kNone:
      return {};
    case Reorder::kLocality:
      return locality_order(A, options.reorder_options);
    case Reorder::kAuto:
      return select_reorder(A, options).order;
    default:
      return permutation_order(A, options.reorder, options.reorder_options);
  }
}

}  // namespace impl
}  // namespace rsh
