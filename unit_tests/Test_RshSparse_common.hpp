#pragma once
// Shared test helpers: random matrices, the double-precision host reference
// and the per-column relative error of DESIGN section 7.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <tuple>
#include <string>
#include <vector>

#include "RshSparse_spmm_options.hpp"
#include "impl/RshSparse_HostCrs.hpp"
#include "impl/RshSparse_inspector.hpp"

namespace rsh {
namespace test {

using rsh::kAllPartitions;

/// Options with a partition and (small, to force splits) work-item bounds.
inline Options options(Partition p, int max_tiles = 64, int max_residual_nnz = 1024) {
  Options o;
  o.partition = p;
  o.tuning.max_tiles_per_item = max_tiles;
  o.tuning.max_residual_nnz_per_item = max_residual_nnz;
  return o;
}

/// True when the tests run under compute-sanitizer (scripts/run_gpu.sh sanitize sets RSH_TEST_SANITIZER=1).
/// There each test keeps every kernel configuration it covers and leaves out what only runs the same
/// kernels again (a second call, the handle-free call, the comparison with another library, a repeated
/// matrix): the tools multiply the kernels' time hundreds of times, and a repeat checks nothing new.
inline bool under_sanitizer() {
  static const bool on = [] {
    const char* v = std::getenv("RSH_TEST_SANITIZER");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return on;
}

/// Fresh random seed per call (printed by the caller on failure).
inline uint64_t fresh_seed() {
  static std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

/// Random CSR: each row gets a length from [0, max_row_nnz]; columns uniform
/// or clustered (clustered rows share columns, as in graphs with locality).
/// A with each row's entries shuffled and every 7th entry a repeat of its predecessor's column (summed).
inline impl::HostCrs shuffled_with_duplicates(impl::HostCrs A, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int64_t r = 0; r < A.num_rows; ++r) {
    const int64_t b = A.row_map[r], e = A.row_map[r + 1];
    for (int64_t k = b + 1; k < e; k += 7) A.entries[k] = A.entries[k - 1];
    for (int64_t k = e - 1; k > b; --k) {
      const int64_t j = b + static_cast<int64_t>(rng() % uint64_t(k - b + 1));
      std::swap(A.entries[k], A.entries[j]);
      std::swap(A.values[k], A.values[j]);
    }
  }
  return A;
}

inline impl::HostCrs random_crs(int rows, int cols, int max_row_nnz, uint64_t seed, bool clustered = false) {
  std::mt19937_64 rng(seed);
  std::vector<impl::CooEntry> coo;
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int r = 0; r < rows; ++r) {
    const int len = cols ? static_cast<int>(rng() % (max_row_nnz + 1)) : 0;
    const int base = clustered ? (r / 8) * 13 % std::max(1, cols) : 0;
    for (int k = 0; k < len; ++k) {
      const int c = clustered ? (base + static_cast<int>(rng() % 24)) % cols : static_cast<int>(rng() % cols);
      coo.push_back({r, c, val(rng)});
    }
  }
  return impl::coo_to_crs(rows, cols, std::move(coo));
}

/// The operator of an nx x ny x nz grid (nz = 1: 2-D), random values: each point's columns are the points within
/// `reach` of it, every offset (`box`) or those along one axis (a star). With `blocked` its rows are put in blocks
/// of 4 x 4 x 2 points (8 x 4 in 2-D), blocks and the points inside them in the grid's order (Reorder::kGridBlocks'
/// order; the columns keep the grid's numbering). Every `extra_every`-th row (0: none) gets 40 random columns more.
inline impl::HostCrs grid_crs(int nx, int ny, int nz, int reach, bool box, uint64_t seed, bool blocked = false,
                              int extra_every = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  const int n = nx * ny * nz, hz = nz > 1 ? reach : 0;
  std::vector<int> point(n);  // row -> grid point
  for (int p = 0; p < n; ++p) point[p] = p;
  if (blocked) {
    const int bx = nz > 1 ? 4 : 8, by = 4, bz = nz > 1 ? 2 : 1;
    const auto key = [&](int p) {
      const int x = p % nx, y = p / nx % ny, z = p / (nx * ny);
      return std::make_tuple(z / bz, y / by, x / bx, z % bz, y % by, x % bx);
    };
    std::sort(point.begin(), point.end(), [&](int a, int b) { return key(a) < key(b); });
  }
  std::vector<impl::CooEntry> coo;
  for (int r = 0; r < n; ++r) {
    const int x = point[r] % nx, y = point[r] / nx % ny, z = point[r] / (nx * ny);
    for (int dz = -hz; dz <= hz; ++dz)
      for (int dy = -reach; dy <= reach; ++dy)
        for (int dx = -reach; dx <= reach; ++dx) {
          if (!box && (dx != 0) + (dy != 0) + (dz != 0) > 1) continue;
          const int cx = x + dx, cy = y + dy, cz = z + dz;
          if (cx >= 0 && cx < nx && cy >= 0 && cy < ny && cz >= 0 && cz < nz)
            coo.push_back({r, cx + nx * (cy + ny * cz), val(rng)});
        }
    if (extra_every > 0 && r % extra_every == 0)
      for (int i = 0; i < 40; ++i) coo.push_back({r, static_cast<int>(rng() % n), val(rng)});
  }
  return impl::coo_to_crs(n, n, std::move(coo));
}

/// The first matrix among pruned-layer-like ones (2048 x 512, rows of up to 40-140 nonzeros) for which the
/// inspector's kAuto picks a partition for N = 64 other than for N = 128, with values of `value_bytes` bytes;
/// false where none does.
inline bool n_dependent_auto_matrix(int value_bytes, uint64_t seed, impl::HostCrs& A) {
  Options at64, at128;
  at64.expected_num_vectors = 64, at128.expected_num_vectors = 128;
  for (int max_row_nnz = 40; max_row_nnz <= 140; max_row_nnz += 4) {
    A = random_crs(2048, 512, max_row_nnz, seed + max_row_nnz);
    if (impl::inspect(A, at64, "test", value_bytes).partition != impl::inspect(A, at128, "test", value_bytes).partition)
      return true;
  }
  return false;
}

/// Row-major dense matrix in double.
struct Dense {
  int64_t rows = 0, cols = 0;
  std::vector<double> v;
  Dense(int64_t r, int64_t c) : rows(r), cols(c), v(r * c, 0.0) {}
  double& operator()(int64_t i, int64_t j) { return v[i * cols + j]; }
  double operator()(int64_t i, int64_t j) const { return v[i * cols + j]; }
};

inline Dense random_dense(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  Dense d(rows, cols);
  for (double& x : d.v) x = val(rng);
  return d;
}

/// C = alpha * A * B + beta * C in double; beta == 0 ignores C.
inline Dense reference_spmm(const impl::HostCrs& A, const Dense& B, double alpha, double beta, const Dense& C0) {
  Dense C(A.num_rows, B.cols);
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t j = 0; j < B.cols; ++j) {
      double acc = 0.0;
      for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) acc += A.values[k] * B(A.entries[k], j);
      C(r, j) = alpha * acc + (beta == 0.0 ? 0.0 : beta * C0(r, j));
    }
  return C;
}

/// C = alpha * A^T * B + beta * C in double (each entry of A scattered to its column's row of C); beta == 0
/// ignores C.
inline Dense reference_spmm_transposed(const impl::HostCrs& A, const Dense& B, double alpha, double beta,
                                       const Dense& C0) {
  Dense acc(A.num_cols, B.cols), C(A.num_cols, B.cols);
  for (int64_t r = 0; r < A.num_rows; ++r)
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k)
      for (int64_t j = 0; j < B.cols; ++j) acc(A.entries[k], j) += A.values[k] * B(r, j);
  for (int64_t c = 0; c < A.num_cols; ++c)
    for (int64_t j = 0; j < B.cols; ++j) C(c, j) = alpha * acc(c, j) + (beta == 0.0 ? 0.0 : beta * C0(c, j));
  return C;
}

/// max over columns of ||got - ref|| / ||ref|| (absolute where ref is zero); NaN -> infinity.
template <class Get>
double max_column_error(const Dense& ref, Get got) {
  double worst = 0.0;
  for (int64_t j = 0; j < ref.cols; ++j) {
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < ref.rows; ++i) {
      const double g = static_cast<double>(got(i, j));
      if (!std::isfinite(g)) return std::numeric_limits<double>::infinity();
      num += (g - ref(i, j)) * (g - ref(i, j));
      den += ref(i, j) * ref(i, j);
    }
    worst = std::max(worst, den > 0 ? std::sqrt(num / den) : std::sqrt(num));
  }
  return worst;
}

/// Path of a matrix of the shared benchmark set, or "" when not present.
inline std::string shared_matrix(const std::string& rel) {
#ifndef RSH_SHARED_MATRICES
#define RSH_SHARED_MATRICES "../shared/matrices"
#endif
  for (const char* root : {static_cast<const char*>(std::getenv("RSH_MATRIX_DIR")), RSH_SHARED_MATRICES}) {
    if (!root) continue;
    const std::string p = std::string(root) + "/" + rel;
    if (FILE* f = std::fopen(p.c_str(), "rb")) {
      std::fclose(f);
      return p;
    }
  }
  return "";
}

}  // namespace test
}  // namespace rsh
