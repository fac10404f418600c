#include "impl/RshSparse_stats_impl.hpp"

#include <algorithm>
#include <sstream>

#include "impl/RshSparse_window_columns.hpp"

namespace rsh {
namespace impl {

MatrixStats compute_stats(const HostCrs& A) {
  MatrixStats s;
  s.num_rows = A.num_rows;
  s.num_cols = A.num_cols;
  s.nnz = A.nnz();
  s.row_length_histogram.assign(1, 0);
  for (int64_t r = 0; r < A.num_rows; ++r) {
    const int64_t len = A.row_map[r + 1] - A.row_map[r];
    s.max_row_nnz = std::max(s.max_row_nnz, len);
    size_t bucket = 0;
    while ((int64_t(1) << bucket) <= len) ++bucket;
    if (bucket >= s.row_length_histogram.size()) s.row_length_histogram.resize(bucket + 1, 0);
    ++s.row_length_histogram[bucket];
  }
  s.empty_rows = s.row_length_histogram[0];
  s.mean_row_nnz = A.num_rows ? double(s.nnz) / double(A.num_rows) : 0.0;

  s.natural_windows = (A.num_rows + kWindowRows - 1) / kWindowRows;
  int64_t distinct = 0, tiles = 0;
  WindowColumnCounter columns(A.num_cols);
  for (int64_t w = 0; w < s.natural_windows; ++w) {
    int rows[kWindowRows];
    for (int i = 0; i < kWindowRows; ++i) rows[i] = w * kWindowRows + i < A.num_rows ? int(w * kWindowRows + i) : -1;
    const int64_t cols = columns.count(A, rows);
    distinct += cols;
    tiles += (cols + kTileCols - 1) / kTileCols;
  }
  s.mean_window_distinct_cols = s.natural_windows ? double(distinct) / double(s.natural_windows) : 0.0;
  s.mean_nnz_per_tile = tiles ? double(s.nnz) / double(tiles) : 0.0;
  return s;
}

std::string to_string(const MatrixStats& s) {
  std::ostringstream os;
  os << "matrix: " << s.num_rows << " x " << s.num_cols << ", nnz " << s.nnz << ", empty rows " << s.empty_rows
     << ", row nnz mean " << s.mean_row_nnz << " max " << s.max_row_nnz << "\n  row-length histogram (2^b):";
  for (size_t b = 0; b < s.row_length_histogram.size(); ++b) os << ' ' << s.row_length_histogram[b];
  os << "\n  natural 8-row windows " << s.natural_windows << ", distinct cols/window " << s.mean_window_distinct_cols
     << ", nnz per 8x8 tile " << s.mean_nnz_per_tile << "\n";
  return os.str();
}

}  // namespace impl
}  // namespace rsh
