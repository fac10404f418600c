#pragma once
// Compiled Matrix Market I/O over the plain host CSR; the templated,
// Kokkos-facing wrappers are in RshSparse_IOUtils.hpp.
#include <string>

#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {
namespace impl {

/// Reads `.mtx` or `.mtx.gz` (coordinate; real, integer or pattern; general,
/// symmetric or skew-symmetric). Symmetric storage is expanded, duplicates summed.
/// Throws rsh::FileFormatError naming file and line on malformed input.
HostCrs read_matrix_market_host(const std::string& path);

/// Writes coordinate general; gzip-compressed when `path` ends in ".gz".
void write_matrix_market_host(const std::string& path, const HostCrs& A, bool pattern);

}  // namespace impl
}  // namespace rsh
