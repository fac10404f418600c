#pragma once
// The CRS bundle: a sparse matrix as three Kokkos views plus its dimensions,
// in any memory space. Column indices are `int`; the row offset type is the
// user's (int or size_t, as KokkosSparse::CrsMatrix).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include "RshSparse_Error.hpp"
#include "impl/RshSparse_HostCrs.hpp"

namespace rsh {

template <class Scalar, class Offset = int, class MemorySpace = Kokkos::HostSpace>
struct CrsBundle {
  using scalar_type = Scalar;
  using ordinal_type = int;
  using offset_type = Offset;
  using memory_space = MemorySpace;
  using row_map_type = Kokkos::View<Offset*, Kokkos::LayoutRight, MemorySpace>;
  using entries_type = Kokkos::View<int*, Kokkos::LayoutRight, MemorySpace>;
  using values_type = Kokkos::View<Scalar*, Kokkos::LayoutRight, MemorySpace>;

  int num_rows = 0;
  int num_cols = 0;
  row_map_type row_map;  ///< num_rows + 1 offsets
  entries_type entries;  ///< nnz column indices
  values_type values;    ///< nnz values

  Offset nnz() const { return static_cast<Offset>(entries.extent(0)); }
};

namespace impl {

/// Copies a host CSR into a bundle of the requested types; throws
/// std::invalid_argument when nnz does not fit the Offset type.
template <class Scalar, class Offset, class MemorySpace>
CrsBundle<Scalar, Offset, MemorySpace> to_bundle(const HostCrs& A, const std::string& what) {
  // The arrays as they are (a malformed A stays malformed, for the checks downstream to see).
  const int64_t stored = static_cast<int64_t>(std::min(A.entries.size(), A.values.size()));
  const int64_t nnz = std::max(A.nnz(), stored);
  if (static_cast<unsigned long long>(nnz) > static_cast<unsigned long long>(std::numeric_limits<Offset>::max()))
    throw std::invalid_argument(what + ": " + std::to_string(nnz) + " nonzeros overflow the " +
                                std::to_string(8 * sizeof(Offset)) + "-bit offset type");
  check_host_bytes(crs_bytes(A.num_rows, nnz, sizeof(Offset), sizeof(Scalar)), what + ": the host copy");
  CrsBundle<Scalar, Offset, Kokkos::HostSpace> h;
  h.num_rows = static_cast<int>(A.num_rows);
  h.num_cols = static_cast<int>(A.num_cols);
  h.row_map = decltype(h.row_map)("rsh::row_map", A.num_rows + 1);
  h.entries = decltype(h.entries)("rsh::entries", stored);
  h.values = decltype(h.values)("rsh::values", stored);
  for (int64_t r = 0; r <= A.num_rows; ++r) h.row_map(r) = static_cast<Offset>(A.row_map[r]);
  for (int64_t k = 0; k < stored; ++k) {
    h.entries(k) = A.entries[k];
    h.values(k) = static_cast<Scalar>(A.values[k]);
  }
  CrsBundle<Scalar, Offset, MemorySpace> out;
  out.num_rows = h.num_rows;
  out.num_cols = h.num_cols;
  out.row_map = Kokkos::create_mirror_view_and_copy(MemorySpace(), h.row_map);
  out.entries = Kokkos::create_mirror_view_and_copy(MemorySpace(), h.entries);
  out.values = Kokkos::create_mirror_view_and_copy(MemorySpace(), h.values);
  return out;
}

/// Copies any CSR given as views (any memory space) into a host CSR.
template <class RowMap, class Entries, class Values>
HostCrs to_host_crs(int num_rows, int num_cols, const RowMap& row_map, const Entries& entries, const Values& values) {
  auto h_row_map = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), row_map);
  auto h_entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), entries);
  auto h_values = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values);
  HostCrs A;
  A.num_rows = num_rows;
  A.num_cols = num_cols;
  A.row_map.resize(num_rows + 1);
  for (int r = 0; r <= num_rows; ++r) A.row_map[r] = static_cast<int64_t>(h_row_map(r));
  A.entries.assign(h_entries.data(), h_entries.data() + A.nnz());
  A.values.resize(A.nnz());
  for (int64_t k = 0; k < A.nnz(); ++k) A.values[k] = static_cast<double>(h_values(k));
  return A;
}

}  // namespace impl
}  // namespace rsh
