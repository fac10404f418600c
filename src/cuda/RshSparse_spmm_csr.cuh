#pragma once
// The handle-free multiply: the CUDA-core residual kernel over the user's CSR
// arrays, with work items cut from A's rows on the device at each call
// (ResidualItem, as build_schedule cuts a residual row), rows of up to
// `piece` nonzeros whole, longer ones in pieces of `piece`:
//   [0, rows)           a whole row as one item (empty rows too: they store beta * C); a row cut in pieces
//                       leaves its item empty (pieces = 0: it stores nothing);
//   [pair_base, local)  a row of 2, 3-4 or 5-8 pieces: an aligned run of 2, 4 or 8 items (so that it lies in
//                       one aligned group of kResidualPieceAlign, one CTA), summed by its first item, the
//                       run's unused items empty; each run size in its own region, aligned to the group;
//   [local, items)      pieces of longer rows, adding into C with atomics after scale_rows_kernel; FP64's in
//                       aligned groups of kResidualPieceAlign (atomic_row_items), each summed by its first item.
// Included by one .cu per precision, after the plan.
#include <cub/device/device_scan.cuh>

#include "cuda/RshSparse_spmm_cuda_plan.cuh"

namespace rsh {
namespace cuda {
namespace detail {

using impl::atomic_item_heads;
using impl::atomic_row_items;

/// Nonzeros of a work item: the mean row length rounded up to a power of two in [16, 128], so that the
/// rows of a regular matrix stay whole and those of a skewed one are cut near its mean.
inline int csr_piece_nnz(int rows, int64_t nnz) {
  int piece = 16;
  while (piece < 128 && int64_t(piece) * rows < nnz) piece *= 2;
  return piece;
}

/// Per-row counts, scanned: rows in runs of 2, 4 and 8 items, rows in atomic pieces, the items those take.
struct CsrCounts {
  int runs[3], atomic_rows, atomic_items;
};
struct AddCsrCounts {
  __host__ __device__ CsrCounts operator()(const CsrCounts& a, const CsrCounts& b) const {
    return {{a.runs[0] + b.runs[0], a.runs[1] + b.runs[1], a.runs[2] + b.runs[2]},
            a.atomic_rows + b.atomic_rows,
            a.atomic_items + b.atomic_items};
  }
};

/// Bits of the device's verdict on A.
enum CsrError : int { kCsrRowMap = 1, kCsrColumn = 2 };

__host__ __device__ inline int ceil_div(int64_t a, int b) {
  return static_cast<int>((a + b - 1) / b);
}

/// The run of items (0: 2, 1: 4, 2: 8) that holds a row of 2..kResidualPieceAlign pieces.
__device__ inline int run_class(int pieces) {
  return pieces <= 2 ? 0 : pieces <= 4 ? 1 : 2;
}

/// counts[r] for each row (counts[rows] = 0, so that the exclusive scan ends in the totals); row_map
/// errors into *error.
template <class Offset>
__global__ void csr_count_kernel(const Offset* row_map, int rows, int64_t nnz, int piece, bool group, CsrCounts* counts,
                                 int* error) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r > rows) return;
  CsrCounts c = {{0, 0, 0}, 0, 0};
  if (r == rows) {
    counts[r] = c;
    if (row_map[0] != 0 || row_map[rows] != nnz) atomicOr(error, kCsrRowMap);
    return;
  }
  const int64_t len = int64_t(row_map[r + 1]) - int64_t(row_map[r]);
  if (len < 0) atomicOr(error, kCsrRowMap);
  if (len > int64_t(kResidualPieceAlign) * piece) {
    c.atomic_rows = 1, c.atomic_items = atomic_row_items(ceil_div(len, piece), group);
  } else if (len > piece) {
    c.runs[run_class(ceil_div(len, piece))] = 1;
  }
  counts[r] = c;
}

/// Column ids outside [0, cols) into *error.
template <class Ordinal>
__global__ void csr_column_check_kernel(const Ordinal* entries, int64_t nnz, int cols, int* error) {
  int bad = 0;
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < nnz; k += int64_t(gridDim.x) * blockDim.x)
    bad |= static_cast<unsigned>(entries[k]) >= static_cast<unsigned>(cols);
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(error, kCsrColumn);
}

/// Where the item regions start (see the file comment).
struct CsrRegions {
  int run_base[3];
  int local;
};

/// Writes every row's items (see the file comment) and the rows of atomic pieces into scale_rows.
template <class Offset>
__global__ void csr_items_kernel(const Offset* row_map, int rows, int piece, bool group, CsrRegions regions,
                                 const CsrCounts* offsets, ResidualItem* items, int* scale_rows) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= regions.run_base[0]) return;
  if (r >= rows) {  // padding up to the aligned groups
    items[r] = {0, 0, 0, 0};
    return;
  }
  const int row = static_cast<int>(r);
  const int begin = static_cast<int>(row_map[r]), end = static_cast<int>(row_map[r + 1]);
  const int len = end - begin;
  if (len <= piece) {
    items[r] = {begin, end, row, 1};
    return;
  }
  items[r] = {0, 0, row, 0};
  const CsrCounts at = offsets[r];
  const int pieces = ceil_div(len, piece);
  const auto piece_item = [&](int i, int summed) {
    return ResidualItem{begin + i * piece, min(end, begin + (i + 1) * piece), row, summed};
  };
  if (pieces <= kResidualPieceAlign) {
    const int cls = run_class(pieces), run = 2 << cls;
    ResidualItem* first = items + regions.run_base[cls] + int64_t(run) * at.runs[cls];
    for (int i = 0; i < run; ++i)
      first[i] = i < pieces ? piece_item(i, i == 0 ? pieces : 0) : ResidualItem{0, 0, row, 0};
  } else {
    scale_rows[at.atomic_rows] = row;
    ResidualItem* first = items + regions.local + int64_t(at.atomic_items);
    for (int i = 0; i < atomic_row_items(pieces, group); ++i)
      first[i] = i < pieces ? piece_item(i, atomic_item_heads(i, pieces, group)) : ResidualItem{0, 0, row, 0};
  }
}

/// Throws std::invalid_argument on what the device found wrong with A.
inline void throw_csr_error(int error, int rows, int cols, int64_t nnz, const char* who = "rsh::cuda::spmm_csr") {
  if (error & kCsrRowMap)
    throw std::invalid_argument(std::string(who) + ": row_map of " + std::to_string(rows) +
                                " rows is not nondecreasing from 0 to nnz = " + std::to_string(nnz));
  if (error & kCsrColumn)
    throw std::invalid_argument(std::string(who) + ": a column id is outside [0, " + std::to_string(cols) + ")");
}

}  // namespace detail

template <class T, class Offset, class OutT>
void spmm_csr(const DeviceCsr<T, Offset>& A, Accum<T> alpha, const T* B, int64_t ldb, Accum<T> beta, OutT* C,
              int64_t ldc, int n, Layout layout, cudaStream_t stream) {
  using namespace detail;
  const int rows = A.num_rows;
  if (rows < 0 || A.num_cols < 0 || A.nnz < 0 || (rows > 0 && !A.row_map) || (A.nnz > 0 && (!A.entries || !A.values)))
    throw std::invalid_argument("rsh::cuda::spmm_csr: negative sizes or null arrays");
  if (A.nnz > int64_t(0x7fffffff) - 128)
    throw std::invalid_argument("rsh::cuda::spmm_csr: " + std::to_string(A.nnz) +
                                " nonzeros: work items take 32-bit offsets");
  check_dense_args(rows, A.num_cols, B, ldb, C, ldc, n, layout);
  if (n == 0 || rows == 0) return;

  // Counts and checks, then the totals: the sizes of the item arrays.
  const int piece = csr_piece_nnz(rows, A.nnz);
  StreamBuffer<CsrCounts> counts(size_t(rows) + 1, stream), offsets(size_t(rows) + 1, stream);
  StreamBuffer<int> error(1, stream);
  RSH_CUDA_CHECK(cudaMemsetAsync(error.get(), 0, sizeof(int), stream));
  const int64_t row_blocks = (int64_t(rows) + 256) / 256;
  const bool group = impl::groups_atomic_pieces(sizeof(T));
  csr_count_kernel<<<static_cast<unsigned>(row_blocks), 256, 0, stream>>>(A.row_map, rows, A.nnz, piece, group,
                                                                          counts.get(), error.get());
  check_launch("csr_count_kernel");
  if (A.nnz > 0) {
    const int64_t blocks = std::min<int64_t>((A.nnz + 255) / 256, 4096);
    csr_column_check_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(A.entries, A.nnz, A.num_cols,
                                                                               error.get());
    check_launch("csr_column_check_kernel");
  }
  const CsrCounts zero = {{0, 0, 0}, 0, 0};
  size_t scan_bytes = 0;
  RSH_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(nullptr, scan_bytes, counts.get(), offsets.get(), AddCsrCounts(), zero,
                                                rows + 1, stream));
  StreamBuffer<char> scan_space(scan_bytes, stream);
  RSH_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scan_space.get(), scan_bytes, counts.get(), offsets.get(),
                                                AddCsrCounts(), zero, rows + 1, stream));
  CsrCounts totals{};
  int host_error = 0;
  RSH_CUDA_CHECK(cudaMemcpyAsync(&totals, offsets.get() + rows, sizeof totals, cudaMemcpyDeviceToHost, stream));
  RSH_CUDA_CHECK(cudaMemcpyAsync(&host_error, error.get(), sizeof host_error, cudaMemcpyDeviceToHost, stream));
  RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (host_error) throw_csr_error(host_error, rows, A.num_cols, A.nnz);

  int64_t next = impl::align_to_groups(rows), base[3];
  for (int cls = 0; cls < 3; ++cls)
    base[cls] = next, next = impl::align_to_groups(next + (int64_t(2) << cls) * totals.runs[cls]);
  const int64_t local = next, num_items = local + totals.atomic_items;
  if (num_items > int64_t(0x7fffffff)) throw std::invalid_argument("rsh::cuda::spmm_csr: too many work items");
  const CsrRegions regions = {{int(base[0]), int(base[1]), int(base[2])}, int(local)};
  StreamBuffer<ResidualItem> items(size_t(num_items), stream);
  StreamBuffer<int> scale_rows(size_t(totals.atomic_rows), stream);
  // Alignment gaps between the regions are items nobody writes: empty.
  RSH_CUDA_CHECK(cudaMemsetAsync(items.get() + base[0], 0, sizeof(ResidualItem) * size_t(local - base[0]), stream));
  csr_items_kernel<<<static_cast<unsigned>((base[0] + 255) / 256), 256, 0, stream>>>(
      A.row_map, rows, piece, group, regions, offsets.get(), items.get(), scale_rows.get());
  check_launch("csr_items_kernel");

  PlanView<T> view;
  view.num_rows = rows, view.num_cols = A.num_cols;
  view.res_cols = A.entries, view.res_values = A.values, view.res_items = items.get();
  view.res_num_items = static_cast<int>(num_items), view.res_num_local = static_cast<int>(local);
  view.scale_rows = scale_rows.get(), view.num_scale_rows = totals.atomic_rows;
  static const int64_t wave_ctas = residual_wave_ctas<T>();
  view.residual_wave_ctas = wave_ctas;
  spmm_view<T, OutT>(view, alpha, B, ldb, beta, C, ldc, n, layout, stream);
}

}  // namespace cuda
}  // namespace rsh
