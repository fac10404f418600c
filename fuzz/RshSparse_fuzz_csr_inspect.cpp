// libFuzzer harness: CSR validation, inspection and the multiply on arbitrary
// small matrices. The input's bytes become a CSR (possibly malformed: offsets
// that decrease or overrun, columns out of range, unsorted and duplicate
// columns) and the options (partition, reordering, work-item bounds, row
// panels). A malformed CSR or bad options must be rejected with std::invalid_argument
// and leave C untouched; an accepted one must give C = A B within FP64
// rounding of a double host reference, through the handle and handle-free
// calls, in both modes, on Kokkos' default host execution space.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "RshSparse_spmm.hpp"

namespace {

using Exec = Kokkos::DefaultHostExecutionSpace;
using Device = Kokkos::Device<Exec, Exec::memory_space>;
using Matrix = rsh::CrsBundle<double, int, Exec::memory_space>;
using Dense = Kokkos::View<double**, Kokkos::LayoutRight, Device>;

/// Reads the input front to back; zeros past its end.
struct Bytes {
  const uint8_t* data;
  size_t size, pos = 0;
  uint8_t next() { return pos < size ? data[pos++] : 0; }
};

void require(bool ok) {
  if (!ok) std::abort();
}

/// max |got - ref| / (1 + |ref|) over C = alpha op(A) B + beta C0, all in double on the host.
double error(const Matrix& A, const Dense& B, const Dense& C0, const Dense& C, bool transpose) {
  std::vector<double> ref(C.extent(0) * C.extent(1), 0.0);
  const int n = static_cast<int>(C.extent(1));
  for (int r = 0; r < A.num_rows; ++r)
    for (int k = A.row_map(r); k < A.row_map(r + 1); ++k)
      for (int j = 0; j < n; ++j) {
        if (transpose)
          ref[A.entries(k) * n + j] += A.values(k) * B(r, j);
        else
          ref[r * n + j] += A.values(k) * B(A.entries(k), j);
      }
  double worst = 0;
  for (size_t i = 0; i < C.extent(0); ++i)
    for (int j = 0; j < n; ++j) {
      const double want = 1.5 * ref[i * n + j] - 0.5 * C0(i, j);
      worst = std::fmax(worst, std::fabs(C(i, j) - want) / (1.0 + std::fabs(want)));
    }
  return worst;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  Kokkos::initialize(*argc, *argv);
  std::atexit([] {
    rsh::clear_analysis_cache();
    Kokkos::finalize();
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in{data, size};
  const int rows = in.next() % 40, cols = in.next() % 40;
  const uint8_t flags = in.next();
  rsh::Options options;
  options.partition = static_cast<rsh::Partition>(in.next() % (static_cast<int>(rsh::Partition::kAuto) + 1));
  options.reorder = static_cast<rsh::Reorder>(in.next() % (static_cast<int>(rsh::Reorder::kAuto) + 1));
  options.tuning.max_tiles_per_item = static_cast<int>(in.next() % 9) - 1;  // 0 and -1: rejected
  options.tuning.max_residual_nnz_per_item = 8 * (in.next() % 5);
  options.expected_multiplies = in.next();
  options.tuning.libra_eta = (in.next() % 10) / 8.0;  // 0 and past 1: rejected
  const uint8_t panel = in.next();                    // the default, or row panels of a few nonzeros (0: rejected)
  if (!(panel & 0x80)) options.tuning.max_panel_nnz = panel % 64;

  Matrix A;
  A.num_rows = rows, A.num_cols = cols;
  A.row_map = Matrix::row_map_type("row_map", rows + 1);
  int nnz = 0;
  for (int r = 1; r <= rows; ++r) {
    const int len = in.next() % 12;
    // flags & 1: an offset may step back (a malformed CSR); else offsets never decrease.
    nnz += (flags & 1) && len > 9 ? -1 : len;
    A.row_map(r) = nnz;
  }
  const int declared = nnz < 0 ? 0 : nnz;
  const int extra = (flags & 2) ? in.next() % 3 : 0;  // entries beyond row_map(rows): rejected
  A.entries = Matrix::entries_type("entries", declared + extra);
  A.values = Matrix::values_type("values", declared + extra);
  for (int k = 0; k < declared + extra; ++k) {
    const int c = in.next();
    // flags & 4: columns may fall outside [0, cols); else they wrap into it (unsorted, duplicates allowed).
    A.entries(k) = (flags & 4) ? c - 2 : (cols ? c % cols : c);
    A.values(k) = (static_cast<int>(in.next()) - 128) / 16.0;
  }
  const bool transpose = flags & 8;
  const int n = 1 + (flags >> 4) % 9;
  Dense B("B", transpose ? rows : cols, n), C("C", transpose ? cols : rows, n), C0("C0", C.extent(0), n);
  for (size_t i = 0; i < B.extent(0); ++i)
    for (int j = 0; j < n; ++j) B(i, j) = std::sin(1.0 + i + 7.0 * j);
  for (size_t i = 0; i < C.extent(0); ++i)
    for (int j = 0; j < n; ++j) C0(i, j) = std::cos(2.0 + 3.0 * i + j);
  const char* mode = transpose ? "T" : "N";

  for (int call = 0; call < 3; ++call) {  // with a handle, then the handle-free first call and its repeat
    Kokkos::deep_copy(C, C0);
    try {
      if (call == 0) {
        rsh::SpmmHandle<double, Device> handle(options);
        rsh::spmm(Exec(), &handle, mode, 1.5, A, B, -0.5, C);
      } else {
        rsh::spmm(Exec(), mode, 1.5, A, B, -0.5, C);
      }
    } catch (const std::invalid_argument&) {
      for (size_t i = 0; i < C.extent(0); ++i)
        for (int j = 0; j < n; ++j) require(C(i, j) == C0(i, j));  // rejected before touching C
      continue;
    }
    require(error(A, B, C0, C, transpose) <= 1e-12);
  }
  return 0;  // the analysis cache is kept: the next input's views may reuse these addresses, which it must see
}
