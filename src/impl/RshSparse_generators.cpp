#include <algorithm>
#include <cmath>
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

namespace {

/// A uniformly random permutation of [0, n) (Fisher-Yates on the stream).
std::vector<int> random_permutation(int64_t n, Random& rng) {
  std::vector<int> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int>(i);
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng.below(i + 1)]);
  return p;
}

}  // namespace

HostCrs generate_community_host(int num_vertices, int degree, double p_inside, uint64_t seed) {
  require(num_vertices >= 2 && degree >= 0 && p_inside >= 0.0 && p_inside <= 1.0,
          "rsh::generate_community: num_vertices >= 2, degree >= 0, p_inside in [0, 1]");
  Random rng(seed);
  // Communities of 32..512 consecutive vertices, then every id shuffled.
  std::vector<int> first_of(num_vertices);
  std::vector<int> size_of(num_vertices);
  for (int v = 0; v < num_vertices;) {
    const int size = std::min<int>(32 + static_cast<int>(rng.below(481)), num_vertices - v);
    for (int i = 0; i < size; ++i) first_of[v + i] = v, size_of[v + i] = size;
    v += size;
  }
  const std::vector<int> id = random_permutation(num_vertices, rng);
  std::vector<CooEntry> coo;
  coo.reserve(int64_t(num_vertices) * degree);
  for (int v = 0; v < num_vertices; ++v)
    for (int e = 0; e < (degree + 1) / 2; ++e) {
      const int u = rng.uniform() < p_inside ? first_of[v] + static_cast<int>(rng.below(size_of[v]))
                                             : static_cast<int>(rng.below(num_vertices));
      if (u == v) continue;
      const double value = rng.value();
      coo.push_back({id[v], id[u], value});
      coo.push_back({id[u], id[v], value});
    }
  return coo_to_crs(num_vertices, num_vertices, std::move(coo));
}

HostCrs generate_point_cloud_host(int num_points, int k, uint64_t seed) {
  require(num_points >= 1 && k >= 0 && k < num_points, "rsh::generate_point_cloud: 0 <= k < num_points");
  Random rng(seed);
  std::vector<double> xyz(3 * int64_t(num_points));
  for (double& c : xyz) c = rng.uniform();
  // Cells of about 2k points; a point's k nearest lie in its 27 cells unless the cloud is tiny.
  const int cells = std::max(1, static_cast<int>(std::cbrt(double(num_points) / (2.0 * std::max(k, 1)))));
  auto cell_of = [&](int64_t p, int axis) { return std::min(cells - 1, static_cast<int>(xyz[3 * p + axis] * cells)); };
  std::vector<int64_t> start(int64_t(cells) * cells * cells + 1, 0);
  auto cell_id = [&](int x, int y, int z) { return (int64_t(z) * cells + y) * cells + x; };
  for (int64_t p = 0; p < num_points; ++p) ++start[cell_id(cell_of(p, 0), cell_of(p, 1), cell_of(p, 2)) + 1];
  for (size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
  std::vector<int> members(num_points);
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t p = 0; p < num_points; ++p)
      members[fill[cell_id(cell_of(p, 0), cell_of(p, 1), cell_of(p, 2))]++] = static_cast<int>(p);
  }
  HostCrs A;
  A.num_rows = A.num_cols = num_points;
  A.row_map.assign(int64_t(num_points) + 1, 0);
  A.entries.reserve(int64_t(num_points) * k);
  std::vector<std::pair<double, int>> near;
  for (int64_t p = 0; p < num_points; ++p) {
    near.clear();
    const int cx = cell_of(p, 0), cy = cell_of(p, 1), cz = cell_of(p, 2);
    for (int z = std::max(0, cz - 1); z <= std::min(cells - 1, cz + 1); ++z)
      for (int y = std::max(0, cy - 1); y <= std::min(cells - 1, cy + 1); ++y)
        for (int x = std::max(0, cx - 1); x <= std::min(cells - 1, cx + 1); ++x)
          for (int64_t m = start[cell_id(x, y, z)]; m < start[cell_id(x, y, z) + 1]; ++m) {
            const int q = members[m];
            if (q == p) continue;
            double d = 0;
            for (int a = 0; a < 3; ++a) d += (xyz[3 * p + a] - xyz[3 * q + a]) * (xyz[3 * p + a] - xyz[3 * q + a]);
            near.push_back({d, q});
          }
    const size_t take = std::min<size_t>(k, near.size());
    std::partial_sort(near.begin(), near.begin() + take, near.end());
    std::vector<int> cols(take);
    for (size_t i = 0; i < take; ++i) cols[i] = near[i].second;
    std::sort(cols.begin(), cols.end());
    for (int c : cols) A.entries.push_back(c), A.values.push_back(rng.value());
    A.row_map[p + 1] = static_cast<int64_t>(A.entries.size());
  }
  return A;
}

HostCrs generate_bipartite_host(int num_users, int num_items, int per_user, double skew, uint64_t seed) {
  require(num_users >= 0 && num_items >= 1 && per_user >= 0 && skew >= 1.0,
          "rsh::generate_bipartite: num_items >= 1, per_user >= 0, skew >= 1");
  Random rng(seed);
  const std::vector<int> item_id = random_permutation(num_items, rng);
  std::vector<CooEntry> coo;
  coo.reserve(int64_t(num_users) * per_user);
  for (int u = 0; u < num_users; ++u)
    for (int e = 0; e < per_user; ++e) {
      // Item popularity falls as a power of its rank (u^skew crowds the low ranks); ranks get shuffled ids.
      const int rank = std::min(num_items - 1, static_cast<int>(std::pow(rng.uniform(), skew) * num_items));
      coo.push_back({u, item_id[rank], rng.value()});
    }
  return coo_to_crs(num_users, num_items, std::move(coo));
}

}  // namespace impl
}  // namespace rsh
