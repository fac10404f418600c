#pragma once
// Windows regrouped inside chunks of a row order, on the inspector's execution
// space (ReorderOptions::minhash_window_chunk). MinHash's sort brings rows that
// share columns near one another, but cuts its clusters into 8-row windows
// wherever they fall. Here each chunk of consecutive positions (a multiple of
// 8, aligned to windows) is dealt into windows again, greedily, as Locality
// builds its windows from a row's nearest rows: a window starts from the first
// row left in the chunk and takes, seven times, the row sharing most columns
// with it. A thread a chunk, a bounded amount of work a row: the candidates are
// the chunk's rows, never the whole matrix, and each is compared over a
// bounded number of its columns.
#include <stdexcept>
#include <string>

#include "impl/inspector/RshSparse_sorted_crs.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// The largest chunk: a thread keeps the rows still to place as one 64-bit mask.
constexpr int kMaxWindowChunk = 64;
/// Columns of a window the regrouping compares candidates with: a sorted local array a thread, the
/// columns past it (windows of long rows) left out of the comparison.
constexpr int kRegroupWindowCols = 128;

/// Columns of a candidate row compared with the window at most: a hub row costs what a short one does.
constexpr int kRegroupRowCols = 4 * kRegroupWindowCols;

/// Columns of row r of A (sorted) found in the sorted cols[0, count): how many the row would share with
/// the window, over the row's first kRegroupRowCols columns (none past the window's last can match).
template <class Crs>
KOKKOS_INLINE_FUNCTION int shared_columns(const Crs& A, int r, const int* cols, int count) {
  int shared = 0;
  const int64_t end =
      A.row_map(r + 1) - A.row_map(r) > kRegroupRowCols ? A.row_map(r) + kRegroupRowCols : A.row_map(r + 1);
  for (int64_t k = A.row_map(r); k < end; ++k) {
    const int c = A.entries(k);
    if (count == 0 || c > cols[count - 1]) break;
    int lo = 0, hi = count;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (cols[mid] < c)
        lo = mid + 1;
      else
        hi = mid;
    }
    shared += lo < count && cols[lo] == c;
  }
  return shared;
}

/// Adds row r's columns to the sorted window columns cols[0, count) (at most kRegroupWindowCols kept, the
/// smallest), through `scratch`; returns the new count.
template <class Crs>
KOKKOS_INLINE_FUNCTION int merge_columns(const Crs& A, int r, int* cols, int count, int* scratch) {
  int64_t k = A.row_map(r);
  const int64_t end = A.row_map(r + 1);
  int i = 0, out = 0;
  while (out < kRegroupWindowCols && (i < count || k < end)) {
    const bool from_row = k < end && (i == count || A.entries(k) < cols[i]);
    if (from_row) {
      scratch[out++] = A.entries(k++);
    } else {
      if (k < end && A.entries(k) == cols[i]) ++k;  // a column both hold, kept once
      scratch[out++] = cols[i++];
    }
  }
  for (int j = 0; j < out; ++j) cols[j] = scratch[j];
  return out;
}

/// `order` (position -> row of sorted A) with the rows of each chunk of `chunk` positions dealt into
/// windows of 8 again (see the file's comment). Throws std::invalid_argument unless `chunk` is a multiple
/// of 8 in [16, kMaxWindowChunk].
template <class ExecSpace>
View1<int, typename ExecSpace::memory_space> regroup_windows_on(
    const ExecSpace& exec, const SortedCrs<typename ExecSpace::memory_space>& A,
    const View1<const int, typename ExecSpace::memory_space>& order, int chunk) {
  if (chunk < 16 || chunk > kMaxWindowChunk || chunk % 8 != 0)
    throw std::invalid_argument("rsh::ReorderOptions: minhash_window_chunk = " + std::to_string(chunk) +
                                " is neither 0 nor a multiple of 8 in [16, " + std::to_string(kMaxWindowChunk) + "]");
  using Mem = typename ExecSpace::memory_space;
  const int64_t n = static_cast<int64_t>(order.extent(0));
  const auto out = uninitialized_view<int>(exec, "rsh::minhash::regrouped", n);
  const SortedCrs<Mem> crs = A;
  Kokkos::parallel_for(
      "rsh::inspect::minhash_regroup", Range64<ExecSpace>(exec, 0, (n + chunk - 1) / chunk),
      KOKKOS_LAMBDA(const int64_t c) {
        const int64_t begin = c * chunk;
        const int count = static_cast<int>(n - begin < chunk ? n - begin : chunk);
        uint64_t left = count == 64 ? ~uint64_t(0) : (uint64_t(1) << count) - 1;
        int cols[kRegroupWindowCols], scratch[kRegroupWindowCols];
        int64_t pos = begin;
        while (left != 0) {
          int pick = 0;  // the first row left starts a window
          while (!(left >> pick & 1)) ++pick;
          int window_cols = 0;
          for (int k = 0; k < 8 && left != 0; ++k) {
            if (k > 0) {  // the row sharing most columns with the window; the first in the order on a tie
              int best = -1;
              for (int j = 0; j < count; ++j) {
                if (!(left >> j & 1)) continue;
                const int s = shared_columns(crs, order(begin + j), cols, window_cols);
                if (s > best) best = s, pick = j;
              }
            }
            left &= ~(uint64_t(1) << pick);
            const int r = order(begin + pick);
            out(pos++) = r;
            window_cols = merge_columns(crs, r, cols, window_cols, scratch);
          }
        }
      });
  return out;
}

}  // namespace impl
}  // namespace rsh
