// RS-Tile builder and schedule: the invariants of DESIGN section 3 on random
// and edge-case matrices, for every partition.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "RshSparse_generators.hpp"
#include "RshSparse_spmm_options.hpp"
#include "Test_RshSparse_common.hpp"
#include "impl/RshSparse_dense_blocks.hpp"
#include "impl/RshSparse_inspector.hpp"
#include "impl/inspector/RshSparse_long_windows_on.hpp"
#include "impl/inspector/RshSparse_host_views.hpp"
#include "impl/inspector/RshSparse_nonzero_partition_on.hpp"
#include "impl/inspector/RshSparse_partition_on.hpp"
#include "impl/inspector/RshSparse_signature_on.hpp"
#include "impl/inspector/RshSparse_sorted_crs.hpp"
#include "impl/inspector/RshSparse_value_map_on.hpp"
#include "impl/RshSparse_partition_select_impl.hpp"
#include "impl/RshSparse_progress.hpp"
#include "impl/RshSparse_reorder_select_impl.hpp"

namespace {

using rsh::impl::HostCrs;
using rsh::impl::HostPattern;

/// Each arithmetic the time models are fitted for, as inspect() is asked for it (value bytes, allow_tf32).
struct ArithmeticCase {
  int bytes;
  bool allow_tf32;
  rsh::impl::Arithmetic arith;
  rsh::Options with(rsh::Options o) const {
    o.allow_tf32 = allow_tf32;
    return o;
  }
};
const ArithmeticCase kArithmetics[] = {{2, false, rsh::impl::Arithmetic::kFp16},
                                       {4, true, rsh::impl::Arithmetic::kTf32},
                                       {4, false, rsh::impl::Arithmetic::kFp32}};

/// Residual items: every nonzero in exactly one item; an item with p pieces
/// heads p consecutive pieces of one row inside one aligned group: before
/// res_num_local they cover the row, after it (atomic) they are a group of the
/// row's pieces, of up to max_len nonzeros each, or a lone piece (p = 1); the
/// other items are empty padding.
void check_residual_items(const rsh::Options& opt, const HostPattern& p) {
  using rsh::impl::kResidualPieceAlign;
  const int max_len = opt.tuning.max_residual_nnz_per_item;  // atomic pieces; others up to the piece length
  const int max_piece = std::max(max_len, opt.tuning.residual_piece_nnz ? opt.tuning.residual_piece_nnz : 2 * max_len);
  std::vector<int> nz_cover(p.res_cols.extent(0), 0), headed(p.res_num_items(), 0);
  for (int i = 0; i < p.res_num_items(); ++i) {
    const bool atomic = i >= p.res_num_local;
    const int len = p.res_item_end(i) - p.res_item_begin(i);
    EXPECT_LE(len, atomic ? max_len : max_piece);
    for (int k = p.res_item_begin(i); k < p.res_item_end(i); ++k) ++nz_cover[k];
    const int pieces = p.res_item_pieces(i);
    if (pieces == 0) continue;
    ASSERT_LE(i + pieces, atomic ? p.res_num_items() : p.res_num_local);
    EXPECT_EQ(i / kResidualPieceAlign, (i + pieces - 1) / kResidualPieceAlign) << "pieces straddle a CTA group";
    const int row = p.res_item_row(i);
    if (!atomic) {
      EXPECT_EQ(p.res_item_begin(i), p.res_ptr(row));
      EXPECT_EQ(p.res_item_end(i + pieces - 1), p.res_ptr(row + 1));
    }
    for (int j = 1; j < pieces; ++j) {
      EXPECT_EQ(p.res_item_pieces(i + j), 0);
      EXPECT_EQ(p.res_item_row(i + j), row);
      EXPECT_EQ(p.res_item_begin(i + j), p.res_item_end(i + j - 1));
      headed[i + j] = 1;
    }
  }
  for (int i = 0; i < p.res_num_items(); ++i)
    if (p.res_item_pieces(i) == 0 && !headed[i]) EXPECT_EQ(p.res_item_begin(i), p.res_item_end(i)) << "padding";
  for (int c : nz_cover) EXPECT_EQ(c, 1);
}

/// Checks every invariant of the pattern built for A (gtest ASSERTs need a void function).
void check_pattern(const HostCrs& A, const rsh::Options& opt, const HostPattern& p) {
  const int W = p.num_windows(), T = p.num_tiles();

  // Rows: each row in at most one window slot and one residual entry, in both only where the partition
  // assigns nonzeros; empty rows never residual.
  const bool by_nonzero = rsh::impl::assigns_nonzeros(opt.partition);
  const bool one_entry_per_column = opt.partition == rsh::Partition::kBalancedBlocks;
  EXPECT_EQ(p.rows_split, by_nonzero);
  std::vector<int> in_window(A.num_rows, 0), in_residual(A.num_rows, 0);
  for (int i = 0; i < 8 * W; ++i) {
    const int r = p.window_rows(i);
    EXPECT_GE(r, -1);
    EXPECT_LT(r, A.num_rows);
    if (r >= 0) ++in_window[r];
  }
  for (int j = 0; j < p.num_residual_rows(); ++j) {
    const int r = p.res_rows(j);
    ASSERT_GE(r, 0);
    ASSERT_LT(r, A.num_rows);
    EXPECT_GT(p.res_ptr(j + 1), p.res_ptr(j)) << "empty residual row " << r;
    ++in_residual[r];
  }
  for (int r = 0; r < A.num_rows; ++r) {
    EXPECT_LE(in_window[r], 1) << "row " << r;
    EXPECT_LE(in_residual[r], 1) << "row " << r;
    if (!by_nonzero) EXPECT_LE(in_window[r] + in_residual[r], 1) << "row " << r << " split";
    if (A.row_map[r + 1] > A.row_map[r])
      EXPECT_GE(in_window[r] + in_residual[r], 1) << "non-empty row " << r << " dropped";
  }

  // Tiles: offsets monotone, popcount = values, columns in range and sorted per window.
  EXPECT_EQ(p.window_tile_offset(0), 0);
  EXPECT_EQ(p.window_tile_offset(W), T);
  EXPECT_EQ(p.tile_val_offset(0), 0);
  for (int t = 0; t < T; ++t)
    EXPECT_EQ(p.tile_val_offset(t + 1) - p.tile_val_offset(t), __builtin_popcountll(p.tile_bitmap(t)));
  std::map<std::pair<int, int>, double> stored;  // (row, col) -> summed value via value_dest
  const std::vector<double> slots = rsh::impl::scatter_values(p, A.values);
  for (int w = 0; w < W; ++w) {
    int prev = -1;
    for (int t = p.window_tile_offset(w); t < p.window_tile_offset(w + 1); ++t) {
      uint64_t bits = p.tile_bitmap(t);
      EXPECT_NE(bits, 0u) << "empty tile " << t;
      for (int c = 0; c < 8; ++c) {
        const int col = p.tile_cols(8 * t + c);
        if (col < 0) {
          for (int r = 0; r < 8; ++r) EXPECT_FALSE((bits >> (8 * r + c)) & 1) << "padding column contributes";
          continue;
        }
        EXPECT_LT(col, A.num_cols);
        if (one_entry_per_column) {
          EXPECT_GE(col, prev);
          EXPECT_EQ(__builtin_popcountll(bits & (0x0101010101010101ULL << c)), 1) << "tile column of one entry";
        } else {
          EXPECT_GT(col, prev);
        }
        prev = col;
      }
      for (int v = p.tile_val_offset(t); bits; bits &= bits - 1, ++v) {
        const int b = __builtin_ctzll(bits);
        const int row = p.window_rows(8 * w + b / 8), col = p.tile_cols(8 * t + b % 8);
        EXPECT_GE(row, 0) << "padding row contributes";
        EXPECT_GE(col, 0);
        if (one_entry_per_column)  // (a duplicate entry takes a tile column of its own)
          stored[{row, col}] += slots[v];
        else
          EXPECT_TRUE(stored.emplace(std::make_pair(row, col), slots[v]).second) << "position stored twice";
      }
    }
  }
  const int64_t tile_nnz = T ? p.tile_val_offset(T) : 0;
  for (int j = 0; j < p.num_residual_rows(); ++j)
    for (int k = p.res_ptr(j); k < p.res_ptr(j + 1); ++k) {
      ASSERT_GE(p.res_cols(k), 0);
      ASSERT_LT(p.res_cols(k), A.num_cols);
      stored[{p.res_rows(j), p.res_cols(k)}] += slots[tile_nnz + k];
    }
  // Every nonzero of A appears exactly once, with its (summed) value.
  std::map<std::pair<int, int>, double> expect;
  for (int r = 0; r < A.num_rows; ++r)
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) expect[{r, A.entries[k]}] += A.values[k];
  EXPECT_EQ(stored.size(), expect.size());
  for (const auto& e : expect) {
    auto it = stored.find(e.first);
    ASSERT_NE(it, stored.end()) << "missing (" << e.first.first << ", " << e.first.second << ")";
    EXPECT_NEAR(it->second, e.second, 1e-12);
  }

  // Schedule: items cover every tile / residual nonzero exactly once, bounded, unsplit windows first.
  std::vector<int> tile_cover(T, 0);
  for (int i = 0; i < p.tc_num_items(); ++i) {
    const int w = p.tc_item_window(i);
    EXPECT_GE(p.tc_item_tile_begin(i), p.window_tile_offset(w));
    EXPECT_LE(p.tc_item_tile_end(i), p.window_tile_offset(w + 1));
    EXPECT_LE(p.tc_item_tile_end(i) - p.tc_item_tile_begin(i), opt.tuning.max_tiles_per_item);
    const bool whole =
        p.tc_item_tile_begin(i) == p.window_tile_offset(w) && p.tc_item_tile_end(i) == p.window_tile_offset(w + 1);
    if (i < p.tc_num_unsplit || !by_nonzero) EXPECT_EQ(i < p.tc_num_unsplit, whole);
    for (int t = p.tc_item_tile_begin(i); t < p.tc_item_tile_end(i); ++t) ++tile_cover[t];
  }
  for (int t = 0; t < T; ++t) EXPECT_EQ(tile_cover[t], 1);
  check_residual_items(opt, p);

  // C's rows: each stored by at most one store-once item; a row any item adds into (with atomics) is
  // stored by none and is scaled by beta first, as is every row no item stores.
  std::vector<int> stores(A.num_rows, 0), adds(A.num_rows, 0), scaled(A.num_rows, 0);
  for (int i = 0; i < p.tc_num_items(); ++i)
    for (int s = 0; s < 8; ++s) {
      const int r = p.window_rows(8 * p.tc_item_window(i) + s);
      if (r >= 0) ++(i < p.tc_num_unsplit ? stores : adds)[r];
    }
  for (int i = 0; i < p.res_num_items(); ++i)
    if (p.res_item_pieces(i) > 0) ++(i < p.res_num_local ? stores : adds)[p.res_rows(p.res_item_row(i))];
  for (int k = 0; k < static_cast<int>(p.scale_rows.extent(0)); ++k) ++scaled[p.scale_rows(k)];
  for (int r = 0; r < A.num_rows; ++r) {
    EXPECT_LE(stores[r], 1) << "row " << r;
    EXPECT_EQ(scaled[r], stores[r] == 0 ? 1 : 0) << "row " << r;
    if (adds[r]) EXPECT_EQ(stores[r], 0) << "row " << r << " stored and added to";
  }
}

HostPattern check_invariants(const HostCrs& A, const rsh::Options& opt, int value_bytes = 4) {
  rsh::impl::Inspection ins = rsh::impl::inspect(A, opt, "test", value_bytes);
  check_pattern(A, opt, ins.pattern);
  return ins.pattern;
}

using rsh::test::kAllPartitions;
using rsh::test::options;

TEST(RsTileBuilder, RandomMatricesEveryPartition) {
  for (rsh::Partition part : kAllPartitions)
    for (bool clustered : {false, true}) {
      const uint64_t seed = rsh::test::fresh_seed();
      SCOPED_TRACE("seed " + std::to_string(seed) + " " + rsh::partition_name(part));
      check_invariants(rsh::test::random_crs(203, 157, 12, seed, clustered), options(part, 3, 5));
    }
}

// Reordered inspections partition and build on a row-permuted copy of A and
// name the rows by their ids in A again: the same invariants must hold.
TEST(RsTileBuilder, ReorderedMatricesEveryPartition) {
  HostCrs duplicates;  // unsorted with a duplicate column, as below
  duplicates.num_rows = 3;
  duplicates.num_cols = 4;
  duplicates.row_map = {0, 4, 5, 7};
  duplicates.entries = {3, 1, 3, 0, 2, 1, 1};
  duplicates.values = {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0};
  for (rsh::Partition part : kAllPartitions)
    for (rsh::Reorder policy :
         {rsh::Reorder::kLocality, rsh::Reorder::kCtaAware, rsh::Reorder::kLptSort, rsh::Reorder::kMinHash}) {
      const uint64_t seed = rsh::test::fresh_seed();
      SCOPED_TRACE("seed " + std::to_string(seed) + " " + rsh::partition_name(part) + " " + rsh::reorder_name(policy));
      rsh::Options opt = options(part, 3, 5);
      opt.reorder = policy;
      check_invariants(rsh::test::random_crs(203, 157, 12, seed, true), opt);
      check_invariants(duplicates, opt);
    }
}

/// Two formats alike in every view the RS-Tile builder writes.
bool same_format(const HostPattern& a, const HostPattern& b) {
  auto same = [](const auto& x, const auto& y) {
    return x.extent(0) == y.extent(0) && std::equal(x.data(), x.data() + x.extent(0), y.data());
  };
  return same(a.window_rows, b.window_rows) && same(a.window_tile_offset, b.window_tile_offset) &&
         same(a.tile_cols, b.tile_cols) && same(a.tile_bitmap, b.tile_bitmap) &&
         same(a.tile_val_offset, b.tile_val_offset) && same(a.res_rows, b.res_rows) && same(a.res_ptr, b.res_ptr) &&
         same(a.res_cols, b.res_cols) && same(a.value_dest, b.value_dest);
}

// Windows of more than Tuning::long_window_nnz nonzeros rank their columns in
// parallel instead of merging on one thread: hub rows of a power-law graph,
// and rows of hundreds of unsorted entries with duplicates, beside short
// windows; windows ranked over a bitmap of their span, and windows searched
// (a span wider than kBitmapRankColumns, or more than kBitmapRankMaxNnz
// nonzeros), beside each other; with the GPU's smallest threshold
// (kLongWindowMinNnz) and the host's default (no long window), the same format.
TEST(RsTileBuilder, LongWindowsOfHubRows) {
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const HostCrs rmat = rsh::impl::generate_rmat_host(11, 16, seed);
  const HostCrs wide = rsh::test::random_crs(70, 5000, 900, seed + 1);
  // Rows longer than kLongRowNnz, unsorted with duplicates: sorted by the global sort.
  const HostCrs unsorted = rsh::test::shuffled_with_duplicates(rsh::test::random_crs(30, 6000, 3000, seed + 2), seed);
  // Windows 0-1 and 4-5 span every column (searched), windows 2-3 the first 3000 (a bitmap).
  HostCrs spread = rsh::test::random_crs(48, 3 * rsh::impl::kBitmapRankColumns, 1500, seed + 3);
  for (int64_t k = spread.row_map[16]; k < spread.row_map[32]; ++k) spread.entries[k] %= 3000;
  // Windows of more nonzeros than a team ranks (searched) over a narrow span.
  const HostCrs dense = rsh::test::random_crs(16, 20000, int(rsh::impl::kBitmapRankMaxNnz / 3), seed + 4);
  for (const HostCrs* A : std::initializer_list<const HostCrs*>{&rmat, &wide, &unsorted, &spread, &dense}) {
    int64_t longest = 0;  // the test needs a long window
    for (int64_t w = 0; 8 * w < A->num_rows; ++w)
      longest = std::max<int64_t>(longest, A->row_map[std::min<int64_t>(8 * w + 8, A->num_rows)] - A->row_map[8 * w]);
    ASSERT_GT(longest, rsh::impl::kLongWindowMinNnz);
    for (rsh::Partition part : kAllPartitions) {
      SCOPED_TRACE(rsh::partition_name(part));
      rsh::Options gpu_threshold = options(part, 3, 5);
      gpu_threshold.tuning.long_window_nnz = rsh::impl::kLongWindowMinNnz;
      const HostPattern p = check_invariants(*A, gpu_threshold);
      const HostPattern merged = check_invariants(*A, options(part, 3, 5));
      EXPECT_TRUE(same_format(p, merged));
      // Stats of the natural windows count the same distinct columns as a plain count.
      int64_t distinct = 0;
      for (int64_t w = 0; 8 * w < A->num_rows; ++w) {
        const std::set<int> cols(A->entries.begin() + A->row_map[8 * w],
                                 A->entries.begin() + A->row_map[std::min<int64_t>(8 * w + 8, A->num_rows)]);
        distinct += static_cast<int64_t>(cols.size());
      }
      for (rsh::Options o : {gpu_threshold, options(part, 3, 5)}) {
        EXPECT_FALSE(rsh::impl::inspect(*A, o, "test").stats.windows_counted);  // counted only when asked for
        o.window_statistics = true;
        const auto stats = rsh::impl::inspect(*A, o, "test").stats;
        ASSERT_TRUE(stats.windows_counted);
        EXPECT_DOUBLE_EQ(stats.mean_window_distinct_cols, double(distinct) / double((A->num_rows + 7) / 8));
      }
    }
  }
}

// Partition::kAuto takes the CUDA-core path where every window needs many
// sparse tiles (uniform random columns) and keeps the Tensor-Core path where
// windows share their columns (8-row blocks over the same 16 columns).
TEST(RsTileBuilder, AutoPartitionFollowsTileDensity) {
  const int n = 20000, per_row = 12;
  std::vector<rsh::impl::CooEntry> scattered, blocked;
  uint64_t s = 7;
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < per_row; ++k) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      scattered.push_back({r, int64_t((s >> 33) % n), 1.0});
      blocked.push_back({r, int64_t((r / 8 * 16 + k) % n), 1.0});
    }
  rsh::Options opt;
  opt.partition = rsh::Partition::kAuto;
  for (const ArithmeticCase& c : kArithmetics) {
    SCOPED_TRACE("arithmetic " + std::to_string(static_cast<int>(c.arith)));
    const auto a = rsh::impl::inspect(rsh::impl::coo_to_crs(n, n, scattered), c.with(opt), "test", c.bytes);
    const auto b = rsh::impl::inspect(rsh::impl::coo_to_crs(n, n, blocked), c.with(opt), "test", c.bytes);
    EXPECT_EQ(a.partition, rsh::Partition::kCudaCoreOnly);
    EXPECT_EQ(b.partition, rsh::Partition::kRowStructured);
    EXPECT_EQ(a.pattern.num_tiles(), 0);
    EXPECT_GT(b.pattern.num_tiles(), 0);
  }
  // Beyond the model's fitted range (kPartitionModelMaxNnz) every arithmetic takes the CUDA-core path, for any
  // structure, without building the RowStructured pattern.
  const int big = static_cast<int>(rsh::impl::kPartitionModelMaxNnz / per_row) + 1000;
  std::vector<rsh::impl::CooEntry> large, large_blocked;
  for (int r = 0; r < big; ++r)
    for (int k = 0; k < per_row; ++k) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      large.push_back({r, int64_t((s >> 33) % big), 1.0});
      large_blocked.push_back({r, int64_t((r / 8 * 16 + k) % big), 1.0});
    }
  const auto large_crs = rsh::impl::coo_to_crs(big, big, large);
  const auto large_blocked_crs = rsh::impl::coo_to_crs(big, big, large_blocked);
  for (const ArithmeticCase& c : kArithmetics) {
    SCOPED_TRACE("large, arithmetic " + std::to_string(static_cast<int>(c.arith)));
    EXPECT_EQ(rsh::impl::inspect(large_crs, c.with(opt), "test", c.bytes).partition, rsh::Partition::kCudaCoreOnly);
    EXPECT_EQ(rsh::impl::inspect(large_blocked_crs, c.with(opt), "test", c.bytes).partition,
              rsh::Partition::kCudaCoreOnly);
  }
  EXPECT_EQ(rsh::impl::inspect(large_crs, opt, "test", sizeof(double)).partition, rsh::Partition::kCudaCoreOnly);
}

TEST(RsTileBuilder, EdgeCases) {
  for (rsh::Partition part : kAllPartitions) {
    SCOPED_TRACE(rsh::partition_name(part));
    check_invariants(rsh::impl::coo_to_crs(0, 0, {}), options(part));               // empty
    check_invariants(rsh::impl::coo_to_crs(5, 9, {}), options(part));               // no nonzeros
    check_invariants(rsh::impl::coo_to_crs(1, 1, {{0, 0, 2.0}}), options(part));    // one entry
    check_invariants(rsh::test::random_crs(30, 1, 1, 7), options(part));            // one column
    check_invariants(rsh::test::random_crs(1, 500, 500, 8), options(part, 4, 16));  // one long row
    check_invariants(rsh::test::random_crs(19, 400, 3, 9), options(part));          // rectangular
    std::vector<rsh::impl::CooEntry> dense_row;
    for (int c = 0; c < 300; ++c) dense_row.push_back({5, c, 1.0 + c});
    dense_row.push_back({11, 3, 1.0});
    check_invariants(rsh::impl::coo_to_crs(40, 300, dense_row), options(part, 5, 37));  // one dense row, empty rows
  }
}

TEST(RsTileBuilder, ExactMultiplesOfTheSplitSizes) {
  // A window with exactly 16 distinct columns (2 tiles) split by 2, a window with
  // 8 distinct columns, and a residual row of exactly 2 x 64 nonzeros.
  std::vector<rsh::impl::CooEntry> coo;
  for (int c = 0; c < 16; ++c) coo.push_back({c % 8, c, 1.0});
  for (int r = 8; r < 16; ++r) coo.push_back({r, r - 8, 1.0});
  for (int c = 0; c < 128; ++c) coo.push_back({20, c, 1.0});
  const HostCrs A = rsh::impl::coo_to_crs(24, 128, coo);
  const HostPattern p = check_invariants(A, options(rsh::Partition::kTensorCoreOnly, 2, 64));
  EXPECT_EQ(p.window_tile_offset(1) - p.window_tile_offset(0), 2);
  EXPECT_EQ(p.tc_num_unsplit, 2);                     // 2 tiles fit one item of 2; so does the 1-tile window
  EXPECT_EQ(p.tc_num_items() - p.tc_num_unsplit, 8);  // the 128-column window: 16 tiles in 8 pieces
  rsh::Options whole_pieces = options(rsh::Partition::kCudaCoreOnly, 2, 64);
  whole_pieces.tuning.residual_piece_nnz = 64;  // not a shorter piece by the time model
  const HostPattern q = check_invariants(A, whole_pieces);
  EXPECT_EQ(q.res_num_local, q.res_num_items());  // the 128-long row: two pieces of 64 summed in one CTA
  int heads_of_two = 0;
  for (int i = 0; i < q.res_num_items(); ++i) heads_of_two += q.res_item_pieces(i) == 2;
  EXPECT_EQ(heads_of_two, 1);
}

TEST(RsTileBuilder, ResidualPiecesShareOneCtaUnlessTooLong) {
  // Rows of 0..40 nonzeros, max 2 per item: rows of 3..16 split into pieces
  // summed in one CTA (2..8 pieces, aligned groups with whole rows or padding
  // in the gaps), rows of 17..40 into atomic pieces of 2.
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r <= 40; ++r)
    for (int c = 0; c < r; ++c) coo.push_back({r, (7 * c + r) % 100, 1.0});
  const HostCrs A = rsh::impl::coo_to_crs(41, 100, coo);
  const HostPattern p = check_invariants(A, options(rsh::Partition::kCudaCoreOnly, 64, 2));
  std::map<int, int> heads;  // pieces -> items
  for (int i = 0; i < p.res_num_local; ++i) ++heads[p.res_item_pieces(i)];
  EXPECT_EQ(heads[1], 2);  // rows of 1 and 2 nonzeros
  for (int pieces = 2; pieces <= rsh::impl::kResidualPieceAlign; ++pieces) EXPECT_GT(heads[pieces], 0) << pieces;
  EXPECT_EQ(p.res_num_items() - p.res_num_local, 24 * 29 / 2);  // rows 17..40: 9, 9, 10, 10, .., 20, 20 pieces
  for (int i = p.res_num_local; i < p.res_num_items(); ++i) EXPECT_EQ(p.res_item_pieces(i), 1) << "lone piece";
  std::set<int> scaled(p.scale_rows.data(), p.scale_rows.data() + p.scale_rows.extent(0));
  for (int r = 0; r <= 40; ++r) EXPECT_EQ(scaled.count(r), r == 0 || r > 16 ? 1u : 0u) << r;

  // FP64 (one element an atomic): those rows' pieces in aligned groups of 8 (two groups up to row 32, three
  // after), each summed in the CTA and added by its first piece.
  const HostPattern q = check_invariants(A, options(rsh::Partition::kCudaCoreOnly, 64, 2), sizeof(double));
  EXPECT_EQ(q.res_num_local, p.res_num_local);
  EXPECT_EQ(q.res_num_items() - rsh::impl::align_to_groups(q.res_num_local), 16 * 16 + 8 * 24);
  int groups = 0, summed = 0, full_groups = 0;
  for (int i = q.res_num_local; i < q.res_num_items(); ++i) {
    const int h = q.res_item_pieces(i);
    groups += h > 0, summed += h, full_groups += h == rsh::impl::kResidualPieceAlign;
  }
  EXPECT_EQ(summed, 24 * 29 / 2);     // every piece once
  EXPECT_EQ(groups, 16 * 2 + 8 * 3);  // one atomic add a group
  EXPECT_EQ(full_groups, 24 + 10);    // the first of every row, the second of rows of 16 or more pieces (31..40)
}

TEST(RsTileBuilder, ShortResidualPiecesUpToEightPerRow) {
  // Pieces of 4 with items of at most 16: rows of up to 32 nonzeros in pieces
  // of 4, rows of 33..128 in 8 longer pieces, longer rows in atomic pieces of 16.
  for (const auto [len, pieces, atomic] : {std::tuple{0, 0, false},
                                           {4, 1, false},
                                           {5, 2, false},
                                           {32, 8, false},
                                           {33, 8, false},
                                           {128, 8, false},
                                           {129, 9, true},
                                           {300, 19, true}}) {
    const rsh::impl::ResidualCut cut = rsh::impl::residual_cut(len, 4, 16);
    EXPECT_EQ(cut.pieces, pieces) << len;
    EXPECT_EQ(cut.atomic, atomic) << len;
  }
  // Pieces longer than the maximum: rows up to 8 x 16 in pieces of 32, longer ones atomic as before.
  for (const auto [len, pieces, atomic] : {std::tuple{32, 1, false}, {45, 2, false}, {128, 4, false}, {129, 9, true}}) {
    const rsh::impl::ResidualCut cut = rsh::impl::residual_cut(len, 32, 16);
    EXPECT_EQ(cut.pieces, pieces) << len;
    EXPECT_EQ(cut.atomic, atomic) << len;
  }
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r <= 140; ++r)
    for (int c = 0; c < r; ++c) coo.push_back({r, (7 * c + r) % 200, 1.0});
  rsh::Options o = options(rsh::Partition::kCudaCoreOnly, 64, 16);
  o.tuning.residual_piece_nnz = 4;
  const HostPattern p = check_invariants(rsh::impl::coo_to_crs(141, 200, coo), o);
  for (int i = 0; i < p.res_num_items(); ++i) {
    const int row = p.res_item_row(i), len = p.res_ptr(row + 1) - p.res_ptr(row);
    const int piece = p.res_item_end(i) - p.res_item_begin(i);
    if (piece == 0) continue;  // padding (rows here have no empty pieces)
    if (len <= 32) EXPECT_LE(piece, 4) << "row of " << len;
    if (len > 32 && len <= 128) EXPECT_LE(piece, 16) << "row of " << len;
    EXPECT_EQ(i >= p.res_num_local, len > 128) << "row of " << len;
  }
}

TEST(RsTileBuilder, ResidualPieceLengthByTheTimeModel) {
  // A tiny matrix leaves the GPU idle: its longest item is the time, so
  // CudaCoreOnly takes short pieces; a large one of short rows keeps pieces of 16.
  const HostCrs tiny = rsh::test::random_crs(64, 64, 16, rsh::test::fresh_seed());
  const HostCrs large = rsh::test::random_crs(200000, 200000, 16, rsh::test::fresh_seed());
  const rsh::Options o = options(rsh::Partition::kCudaCoreOnly, 64, 16);
  for (const ArithmeticCase& c : kArithmetics) {
    EXPECT_LT(rsh::impl::residual_piece_nnz(tiny, o, rsh::Partition::kCudaCoreOnly, c.arith), 16);
    EXPECT_EQ(rsh::impl::residual_piece_nnz(large, o, rsh::Partition::kCudaCoreOnly, c.arith), 16);
    EXPECT_EQ(rsh::impl::residual_piece_nnz(tiny, o, rsh::Partition::kRowStructured, c.arith), 16);
    rsh::Options fixed = o;
    fixed.tuning.residual_piece_nnz = 8;
    EXPECT_EQ(rsh::impl::residual_piece_nnz(large, fixed, rsh::Partition::kCudaCoreOnly, c.arith), 8);
  }
  // Many rows of 45 (as EX5): two pieces a row fill the GPU's last wave of CTAs better than three.
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < 6545; ++r)
    for (int k = 0; k < 45; ++k) coo.push_back({r, (7 * r + 97 * k) % 6545, 1.0});
  const HostCrs uniform = rsh::impl::coo_to_crs(6545, 6545, coo);
  for (const ArithmeticCase& c : kArithmetics)
    EXPECT_EQ(rsh::impl::residual_piece_nnz(uniform, o, rsh::Partition::kCudaCoreOnly, c.arith), 32);
  const rsh::impl::Inspection x = rsh::impl::inspect(tiny, o, "test", 2);
  int longest = 0;
  for (int i = 0; i < x.pattern.res_num_items(); ++i)
    longest = std::max(longest, x.pattern.res_item_end(i) - x.pattern.res_item_begin(i));
  EXPECT_LT(longest, 16);
}

TEST(RsTileBuilder, AllTilesOrAllResidual) {
  const HostCrs A = rsh::test::random_crs(64, 64, 6, rsh::test::fresh_seed());
  const HostPattern tc = check_invariants(A, options(rsh::Partition::kTensorCoreOnly));
  EXPECT_EQ(tc.num_residual_rows(), 0);
  const HostPattern cuda = check_invariants(A, options(rsh::Partition::kCudaCoreOnly));
  EXPECT_EQ(cuda.num_windows(), 0);
}

// DenseBlocks: the CudaCoreOnly residual (what the portable kernels run),
// flagged for the CUDA block kernel; the block layout gives every position of
// the padded matrix its own slot, in either fragment order.
TEST(RsTileBuilder, DenseBlocksLayout) {
  const HostCrs A = rsh::test::random_crs(70, 45, 9, rsh::test::fresh_seed());
  const HostPattern dense = check_invariants(A, options(rsh::Partition::kDenseBlocks));
  EXPECT_TRUE(dense.dense_blocks);
  EXPECT_EQ(dense.num_windows(), 0);
  EXPECT_FALSE(check_invariants(A, options(rsh::Partition::kCudaCoreOnly)).dense_blocks);

  const rsh::impl::DenseBlockLayout l(70, 45);
  EXPECT_EQ(l.groups, 2);
  EXPECT_EQ(l.col_blocks, 3);
  EXPECT_EQ(l.num_slots(), 128 * 48);
  for (int bytes : {2, 4, 8}) {
    std::vector<int> seen(l.num_slots(), 0);
    for (int r = 0; r < 128; ++r)
      for (int c = 0; c < 48; ++c) ++seen[l.slot(r, c, bytes)];
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), l.num_slots()) << "value bytes " << bytes;
  }
  // FP16 m16n8k16 fragment: lane 4g + q holds (g, 2q), (g, 2q+1), (g+8, 2q), ..., (g+8, 2q+9).
  EXPECT_EQ(l.slot(0, 0, 2), 0);
  EXPECT_EQ(l.slot(8, 1, 2), 3);
  EXPECT_EQ(l.slot(3, 9, 2), (4 * 3 + 0) * 8 + 4 + 1);
  // TF32 m16n8k8 fragments: lane 4g + q holds (g, q), (g+8, q), (g, q+4), (g+8, q+4) of each k half.
  EXPECT_EQ(l.slot(9, 6, 4), (4 * 1 + 2) * 4 + 3);
  EXPECT_EQ(l.slot(0, 8, 4), 32 * 4);
  // FP64 m16n8k16 fragments: lane 4g + q holds (g, q) and (g+8, q) of each 4-column quarter, the quarters 32
  // lanes apart.
  EXPECT_EQ(l.slot(2, 1, 8), (4 * 2 + 1) * 2);
  EXPECT_EQ(l.slot(10, 1, 8), (4 * 2 + 1) * 2 + 1);
  EXPECT_EQ(l.slot(5, 14, 8), (3 * 32 + 4 * 5 + 2) * 2);
  EXPECT_EQ(l.slot(0, 16, 8), 4 * 256);
  // Next panel / column block / group.
  EXPECT_EQ(l.slot(16, 0, 2), 256);
  EXPECT_EQ(l.slot(0, 16, 2), 4 * 256);
  EXPECT_EQ(l.slot(64, 0, 2), 3 * 4 * 256);
  EXPECT_THROW(rsh::impl::DenseBlockLayout(100000, 100000), std::invalid_argument);
}

// kAuto takes DenseBlocks for a small layer that fills every block (at 50%
// density) and keeps the sparse paths for a large sparse matrix.
TEST(RsTileBuilder, AutoPartitionTakesDenseBlocksForDenseLayers) {
  rsh::Options opt;
  opt.partition = rsh::Partition::kAuto;
  const HostCrs layer = rsh::test::random_crs(512, 1024, 1024, rsh::test::fresh_seed());
  const HostCrs sparse = rsh::test::random_crs(20000, 20000, 8, rsh::test::fresh_seed());
  for (const ArithmeticCase& c : kArithmetics) {
    const auto a = rsh::impl::inspect(layer, c.with(opt), "test", c.bytes);
    EXPECT_EQ(a.partition, rsh::Partition::kDenseBlocks) << "arithmetic " << static_cast<int>(c.arith);
    EXPECT_TRUE(a.pattern.dense_blocks);
    EXPECT_NE(rsh::impl::inspect(sparse, c.with(opt), "test", c.bytes).partition, rsh::Partition::kDenseBlocks);
  }
}

TEST(RsTileBuilder, RowStructuredRoutesShortIsolatedRows) {
  // Rows 0..7 share columns 0..15; row 8 is a single far-away entry followed by
  // rows sharing columns among themselves: Alg. 1 sends row 8 to the residual.
  std::vector<rsh::impl::CooEntry> coo;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) coo.push_back({r, c, 1.0});
  coo.push_back({8, 99, 1.0});
  for (int r = 9; r < 17; ++r)
    for (int c = 20; c < 30; ++c) coo.push_back({r, c, 1.0});
  const HostCrs A = rsh::impl::coo_to_crs(17, 100, coo);
  const HostPattern p = check_invariants(A, options(rsh::Partition::kRowStructured));
  ASSERT_EQ(p.num_residual_rows(), 1);
  EXPECT_EQ(p.res_rows(0), 8);
  EXPECT_EQ(p.num_windows(), 2);
  // kAuto partitions the same way (order costs of Reorder::kAuto rely on it).
  const rsh::impl::OrderCost automatic = rsh::impl::order_cost(A, options(rsh::Partition::kAuto), {});
  EXPECT_EQ(automatic.residual_rows, 1);
  EXPECT_EQ(automatic.residual_nnz, 1);
  EXPECT_EQ(automatic.windows, 2);
}

// The parallel walk of the row partition (spans, groups of spans, the groups on
// one thread; or one team's lanes) places every row as Alg. 1's walk in
// sequence does (a window's rows at their slots), over row counts of one span,
// of partial chunks of 8, on either side of the one-team bound, and of many
// groups.
TEST(RsTileBuilder, ParallelWalkMatchesTheSequentialOne) {
  using rsh::impl::RowChoice;
  using Exec = Kokkos::DefaultHostExecutionSpace;
  const uint64_t seed = rsh::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const int64_t n : {int64_t(0), int64_t(1), int64_t(13), int64_t(4099), rsh::impl::kOneTeamWalkRows,
                          rsh::impl::kOneTeamWalkRows + 1, int64_t(70001)}) {
    SCOPED_TRACE("rows " + std::to_string(n));
    Kokkos::View<uint8_t*, Kokkos::HostSpace> choice("choice", n);
    for (int64_t p = 0; p < n; ++p) {  // windows, residual rows and skipped rows, mixed
      const uint64_t u = rng() % 10;
      choice(p) = static_cast<uint8_t>(u < 2 ? RowChoice::kWindow : u < 6 ? RowChoice::kResidual : RowChoice::kSkip);
    }
    Kokkos::View<int64_t*, Kokkos::HostSpace> place("place", n);
    const auto got = rsh::impl::walk_rows(Exec(), n, choice, place);
    int state = 0;
    int64_t windows = 0, residual = 0;
    for (int64_t p = 0; p < n; ++p) {
      const auto c = static_cast<RowChoice>(choice(p));
      int64_t want = -1;
      if (state > 0) {  // slot 8 - state of the last window
        want = 8 * windows - state--;
      } else if (c == RowChoice::kWindow) {
        want = 8 * windows++, state = 7;
      } else if (c == RowChoice::kResidual) {
        want = -2 - residual++;
      }
      ASSERT_EQ(place(p), want) << "row " << p;
    }
    EXPECT_EQ(got.first, windows);
    EXPECT_EQ(got.second, residual);
  }
}

// Long phases report their share done, once they have run for a second.
TEST(RsTileBuilder, ProgressReportsPercentAfterASecond) {
  std::ostringstream log;
  std::streambuf* old = std::clog.rdbuf(log.rdbuf());
  rsh::impl::Progress quiet("quiet", 100, false), loud("loud", 200, true);
  loud.update(10);  // within the first second: silent
  const std::string early = log.str();
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  quiet.update(50);
  loud.update(50);
  loud.update(60);  // within a second of the last report: silent
  std::clog.rdbuf(old);
  EXPECT_EQ(early, "");
  EXPECT_EQ(log.str().find("quiet"), std::string::npos);
  EXPECT_NE(log.str().find("rsh: loud 25%"), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find("30%"), std::string::npos);
}

TEST(RsTileBuilder, RejectsMalformedCsr) {
  HostCrs A = rsh::test::random_crs(10, 10, 3, 1);
  HostCrs bad_col = A;
  if (!bad_col.entries.empty()) bad_col.entries[0] = 10;
  EXPECT_THROW(rsh::impl::inspect(bad_col, rsh::Options(), "test"), std::invalid_argument);
  HostCrs bad_map = A;
  bad_map.row_map[3] = bad_map.row_map[4] + 1;
  EXPECT_THROW(rsh::impl::inspect(bad_map, rsh::Options(), "test"), std::invalid_argument);
  HostCrs bad_nnz = A;
  bad_nnz.row_map.back() += 1;
  EXPECT_THROW(rsh::impl::inspect(bad_nnz, rsh::Options(), "test"), std::invalid_argument);
  rsh::Options zero;
  zero.tuning.max_tiles_per_item = 0;
  EXPECT_THROW(rsh::impl::inspect(A, zero, "test"), std::invalid_argument);
  rsh::Options bad_piece;
  bad_piece.tuning.residual_piece_nnz = -1;
  EXPECT_THROW(rsh::impl::inspect(A, bad_piece, "test"), std::invalid_argument);
}

TEST(RsTileBuilder, UnsortedAndDuplicateEntriesAreSummed) {
  HostCrs A;
  A.num_rows = 2;
  A.num_cols = 4;
  A.row_map = {0, 4, 5};
  A.entries = {3, 1, 3, 0, 2};  // row 0 unsorted with a duplicate column 3
  A.values = {1.0, 2.0, 4.0, 8.0, 16.0};
  for (rsh::Partition part : kAllPartitions) check_invariants(A, options(part));
}

// The value map: without duplicate entries every slot takes one position and the refresh is a scatter
// (no gather lists); with duplicates on Tensor Cores they share a slot and it gathers. Either way each
// slot gets the sum, in double, of the values value_dest sends it.
TEST(ValueMap, ScattersWithoutDuplicatesGathersWithThem) {
  using Exec = Kokkos::DefaultHostExecutionSpace;
  using rsh::impl::host_array;
  for (const bool duplicates : {false, true}) {
    const HostCrs sorted = rsh::test::random_crs(60, 45, 9, 21);
    const HostCrs A = duplicates ? rsh::test::shuffled_with_duplicates(sorted, 5) : sorted;
    for (rsh::Partition part : kAllPartitions) {
      const HostPattern p = rsh::impl::inspect(A, options(part), "test").pattern;
      const int64_t tile_nnz = p.num_tiles() ? p.tile_val_offset(p.num_tiles()) : 0;
      const int64_t slots = tile_nnz + static_cast<int64_t>(p.res_cols.extent(0));
      const auto map = rsh::impl::value_gather_on(Exec(), p.value_dest, slots);
      if (!duplicates) EXPECT_TRUE(map.one_to_one()) << rsh::partition_name(part);
      if (duplicates && part == rsh::Partition::kTensorCoreOnly) EXPECT_FALSE(map.one_to_one());
      std::vector<double> want(static_cast<size_t>(slots), 0.0);
      for (size_t k = 0; k < A.values.size(); ++k) want[static_cast<size_t>(p.value_dest(k))] += A.values[k];
      const Kokkos::View<double*, Kokkos::HostSpace> got("got", static_cast<size_t>(slots));
      Kokkos::deep_copy(got, -1e300);  // poisoned: every slot must be written
      rsh::impl::gather_values<double>(Exec(), map, host_array(A.values), got);
      Exec().fence();
      for (int64_t s = 0; s < slots; ++s)
        EXPECT_NEAR(got(s), want[static_cast<size_t>(s)], 1e-12 * (1 + std::abs(want[static_cast<size_t>(s)])))
            << rsh::partition_name(part) << " slot " << s << (duplicates ? " (duplicates)" : "");
    }
  }
}

// The first phase sorts only what needs it: sorted input (empty rows between, a hub row) passes through
// with no permutation; a row with one descent anywhere, even at its last entry or next to empty rows, is
// found and sorted, with each position's source kept.
TEST(SortedCrs, SortsOnlyUnsortedRows) {
  using rsh::impl::host_array;
  HostCrs A;
  A.num_rows = 5, A.num_cols = 3000;
  A.row_map = {0, 2, 2, 2502, 2502, 2504};
  A.entries = {4, 9};
  for (int c = 0; c < 2500; ++c) A.entries.push_back(c);  // row 2: longer than kLongRowNnz, sorted
  A.entries.push_back(7), A.entries.push_back(8);
  A.values.assign(A.entries.size(), 1.0);
  auto sorted = [](const HostCrs& M) {
    return rsh::impl::sorted_crs(Kokkos::DefaultHostExecutionSpace(), M.num_rows, M.num_cols, host_array(M.row_map),
                                 host_array(M.entries), static_cast<int64_t>(M.values.size()), "test");
  };
  EXPECT_EQ(sorted(A).source.extent(0), 0u) << "sorted input needs no permutation";
  for (const int64_t k : {int64_t(1), int64_t(2501), int64_t(2503)}) {  // a descent in row 0, 2 or 4
    HostCrs M = A;
    std::swap(M.entries[k], M.entries[k - 1]);
    const auto S = sorted(M);
    ASSERT_EQ(S.source.extent(0), M.entries.size()) << "descent at " << k;
    for (int64_t r = 0; r < M.num_rows; ++r)
      for (int64_t q = S.row_map(r); q < S.row_map(r + 1); ++q) {
        if (q > S.row_map(r)) EXPECT_LE(S.entries(q - 1), S.entries(q)) << "row " << r;
        EXPECT_EQ(S.entries(q), M.entries[S.source(q)]);
      }
  }
}

// The hashes that tell a handle-free call whether A changed in place: any one changed row offset, column
// or value changes its own hash and no other, as does a swap of two values; the pattern hash is the
// inspector's (pattern_signature_on).
TEST(CsrSignature, EveryChangeOfOneEntryShows) {
  const HostCrs A = rsh::test::random_crs(40, 30, 5, 7);
  using rsh::impl::host_array;
  auto signature = [](const HostCrs& M) {
    return rsh::impl::csr_signature_on(Kokkos::DefaultHostExecutionSpace(), M.num_rows, M.num_cols,
                                       host_array(M.row_map), host_array(M.entries), host_array(M.values));
  };
  const rsh::impl::CsrSignature base = signature(A);
  EXPECT_EQ(base.pattern, rsh::impl::pattern_signature(A));
  for (size_t r = 1; r + 1 < A.row_map.size(); ++r) {
    HostCrs M = A;
    M.row_map[r] += 1;
    const rsh::impl::CsrSignature s = signature(M);
    EXPECT_NE(s.pattern, base.pattern) << "row offset " << r;
    EXPECT_EQ(s.values, base.values) << "row offset " << r;
  }
  for (size_t k = 0; k < A.entries.size(); ++k) {
    HostCrs M = A;
    M.entries[k] = (M.entries[k] + 1) % M.num_cols;
    const rsh::impl::CsrSignature s = signature(M);
    EXPECT_NE(s.pattern, base.pattern) << "column " << k;
    EXPECT_EQ(s.values, base.values) << "column " << k;
    M = A;
    M.values[k] = M.values[k] * 0.5 + 1.0;
    EXPECT_EQ(signature(M).pattern, base.pattern) << "value " << k;
    EXPECT_NE(signature(M).values, base.values) << "value " << k;
    if (k > 0 && A.values[k] != A.values[k - 1]) {
      M = A;
      std::swap(M.values[k], M.values[k - 1]);
      EXPECT_NE(signature(M).values, base.values) << "values " << k - 1 << " and " << k << " swapped";
    }
  }
  HostCrs wider = A;
  wider.num_cols += 1;
  EXPECT_NE(signature(wider).pattern, base.pattern);
}

}  // namespace

namespace {

TEST(RsTileBuilder, ReportsProgressWhenAsked) {
  std::ostringstream log;
  std::streambuf* old = std::clog.rdbuf(log.rdbuf());
  rsh::Options opt;
  opt.report_progress = true;
  rsh::impl::inspect(rsh::test::random_crs(40, 40, 4, 1), opt, "test");
  opt.report_progress = false;
  const std::string reported = log.str();
  rsh::impl::inspect(rsh::test::random_crs(40, 40, 4, 1), opt, "test");
  std::clog.rdbuf(old);
  for (const char* phase : {"validate + sort", "statistics", "partition", "RS-Tile build", "schedule"})
    EXPECT_NE(reported.find(phase), std::string::npos) << phase;
  EXPECT_EQ(log.str(), reported);  // silent by default
}

}  // namespace
