#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "RshSparse_generators.hpp"

namespace rsh {
namespace impl {
namespace {

/// splitmix64: tiny, portable, good enough for test data.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  double value() { return 2.0 * uniform() - 1.0; }                                             // [-1, 1)
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

void require(bool cond, const std::string& msg) {
  if (!cond) throw std::invalid_argument(msg);
}

}  // namespace

HostCrs generate_rmat_host(int scale, int edge_factor, uint64_t seed) {
  require(scale >= 0 && scale <= 30 && edge_factor >= 0, "rsh::generate_rmat: scale in [0, 30], edge_factor >= 0");
  const int64_t n = int64_t(1) << scale;
  const int64_t edges = n * edge_factor;
  constexpr double kA = 0.57, kB = 0.19, kC = 0.19;
  Random rng(seed);
  std::vector<CooEntry> coo;
  coo.reserve(2 * edges);
  for (int64_t e = 0; e < edges; ++e) {
    int64_t i = 0, j = 0;
    for (int level = 0; level < scale; ++level) {
      const double u = rng.uniform();
      const int64_t bit = int64_t(1) << (scale - 1 - level);
      if (u < kA) {
      } else if (u < kA + kB) {
        j |= bit;
      } else if (u < kA + kB + kC) {
        i |= bit;
      } else {
        i |= bit, j |= bit;
      }
    }
    if (i == j) continue;
    const double v = rng.value();
    coo.push_back({i, j, v});
    coo.push_back({j, i, v});
  }
  HostCrs A = coo_to_crs(n, n, std::move(coo));
  // Merged duplicates would otherwise carry summed values of growing size.
  Random vals(seed ^ 0x5bd1e995ULL);
  for (double& v : A.values) v = vals.value();
  return A;
}

HostCrs generate_stencil27_host(int nx, int ny, int nz) {
  require(nx >= 0 && ny >= 0 && nz >= 0, "rsh::generate_stencil27: negative grid size");
  const int64_t n = int64_t(nx) * ny * nz;
  require(n <= std::numeric_limits<int>::max(), "rsh::generate_stencil27: grid exceeds 32-bit index range");
  HostCrs A;
  A.num_rows = A.num_cols = n;
  A.row_map.assign(n + 1, 0);
  A.entries.reserve(27 * n);
  A.values.reserve(27 * n);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int64_t row = (int64_t(z) * ny + y) * nx + x;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int xx = x + dx, yy = y + dy, zz = z + dz;
              if (xx < 0 || yy < 0 || zz < 0 || xx >= nx || yy >= ny || zz >= nz) continue;
              A.entries.push_back(static_cast<int>((int64_t(zz) * ny + yy) * nx + xx));
              A.values.push_back(dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0);
            }
        A.row_map[row + 1] = static_cast<int64_t>(A.entries.size());
      }
  return A;
}

HostCrs generate_banded_host(int n, int half_bandwidth, double fill, uint64_t seed) {
  require(n >= 0 && half_bandwidth >= 0 && fill >= 0.0 && fill <= 1.0, "rsh::generate_banded: bad arguments");
  Random rng(seed);
  HostCrs A;
  A.num_rows = A.num_cols = n;
  A.row_map.assign(int64_t(n) + 1, 0);
  for (int i = 0; i < n; ++i) {
    const int lo = std::max(0, i - half_bandwidth), hi = std::min(n - 1, i + half_bandwidth);
    for (int j = lo; j <= hi; ++j) {
      if (j != i && rng.uniform() >= fill) continue;  // keep the diagonal: no empty rows
      A.entries.push_back(j);
      A.values.push_back(rng.value());
    }
    A.row_map[i + 1] = static_cast<int64_t>(A.entries.size());
  }
  return A;
}

HostCrs generate_uniform_host(int num_rows, int num_cols, int nnz_per_row, uint64_t seed) {
  require(num_rows >= 0 && num_cols >= 0 && nnz_per_row >= 0, "rsh::generate_uniform: negative arguments");
  const int per_row = std::min(nnz_per_row, num_cols);
  Random rng(seed);
  HostCrs A;
  A.num_rows = num_rows;
  A.num_cols = num_cols;
  A.row_map.assign(int64_t(num_rows) + 1, 0);
  std::vector<int> cols;
  std::unordered_set<int> taken;
  for (int i = 0; i < num_rows; ++i) {
    cols.clear();
    taken.clear();
    while (static_cast<int>(cols.size()) < per_row) {
      const int c = static_cast<int>(rng.below(num_cols));
      if (taken.insert(c).second) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    for (int c : cols) {
      A.entries.push_back(c);
      A.values.push_back(rng.value());
    }
    A.row_map[i + 1] = static_cast<int64_t>(A.entries.size());
  }
  return A;
}

}  // namespace impl
}  // namespace rsh
