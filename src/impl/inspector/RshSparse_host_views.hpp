#pragma once
// A host CSR (HostCrs) seen through unmanaged Kokkos views, so that the host
// parts of the module run the inspector's phases on the host execution space.
#include "impl/RshSparse_HostCrs.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"

namespace rsh {
namespace impl {

template <class T>
using HostArray = Kokkos::View<T*, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T>
HostArray<const T> host_array(const std::vector<T>& v) {
  return HostArray<const T>(v.data(), v.size());
}

/// A (columns already sorted within rows) as the phases read it; the views alias A's arrays.
inline SortedCrs<Kokkos::HostSpace> sorted_view_of(const HostCrs& A) {
  SortedCrs<Kokkos::HostSpace> s;
  s.num_rows = A.num_rows, s.num_cols = A.num_cols, s.nnz = A.nnz();
  s.row_map = host_array(A.row_map);
  s.entries = host_array(A.entries);
  return s;
}

}  // namespace impl
}  // namespace rsh
