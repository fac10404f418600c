#pragma once
// Row reordering (DESIGN section 5): a permutation of the rows that the
// partition visits in order, so rows sharing columns land in one 8-row
// window. Applied inside the handle only; C rows are still written at their
// original positions.
#include <vector>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {
namespace impl {

/// RSH-SpMM Alg. 3, locality-aware reordering: weighted Jaccard similarity
/// (column weight d_j^-alpha), kNN candidates from an inverted index with
/// bounded work per row (hub columns: the holders nearest in row id; partial
/// similarities rescored exactly), a maximum-similarity spanning forest, DFS order,
/// 2-opt segment reversals over two-window spans, and rows without neighbours
/// placed last. A sorted-rows CSR in; a permutation of [0, num_rows) out
/// (position -> original row), or empty (the given order) when on a sample
/// of rows too few share two columns with another row (min_paired_rows). With report_progress, its
/// longest passes report their progress (Progress).
std::vector<int> locality_order(const HostCrs& A, const ReorderOptions& options, bool report_progress = false);

/// The order `options.reorder` asks for (empty = identity); kAuto runs the
/// cost model of select_reorder.
std::vector<int> row_order(const HostCrs& A, const Options& options);

}  // namespace impl
}  // namespace rsh
