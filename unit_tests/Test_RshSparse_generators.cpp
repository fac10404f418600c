// Synthetic generators: deterministic per seed, and the structure each promises.
#include <gtest/gtest.h>

#include <algorithm>

#include "RshSparse_generators.hpp"

namespace {

using rsh::impl::HostCrs;

bool same(const HostCrs& a, const HostCrs& b) {
  return a.num_rows == b.num_rows && a.row_map == b.row_map && a.entries == b.entries && a.values == b.values;
}

bool has(const HostCrs& A, int r, int c) {
  return std::binary_search(A.entries.begin() + A.row_map[r], A.entries.begin() + A.row_map[r + 1], c);
}

TEST(Generators, RmatIsDeterministicSymmetricWithoutSelfLoops) {
  const HostCrs A = rsh::impl::generate_rmat_host(10, 8, 7);
  EXPECT_TRUE(same(A, rsh::impl::generate_rmat_host(10, 8, 7)));
  EXPECT_FALSE(same(A, rsh::impl::generate_rmat_host(10, 8, 8)));
  ASSERT_EQ(A.num_rows, 1024);
  int64_t max_deg = 0;
  for (int r = 0; r < A.num_rows; ++r) {
    max_deg = std::max(max_deg, A.row_map[r + 1] - A.row_map[r]);
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
      EXPECT_NE(A.entries[k], r);
      EXPECT_TRUE(has(A, A.entries[k], r));
      if (k > A.row_map[r]) EXPECT_LT(A.entries[k - 1], A.entries[k]);
    }
  }
  EXPECT_GT(max_deg, 10 * A.nnz() / A.num_rows);  // power law: hubs far above the mean
}

TEST(Generators, StencilBandedUniform) {
  const HostCrs S = rsh::impl::generate_stencil27_host(4, 5, 6);
  ASSERT_EQ(S.num_rows, 120);
  EXPECT_EQ(S.row_map[1] - S.row_map[0], 8);                                           // corner
  EXPECT_EQ(S.row_map[(2 * 5 + 2) * 4 + 2 + 1] - S.row_map[(2 * 5 + 2) * 4 + 2], 27);  // interior
  const HostCrs B = rsh::impl::generate_banded_host(100, 3, 0.5, 1);
  for (int r = 0; r < 100; ++r) {
    EXPECT_TRUE(has(B, r, r));
    for (int64_t k = B.row_map[r]; k < B.row_map[r + 1]; ++k) EXPECT_LE(std::abs(B.entries[k] - r), 3);
  }
  const HostCrs U = rsh::impl::generate_uniform_host(50, 20, 7, 3);
  for (int r = 0; r < 50; ++r) EXPECT_EQ(U.row_map[r + 1] - U.row_map[r], 7);
  EXPECT_TRUE(same(U, rsh::impl::generate_uniform_host(50, 20, 7, 3)));
  EXPECT_THROW(rsh::impl::generate_rmat_host(40, 1, 1), std::invalid_argument);
}

TEST(Generators, ShuffledCommunitiesAreSymmetricAndMostlyInside) {
  const HostCrs A = rsh::impl::generate_community_host(4000, 12, 0.9, 5);
  EXPECT_TRUE(same(A, rsh::impl::generate_community_host(4000, 12, 0.9, 5)));
  EXPECT_FALSE(same(A, rsh::impl::generate_community_host(4000, 12, 0.9, 6)));
  ASSERT_EQ(A.num_rows, 4000);
  EXPECT_GT(A.nnz(), 4000 * 10);
  // Neighbours of a vertex share neighbours (communities), yet ids are shuffled: consecutive rows share few.
  int64_t shared_with_neighbour = 0, shared_with_next = 0;
  auto common = [&](int a, int b) {
    int64_t n = 0;
    for (int64_t k = A.row_map[a]; k < A.row_map[a + 1]; ++k) n += has(A, b, A.entries[k]);
    return n;
  };
  for (int r = 0; r + 1 < A.num_rows; ++r) {
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
      EXPECT_NE(A.entries[k], r);
      EXPECT_TRUE(has(A, A.entries[k], r));
    }
    if (A.row_map[r + 1] > A.row_map[r]) shared_with_neighbour += common(r, A.entries[A.row_map[r]]);
    shared_with_next += common(r, r + 1);
  }
  EXPECT_GT(shared_with_neighbour, 4 * shared_with_next);
}

TEST(Generators, PointCloudRowsHoldTheirNearestPoints) {
  const HostCrs A = rsh::impl::generate_point_cloud_host(3000, 8, 2);
  EXPECT_TRUE(same(A, rsh::impl::generate_point_cloud_host(3000, 8, 2)));
  ASSERT_EQ(A.num_rows, 3000);
  for (int r = 0; r < A.num_rows; ++r) {
    EXPECT_EQ(A.row_map[r + 1] - A.row_map[r], 8);
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
      EXPECT_NE(A.entries[k], r);
      if (k > A.row_map[r]) EXPECT_LT(A.entries[k - 1], A.entries[k]);
    }
  }
  // Nearest neighbours are mostly mutual (a property of kNN graphs that random graphs lack).
  int64_t mutual = 0;
  for (int r = 0; r < A.num_rows; ++r)
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) mutual += has(A, A.entries[k], r);
  EXPECT_GT(mutual, A.nnz() / 2);
  EXPECT_THROW(rsh::impl::generate_point_cloud_host(5, 5, 1), std::invalid_argument);
}

TEST(Generators, BipartiteIsRectangularWithSkewedItems) {
  const HostCrs A = rsh::impl::generate_bipartite_host(2000, 500, 16, 3.0, 4);
  EXPECT_TRUE(same(A, rsh::impl::generate_bipartite_host(2000, 500, 16, 3.0, 4)));
  ASSERT_EQ(A.num_rows, 2000);
  ASSERT_EQ(A.num_cols, 500);
  std::vector<int64_t> degree(500, 0);
  for (int c : A.entries) ++degree[c];
  std::sort(degree.rbegin(), degree.rend());
  EXPECT_GT(degree[0], 20 * std::max<int64_t>(degree[250], 1));  // popular items far above the median one
  for (int r = 0; r < A.num_rows; ++r) EXPECT_LE(A.row_map[r + 1] - A.row_map[r], 16);
}

TEST(Generators, BundleInAnyOffsetType) {
  const auto A = rsh::generate_stencil27<float, size_t>(3, 3, 3);
  EXPECT_EQ(A.num_rows, 27);
  EXPECT_EQ(A.row_map(27), A.nnz());
  EXPECT_EQ(A.values(A.row_map(13) + 13), 26.0f);  // the centre's diagonal
}

}  // namespace
