#pragma once
// Matrix Market input and output for CRS bundles in any memory space.
#include <string>

#include "RshSparse_CrsBundle.hpp"
#include "impl/RshSparse_MatrixMarket.hpp"

namespace rsh {

/// Reads a Matrix Market `.mtx` / `.mtx.gz` coordinate file (real, integer or
/// pattern; general, symmetric or skew-symmetric) into a CRS bundle.
/// Duplicates are summed, columns sorted within rows, symmetric storage
/// expanded. Pattern entries read as 1. Throws rsh::FileFormatError (file and
/// line) on malformed input and std::invalid_argument when nnz overflows Offset.
template <class Scalar, class Offset = int, class MemorySpace = Kokkos::HostSpace>
CrsBundle<Scalar, Offset, MemorySpace> read_matrix_market(const std::string& path) {
  return impl::to_bundle<Scalar, Offset, MemorySpace>(impl::read_matrix_market_host(path), path);
}

/// Writes a bundle as coordinate general (pattern-only when `pattern`);
/// gzip-compressed when `path` ends in ".gz".
template <class Scalar, class Offset, class MemorySpace>
void write_matrix_market(const std::string& path, const CrsBundle<Scalar, Offset, MemorySpace>& A,
                         bool pattern = false) {
  impl::write_matrix_market_host(path, impl::to_host_crs(A.num_rows, A.num_cols, A.row_map, A.entries, A.values),
                                 pattern);
}

}  // namespace rsh
