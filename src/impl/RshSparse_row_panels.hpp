#pragma once
// Row panels: the RS-Tile format and the CUDA work items take 32-bit offsets,
// so a matrix of more nonzeros than one format holds (Tuning::max_panel_nnz,
// 2^30 by default) is multiplied as consecutive row panels of at most that
// many nonzeros each. A panel is a matrix of its own over A's arrays (its row
// offsets a rebased 64-bit copy, its entries and values views into A's) and
// writes its own rows of C, so panels need no reduction between them.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "RshSparse_CrsBundle.hpp"
#include "impl/RshSparse_matrix_access.hpp"
#include "impl/RshSparse_spmm_csr_impl.hpp"
#include "impl/inspector/RshSparse_inspector_common.hpp"

namespace rsh {
namespace impl {

/// Rows [row_begin, row_end) of A, which hold A's entries [nnz_begin, nnz_end); row_map: their offsets
/// from nnz_begin (row_end - row_begin + 1 of them, in memory space M).
template <class M>
struct RowPanel {
  int row_begin = 0, row_end = 0;
  int64_t nnz_begin = 0, nnz_end = 0;
  Kokkos::View<int64_t*, Kokkos::LayoutRight, M> row_map;
};

/// A's rows cut greedily into panels of at most max_nnz nonzeros, with their rebased offsets on `exec`.
/// Checks A first (row_map nondecreasing from 0 to nnz, column ids in range: std::invalid_argument), then
/// finds each cut by a binary search over row_map read on the host (a few reads a panel); throws
/// std::invalid_argument where one row holds more than max_nnz.
template <class M, class ExecSpace, class Matrix>
std::vector<RowPanel<M>> row_panels_on(const ExecSpace& exec, const Matrix& A, int64_t max_nnz, const char* who) {
  using Acc = MatrixAccess<Matrix>;
  check_crs_on(exec, A, who);
  const auto row_map = Acc::row_map(A);
  const int rows = Acc::num_rows(A);
  const auto offset = [&](int r) { return static_cast<int64_t>(read_back(row_map, r)); };
  std::vector<RowPanel<M>> panels;
  for (int begin = 0; begin < rows;) {
    RowPanel<M> p;
    p.row_begin = begin, p.nnz_begin = offset(begin);
    int lo = begin, hi = rows;  // the last row end with offset(end) - nnz_begin <= max_nnz lies in [lo, hi]
    while (lo < hi) {
      const int mid = lo + (hi - lo + 1) / 2;
      if (offset(mid) - p.nnz_begin <= max_nnz)
        lo = mid;
      else
        hi = mid - 1;
    }
    if (lo == begin)
      throw std::invalid_argument(std::string(who) + ": row " + std::to_string(begin) + " holds " +
                                  std::to_string(offset(begin + 1) - p.nnz_begin) +
                                  " nonzeros, more than a row panel's " + std::to_string(max_nnz) +
                                  " (Tuning::max_panel_nnz)");
    p.row_end = lo, p.nnz_end = offset(lo);
    p.row_map = decltype(p.row_map)(Kokkos::view_alloc(std::string("rsh::panel_row_map"), Kokkos::WithoutInitializing),
                                    p.row_end - p.row_begin + 1);
    const auto out = p.row_map;
    const int64_t base = p.nnz_begin, first = p.row_begin;
    Kokkos::parallel_for(
        "rsh::row_panels::rebase", Range64<ExecSpace>(exec, 0, static_cast<int64_t>(out.extent(0))),
        KOKKOS_LAMBDA(const int64_t i) { out(i) = static_cast<int64_t>(row_map(first + i)) - base; });
    panels.push_back(p);
    begin = p.row_end;
  }
  return panels;
}

/// Panel p of A as a CrsBundle over A's arrays (unmanaged views, valid while A's are; Value is A's scalar,
/// const where the panel is only read). A's column ids must be int.
template <class Value, class M, class Matrix>
CrsBundle<Value, int64_t, M> panel_matrix(const Matrix& A, const RowPanel<M>& p) {
  using Acc = MatrixAccess<Matrix>;
  const auto entries = Acc::entries(A);
  const auto values = Acc::values(A);
  static_assert(std::is_same<typename decltype(entries)::non_const_value_type, int>::value,
                "rsh: row panels take int column ids");
  static_assert(
      std::is_same<std::remove_const_t<typename decltype(values)::value_type>, std::remove_const_t<Value>>::value,
      "rsh: a row panel's scalar is A's");
  using Bundle = CrsBundle<Value, int64_t, M>;
  Bundle P;
  P.num_rows = p.row_end - p.row_begin, P.num_cols = Acc::num_cols(A);
  P.row_map = p.row_map;
  const size_t n = static_cast<size_t>(p.nnz_end - p.nnz_begin);
  // The panel only reads A's column ids; its values are written only where Value is non-const (SDDMM's C).
  P.entries = typename Bundle::entries_type(const_cast<int*>(entries.data()) + p.nnz_begin, n);
  P.values = typename Bundle::values_type(const_cast<Value*>(values.data()) + p.nnz_begin, n);
  return P;
}

/// Rows [p.row_begin, p.row_end) of a rank-2 view (C of a multiply, X of an SDDMM).
template <class M, class View>
auto panel_rows(const View& X, const RowPanel<M>& p) {
  return Kokkos::subview(X, Kokkos::make_pair(p.row_begin, p.row_end), Kokkos::ALL());
}

}  // namespace impl
}  // namespace rsh
