#pragma once
// Uniform access to the matrix types rsh takes: rsh::CrsBundle and
// KokkosSparse::CrsMatrix.
#include <KokkosSparse_CrsMatrix.hpp>

#include "RshSparse_CrsBundle.hpp"

namespace rsh {
namespace impl {

template <class Matrix>
struct MatrixAccess;

template <class Scalar, class Offset, class MemorySpace>
struct MatrixAccess<CrsBundle<Scalar, Offset, MemorySpace>> {
  using M = CrsBundle<Scalar, Offset, MemorySpace>;
  using memory_space = MemorySpace;
  static int num_rows(const M& a) { return a.num_rows; }
  static int num_cols(const M& a) { return a.num_cols; }
  static auto row_map(const M& a) { return a.row_map; }
  static auto entries(const M& a) { return a.entries; }
  static auto values(const M& a) { return a.values; }
};

template <class Scalar, class Ordinal, class Device, class MemoryTraits, class SizeType>
struct MatrixAccess<KokkosSparse::CrsMatrix<Scalar, Ordinal, Device, MemoryTraits, SizeType>> {
  using M = KokkosSparse::CrsMatrix<Scalar, Ordinal, Device, MemoryTraits, SizeType>;
  using memory_space = typename M::memory_space;
  static int num_rows(const M& a) { return static_cast<int>(a.numRows()); }
  static int num_cols(const M& a) { return static_cast<int>(a.numCols()); }
  static auto row_map(const M& a) { return a.graph.row_map; }
  static auto entries(const M& a) { return a.graph.entries; }
  static auto values(const M& a) { return a.values; }
};

/// The user's matrix as a host CSR (pattern and values, user order).
template <class Matrix>
HostCrs host_crs_of(const Matrix& A) {
  using Acc = MatrixAccess<Matrix>;
  return to_host_crs(Acc::num_rows(A), Acc::num_cols(A), Acc::row_map(A), Acc::entries(A), Acc::values(A));
}

}  // namespace impl
}  // namespace rsh
