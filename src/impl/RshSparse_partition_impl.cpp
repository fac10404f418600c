#include "impl/RshSparse_partition_impl.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {
namespace {

int64_t row_nnz(const HostCrs& A, int r) {
  return A.row_map[r + 1] - A.row_map[r];
}

bool row_has_col(const HostCrs& A, int r, int col) {
  auto first = A.entries.begin() + A.row_map[r], last = A.entries.begin() + A.row_map[r + 1];
  return std::binary_search(first, last, col);
}

/// RSH-SpMM Alg. 1, line 16: |U_full| - |U_excl|, the columns row seq[p]
/// alone brings to the window seq[p .. p+7].
int64_t new_columns(const HostCrs& A, const std::vector<int>& seq, size_t p) {
  const size_t end = std::min(seq.size(), p + kWindowRows);
  int64_t delta = 0;
  int prev = -1;
  for (int64_t k = A.row_map[seq[p]]; k < A.row_map[seq[p] + 1]; ++k) {
    const int col = A.entries[k];
    if (col == prev) continue;  // duplicate entry
    prev = col;
    bool shared = false;
    for (size_t q = p + 1; q < end && !shared; ++q) shared = row_has_col(A, seq[q], col);
    delta += shared ? 0 : 1;
  }
  return delta;
}

}  // namespace

RowPartition partition_rows(const HostCrs& A, const Options& options, const std::vector<int>& row_order) {
  std::vector<int> seq = row_order;
  if (seq.empty()) {
    seq.resize(A.num_rows);
    for (int64_t r = 0; r < A.num_rows; ++r) seq[r] = static_cast<int>(r);
  }
  if (static_cast<int64_t>(seq.size()) != A.num_rows)
    throw std::invalid_argument("rsh::partition_rows: row order has " + std::to_string(seq.size()) + " entries for " +
                                std::to_string(A.num_rows) + " rows");

  RowPartition out;
  if (options.partition == Partition::kCudaCoreOnly || options.partition == Partition::kDenseBlocks) {
    for (int r : seq)
      if (row_nnz(A, r) > 0) out.residual_rows.push_back(r);
    return out;
  }
  // kAuto partitions as RowStructured; the inspector may then rebuild as CudaCoreOnly.
  const bool may_route = options.partition == Partition::kRowStructured || options.partition == Partition::kAuto;
  size_t p = 0;
  while (p < seq.size()) {
    const int r = seq[p];
    const int64_t nz = row_nnz(A, r);
    if (nz == 0) {
      ++p;
      continue;
    }
    if (may_route && nz <= options.tau_nnz && new_columns(A, seq, p) < options.tau_inc) {
      out.residual_rows.push_back(r);
      ++p;
      continue;
    }
    for (int i = 0; i < kWindowRows; ++i) out.window_rows.push_back(p + i < seq.size() ? seq[p + i] : -1);
    p += kWindowRows;
  }
  return out;
}

}  // namespace impl
}  // namespace rsh
