#pragma once
// Plain host CSR used by the compiled, non-templated parts of the module
// (file I/O, generators, preprocessing). 64-bit offsets so any file that fits
// in memory can be read; narrowing to the user's Offset type is checked.
#include <cstdint>
#include <string>
#include <vector>

namespace rsh {
namespace impl {

struct HostCrs {
  int64_t num_rows = 0;
  int64_t num_cols = 0;
  std::vector<int64_t> row_map{0};  ///< num_rows + 1
  std::vector<int> entries;         ///< nnz, sorted and unique within each row
  std::vector<double> values;       ///< nnz
  int64_t nnz() const { return row_map.empty() ? 0 : row_map.back(); }
};

/// Bytes of host memory a new allocation can take now: MemAvailable, lowered to the environment's
/// RSH_HOST_MEMORY_LIMIT (bytes) where set and to a container's (cgroup v2) limit less its use.
double host_bytes_available();

/// Throws rsh::ResourceError ("<what>: needs X GB of host memory, Y GB available") when `bytes` exceed
/// host_bytes_available(). Called before large host allocations.
void check_host_bytes(double bytes, const std::string& what);

/// Bytes of a CSR with `num_rows` rows and `nnz` entries of the given offset and value sizes.
double crs_bytes(int64_t num_rows, int64_t nnz, int offset_bytes, int value_bytes);

/// One coordinate entry (0-based).
struct CooEntry {
  int64_t row;
  int64_t col;
  double value;
};

/// Builds a CSR from coordinates: sorts by (row, col) and sums duplicates.
/// Throws std::invalid_argument if an index is outside [0, rows) x [0, cols)
/// or a dimension exceeds the 32-bit column index range.
HostCrs coo_to_crs(int64_t num_rows, int64_t num_cols, std::vector<CooEntry> coo);

}  // namespace impl
}  // namespace rsh

namespace rsh {
namespace impl {

/// Checks a user CSR: row_map starts at 0, never decreases, ends at nnz;
/// columns in [0, num_cols). Throws std::invalid_argument naming `who` and the extents.
void validate_crs(const HostCrs& A, const char* who);

/// Sorts columns within each row (stable; duplicates stay, adjacent) and
/// returns, for each new position, the position it came from.
std::vector<int64_t> sort_rows(HostCrs& A);

/// Calls f(col) for each distinct column of row r of a sorted A (duplicates
/// adjacent, as sort_rows leaves them).
template <class F>
void for_each_column(const HostCrs& A, int64_t r, F&& f) {
  for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
    if (k == A.row_map[r] || A.entries[k] != A.entries[k - 1]) f(A.entries[k]);
}

/// A's pattern (no values) with row i = A's row order[i]; `source` (A's
/// position -> user position) is permuted alongside. `order` must be a
/// permutation of A's rows.
HostCrs permute_rows(const HostCrs& A, const std::vector<int>& order, std::vector<int64_t>& source);

}  // namespace impl
}  // namespace rsh
