#include "impl/RshSparse_stats_impl.hpp"

#include <sstream>

namespace rsh {
namespace impl {

std::string to_string(const MatrixStats& s) {
  std::ostringstream os;
  os << "matrix: " << s.num_rows << " x " << s.num_cols << ", nnz " << s.nnz << ", empty rows " << s.empty_rows
     << ", row nnz mean " << s.mean_row_nnz << " max " << s.max_row_nnz << "\n  row-length histogram (2^b):";
  for (size_t b = 0; b < s.row_length_histogram.size(); ++b) os << ' ' << s.row_length_histogram[b];
  os << "\n  natural 8-row windows " << s.natural_windows;
  if (s.windows_counted)
    os << ", distinct cols/window " << s.mean_window_distinct_cols << ", nnz per 8x8 tile " << s.mean_nnz_per_tile;
  else
    os << " (their columns counted under Options::window_statistics)";
  os << "\n";
  return os.str();
}

}  // namespace impl
}  // namespace rsh
