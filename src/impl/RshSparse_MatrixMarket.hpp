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

/// The same from `size` bytes in memory (plain text, or gzip-compressed where they start with gzip's magic);
/// `name` stands for the file in error messages. The size check of the declared matrix throws
/// rsh::ResourceError before anything is allocated.
HostCrs read_matrix_market_memory(const char* data, size_t size, const std::string& name);

/// Writes coordinate general; gzip-compressed when `path` ends in ".gz".
void write_matrix_market_host(const std::string& path, const HostCrs& A, bool pattern);

}  // namespace impl
}  // namespace rsh
