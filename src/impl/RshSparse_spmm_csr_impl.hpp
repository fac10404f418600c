#pragma once
// The handle-free multiply on the portable kernels: a work item a row of the
// user's CSR, read in place (no inspection), after a check of A on the
// execution space.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "impl/RshSparse_matrix_access.hpp"
#include "impl/RshSparse_spmm_impl.hpp"

namespace rsh {
namespace impl {

/// Throws std::invalid_argument unless A's row_map runs nondecreasing from 0 to nnz and every column id
/// lies in [0, num_cols): checked on `exec`, where A's views live (a reduction the caller waits for).
template <class ExecSpace, class Matrix>
void check_crs_on(const ExecSpace& exec, const Matrix& A, const char* who) {
  using Acc = MatrixAccess<Matrix>;
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>>;
  const auto row_map = Acc::row_map(A);
  const auto entries = Acc::entries(A);
  const int64_t rows = Acc::num_rows(A), cols = Acc::num_cols(A);
  const int64_t nnz = static_cast<int64_t>(entries.extent(0));
  if (static_cast<int64_t>(row_map.extent(0)) != rows + 1)
    throw std::invalid_argument(std::string(who) + ": row_map has " + std::to_string(row_map.extent(0)) +
                                " entries for " + std::to_string(rows) + " rows");
  int64_t bad_rows = 0, bad_cols = 0;
  Kokkos::parallel_reduce(
      "rsh::check_crs::rows", Policy(exec, 0, rows + 1),
      KOKKOS_LAMBDA(const int64_t r, int64_t& bad) {
        const int64_t here = static_cast<int64_t>(row_map(r));
        if (r == 0 ? here != 0 : here < static_cast<int64_t>(row_map(r - 1))) ++bad;
        if (r == rows && here != nnz) ++bad;
      },
      bad_rows);
  Kokkos::parallel_reduce(
      "rsh::check_crs::columns", Policy(exec, 0, nnz),
      KOKKOS_LAMBDA(const int64_t k, int64_t& bad) {
        if (entries(k) < 0 || entries(k) >= cols) ++bad;
      },
      bad_cols);
  if (bad_rows)
    throw std::invalid_argument(std::string(who) + ": row_map of " + std::to_string(rows) +
                                " rows is not nondecreasing from 0 to nnz = " + std::to_string(nnz));
  if (bad_cols)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(bad_cols) + " column ids outside [0, " +
                                std::to_string(cols) + ")");
}

/// A CSR row's dot products over a chunk of features, from the user's arrays (duplicates summed, any order).
template <class RowMap, class Entries, class Values, class BView, class CView>
struct CsrRowChunks {
  using Acc = typename Accumulator<typename CView::non_const_value_type>::type;
  RowMap row_map;
  Entries entries;
  Values vals;
  BView B;
  CView C;
  Acc alpha, beta;

  struct Item {
    int64_t begin, end;
    int row;
  };
  KOKKOS_INLINE_FUNCTION Item item(const int row) const {
    return {static_cast<int64_t>(row_map(row)), static_cast<int64_t>(row_map(row + 1)), row};
  }

  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION void chunk(const Item& item, const int64_t f0) const {
    Acc acc[W];
    for (int j = 0; j < W; ++j) acc[j] = 0;
    for (int64_t k = item.begin; k < item.end; ++k) {
      const Acc value = static_cast<Acc>(vals(k));
      const int col = entries(k);
      for (int j = 0; j < W; ++j) acc[j] += value * static_cast<Acc>(B(col, f0 + j));
    }
    store_chunk<W>(C, item.row, f0, acc, alpha, beta, false);
  }
};

/// C = alpha * A * B + beta * C over A's own CSR arrays on the portable kernels (A checked first).
template <class ExecSpace, class Matrix, class BView, class CView>
void spmm_csr_portable(const ExecSpace& exec, typename CView::const_value_type alpha, const Matrix& A,
                       const BView& B_in, typename CView::const_value_type beta, const CView& C_in) {
  using Acc = typename Accumulator<typename CView::non_const_value_type>::type;
  using M = MatrixAccess<Matrix>;
  using B = Kokkos::View<typename BView::const_data_type, typename BView::array_layout, typename BView::device_type,
                         Kokkos::MemoryTraits<Kokkos::Unmanaged | Kokkos::RandomAccess>>;
  using C = Kokkos::View<typename CView::data_type, typename CView::array_layout, typename CView::device_type,
                         Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  check_crs_on(exec, A, "rsh::spmm");
  constexpr int K = portable_chunk<ExecSpace>();
  using Rows = CsrRowChunks<decltype(M::row_map(A)), decltype(M::entries(A)), decltype(M::values(A)), B, C>;
  const C c_view = C_in;
  for_each_item_chunk<K, typename BView::array_layout>(
      "rsh::spmm[portable]::csr", exec, M::num_rows(A), static_cast<int64_t>(c_view.extent(1)),
      ChunkedItems<K, Rows>{{M::row_map(A), M::entries(A), M::values(A), B(B_in), c_view, static_cast<Acc>(alpha),
                             static_cast<Acc>(beta)}});
}

}  // namespace impl
}  // namespace rsh
