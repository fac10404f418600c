// A small Kokkos application: reads a matrix (default: a built-in generated
// R-MAT graph), builds the rsh handle, multiplies with N = 128 columns,
// checks the result against KokkosSparse::spmv and prints the format
// statistics and the time of each phase.
//   rsh_spmm_example [matrix.mtx[.gz]] [N]
// Exit status: 0 when the results agree, 1 when they do not, 2 on an error (one line on stderr).
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "RshSparse_IOUtils.hpp"
#include "RshSparse_generators.hpp"
#include "RshSparse_spmm.hpp"

namespace {

int run(int argc, char** argv) {
  using Scalar = double;
  using Exec = Kokkos::DefaultExecutionSpace;
  using Memory = Exec::memory_space;
  using Device = Kokkos::Device<Exec, Memory>;
  using Matrix = KokkosSparse::CrsMatrix<Scalar, int, Device, void, int>;
  using MultiVector = Kokkos::View<Scalar**, Kokkos::LayoutRight, Device>;

  const std::string path = argc > 1 ? argv[1] : "";
  const int n = argc > 2 ? std::atoi(argv[2]) : 128;
  if (n < 1 || n > 1 << 16)
    throw std::invalid_argument("N must be an integer in [1, 65536], got '" + std::string(argc > 2 ? argv[2] : "") +
                                "'");
  Kokkos::Timer timer;
  const auto bundle = path.empty() ? rsh::generate_rmat<Scalar, int, Memory>(14, 8, 42)
                                   : rsh::read_matrix_market<Scalar, int, Memory>(path);
  const double t_load = timer.seconds();
  const Matrix A("A", bundle.num_rows, bundle.num_cols, bundle.nnz(), bundle.values, bundle.row_map, bundle.entries);
  std::printf("matrix: %s, %d x %d, %d nonzeros, N = %d, execution space %s\n",
              path.empty() ? "built-in R-MAT (scale 14, edge factor 8)" : path.c_str(), A.numRows(), A.numCols(),
              static_cast<int>(A.nnz()), n, Exec::name());

  MultiVector B("B", A.numCols(), n), C("C", A.numRows(), n), C_ref("C_ref", A.numRows(), n);
  Kokkos::parallel_for(
      "fill_B", Kokkos::RangePolicy<Exec>(0, A.numCols()), KOKKOS_LAMBDA(const int i) {
        for (int j = 0; j < n; ++j) B(i, j) = std::sin(0.01 * i + 0.1 * j);
      });

  rsh::SpmmHandle<Scalar, Device> handle;
  timer.reset();
  handle.analyze(A);
  const double t_analyze = timer.seconds();
  rsh::spmm(Exec(), &handle, "N", Scalar(1), A, B, Scalar(0), C);  // warm-up
  Exec().fence();
  constexpr int kRuns = 5;
  timer.reset();
  for (int r = 0; r < kRuns; ++r) rsh::spmm(Exec(), &handle, "N", Scalar(1), A, B, Scalar(0), C);
  Exec().fence();
  const double t_spmm = timer.seconds() / kRuns;
  timer.reset();
  KokkosSparse::spmv("N", Scalar(1), A, B, Scalar(0), C_ref);
  Exec().fence();
  const double t_kk = timer.seconds();

  double err = 0, ref = 0;
  Kokkos::parallel_reduce(
      "compare", Kokkos::RangePolicy<Exec>(0, A.numRows()),
      KOKKOS_LAMBDA(const int i, double& e) {
        for (int j = 0; j < n; ++j) e += (C(i, j) - C_ref(i, j)) * (C(i, j) - C_ref(i, j));
      },
      err);
  Kokkos::parallel_reduce(
      "norm", Kokkos::RangePolicy<Exec>(0, A.numRows()),
      KOKKOS_LAMBDA(const int i, double& s) {
        for (int j = 0; j < n; ++j) s += C_ref(i, j) * C_ref(i, j);
      },
      ref);
  const double rel = ref > 0 ? std::sqrt(err / ref) : std::sqrt(err);

  std::printf("%s", handle.describe().c_str());
  std::printf("phases [ms]: load %.2f, analyze %.2f, rsh::spmm %.3f (mean of %d), KokkosSparse::spmv %.3f\n",
              1e3 * t_load, 1e3 * t_analyze, 1e3 * t_spmm, kRuns, 1e3 * t_kk);
  std::printf("||C_rsh - C_kokkoskernels|| / ||C_kokkoskernels|| = %.3e  %s\n", rel, rel < 1e-12 ? "OK" : "MISMATCH");
  return rel < 1e-12 ? 0 : 1;
}

}  // namespace

// Every failure (a malformed or missing file, a matrix the machine cannot hold, a bad argument) is one line
// on stderr and exit status 2, never an uncaught exception.
int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rsh_spmm_example: %s\n", e.what());
    return 2;
  }
}
