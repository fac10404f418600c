#pragma once
// Deterministic synthetic matrices for tests and benchmarks. The same seed
// gives the same matrix on every platform (own splitmix64 stream, no
// implementation-defined std:: distributions). Values are uniform in [-1, 1)
// unless stated.
#include <cstdint>

#include "RshSparse_CrsBundle.hpp"

namespace rsh {
namespace impl {
HostCrs generate_rmat_host(int scale, int edge_factor, uint64_t seed);
HostCrs generate_stencil27_host(int nx, int ny, int nz);
HostCrs generate_banded_host(int n, int half_bandwidth, double fill, uint64_t seed);
HostCrs generate_uniform_host(int num_rows, int num_cols, int nnz_per_row, uint64_t seed);
/// Graph of communities of 32-512 vertices (sizes random), each vertex drawing (degree + 1) / 2 edges,
/// inside its community with probability p_inside, else to any vertex; symmetrised, duplicates merged,
/// self-loops dropped, and every vertex id shuffled (the structure is there, the order hides it).
HostCrs generate_community_host(int num_vertices, int degree, double p_inside, uint64_t seed);
/// The k-nearest-neighbour graph of num_points uniform points in the unit cube (row p: p's k nearest
/// points among its 27 grid cells), in the random order of generation.
HostCrs generate_point_cloud_host(int num_points, int k, uint64_t seed);
/// Users x items, each user drawing per_user items (duplicates merged) whose popularity falls as a power
/// of their rank (skew >= 1; 1 = uniform), the ranks given shuffled item ids.
HostCrs generate_bipartite_host(int num_users, int num_items, int per_user, double skew, uint64_t seed);
}  // namespace impl

/// R-MAT power-law graph with Graph500 parameters (a, b, c) = (0.57, 0.19,
/// 0.19): 2^scale vertices, edge_factor * 2^scale generated edges,
/// symmetrised, self-loops dropped, duplicates merged.
template <class Scalar, class Offset = int, class MemorySpace = Kokkos::HostSpace>
CrsBundle<Scalar, Offset, MemorySpace> generate_rmat(int scale, int edge_factor, uint64_t seed) {
  return impl::to_bundle<Scalar, Offset, MemorySpace>(impl::generate_rmat_host(scale, edge_factor, seed), "rmat");
}

/// 27-point stencil on an nx x ny x nz grid (26 on the diagonal, -1 off it).
template <class Scalar, class Offset = int, class MemorySpace = Kokkos::HostSpace>
CrsBundle<Scalar, Offset, MemorySpace> generate_stencil27(int nx, int ny, int nz) {
  return impl::to_bundle<Scalar, Offset, MemorySpace>(impl::generate_stencil27_host(nx, ny, nz), "stencil27");
}

/// n x n band |i - j| <= half_bandwidth; each band position kept with probability `fill`.
template <class Scalar, class Offset = int, class MemorySpace = Kokkos::HostSpace>
CrsBundle<Scalar, Offset, MemorySpace> generate_banded(int n, int half_bandwidth, double fill, uint64_t seed) {
  return impl::to_bundle<Scalar, Offset, MemorySpace>(impl::generate_banded_host(n, half_bandwidth, fill, seed),
                                                      "banded");
}

/// num_rows x num_cols with exactly min(nnz_per_row, num_cols) distinct uniform columns per row.
template <class Scalar, class Offset = int, class MemorySpace = Kokkos::HostSpace>
CrsBundle<Scalar, Offset, MemorySpace> generate_uniform(int num_rows, int num_cols, int nnz_per_row, uint64_t seed) {
  return impl::to_bundle<Scalar, Offset, MemorySpace>(
      impl::generate_uniform_host(num_rows, num_cols, nnz_per_row, seed), "uniform");
}

}  // namespace rsh
