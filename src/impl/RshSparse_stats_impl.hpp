#pragma once
// Matrix statistics that drive partitioning and are reported by describe().
#include <cstdint>
#include <string>
#include <vector>

namespace rsh {
namespace impl {

struct MatrixStats {
  int64_t num_rows = 0, num_cols = 0, nnz = 0;
  int64_t empty_rows = 0;
  int64_t max_row_nnz = 0;
  double mean_row_nnz = 0.0;
  /// row_length_histogram[b] counts rows with nnz in [2^(b-1), 2^b) (b = 0: empty rows).
  std::vector<int64_t> row_length_histogram;
  /// Natural (unpermuted) 8-row windows: mean distinct columns, and mean nnz
  /// per 8x8 tile if every window were tiled whole; counted only under
  /// Options::window_statistics (windows_counted).
  bool windows_counted = false;
  int64_t natural_windows = 0;
  double mean_window_distinct_cols = 0.0;
  double mean_nnz_per_tile = 0.0;
};

std::string to_string(const MatrixStats& s);

}  // namespace impl
}  // namespace rsh
