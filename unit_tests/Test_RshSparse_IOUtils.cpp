// Matrix Market reader/writer: every accepted variant and every rejection.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "RshSparse_IOUtils.hpp"
#include "RshSparse_generators.hpp"
#include "Test_RshSparse_common.hpp"

namespace {

class MatrixMarketTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "rsh_io_" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  /// Expects a FileFormatError whose message names the file, `line` and `needle`.
  void expect_rejected(const std::string& text, long line, const std::string& needle) {
    const std::string path = write("bad.mtx", text);
    try {
      rsh::read_matrix_market<double>(path);
      FAIL() << "accepted: " << text;
    } catch (const rsh::FileFormatError& e) {
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
};

TEST_F(MatrixMarketTest, GeneralRealWithDuplicatesAndUnsortedEntries) {
  const auto A =
      rsh::read_matrix_market<double>(write("g.mtx",
                                            "%%MatrixMarket matrix coordinate real general\n% comment\n3 4 5\n"
                                            "3 4 1.5\n1 2 -2e0\n1 2 0.5\n2 1 7\n1 1 1\n"));
  ASSERT_EQ(A.num_rows, 3);
  ASSERT_EQ(A.num_cols, 4);
  ASSERT_EQ(A.nnz(), 4);  // the duplicate (1,2) is summed
  const int row_map[] = {0, 2, 3, 4};
  const int entries[] = {0, 1, 0, 3};
  const double values[] = {1.0, -1.5, 7.0, 1.5};
  for (int r = 0; r <= 3; ++r) EXPECT_EQ(A.row_map(r), row_map[r]);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(A.entries(k), entries[k]);
    EXPECT_DOUBLE_EQ(A.values(k), values[k]);
  }
}

TEST_F(MatrixMarketTest, SymmetricSkewPatternInteger) {
  const auto S = rsh::read_matrix_market<double>(
      write("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 4\n3 2 5\n"));
  ASSERT_EQ(S.nnz(), 5);
  EXPECT_EQ(S.entries(1), 2);
  EXPECT_DOUBLE_EQ(S.values(1), 4.0);  // (0,2) mirrored from (2,0)
  const auto K = rsh::read_matrix_market<double>(
      write("k.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n"));
  ASSERT_EQ(K.nnz(), 2);
  EXPECT_DOUBLE_EQ(K.values(0), -3.0);  // (0,1) = -(1,0)
  EXPECT_DOUBLE_EQ(K.values(1), 3.0);
  const auto P = rsh::read_matrix_market<float>(
      write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n"));
  ASSERT_EQ(P.nnz(), 2);
  EXPECT_EQ(P.values(0), 1.0f);
  const auto I = rsh::read_matrix_market<double, size_t>(
      write("i.mtx", "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -42\n"));
  EXPECT_DOUBLE_EQ(I.values(0), -42.0);
  EXPECT_EQ(I.row_map(1), size_t(1));
}

TEST_F(MatrixMarketTest, RejectsMalformedFiles) {
  expect_rejected("%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1, "banner");
  expect_rejected("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "array");
  expect_rejected("%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1, "complex");
  expect_rejected("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, "hermitian");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2\n", 2, "entry count");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n", 4, "truncated");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n", 4, "more entries");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", 3, "outside");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", 3, "outside");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", 3, "non-numeric");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n", 3, "non-integer");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1 9\n", 3, "trailing");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n3000000000 2 1\n1 1 1\n", 2, "32-bit");
  expect_rejected("%%MatrixMarket matrix coordinate real general\n2 2 5\n", 2, "exceeds");
  expect_rejected("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", 3, "lower triangle");
  expect_rejected("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", 3, "diagonal");
  expect_rejected("", 0, "empty");
}

TEST_F(MatrixMarketTest, RejectsMissingAndTruncatedCompressedFiles) {
  EXPECT_THROW(rsh::read_matrix_market<double>("/nonexistent/rsh.mtx"), rsh::FileFormatError);
  const auto A = rsh::generate_uniform<double>(200, 300, 7, 1);
  const std::string gz = ::testing::TempDir() + "rsh_io_trunc.mtx.gz";
  rsh::write_matrix_market(gz, A);
  std::string bytes;
  {
    std::ifstream in(gz, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string cut = write("cut.mtx.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_THROW(rsh::read_matrix_market<double>(cut), rsh::FileFormatError);
}

TEST_F(MatrixMarketTest, OffsetOverflowIsRejected) {
  rsh::impl::HostCrs huge;
  huge.num_rows = 1;
  huge.num_cols = 1;
  huge.row_map = {0, int64_t(3) << 30};  // claims 3.2e9 nonzeros; nothing is allocated before the check
  EXPECT_THROW((rsh::impl::to_bundle<double, int, Kokkos::HostSpace>(huge, "huge")), std::invalid_argument);
}

TEST_F(MatrixMarketTest, RoundTripPlainAndCompressed) {
  const auto A = rsh::generate_uniform<double>(50, 70, 5, rsh::test::fresh_seed());
  for (const std::string name : {"rt.mtx", "rt.mtx.gz"}) {
    const std::string path = ::testing::TempDir() + "rsh_io_" + name;
    rsh::write_matrix_market(path, A);
    const auto B = rsh::read_matrix_market<double>(path);
    ASSERT_EQ(B.nnz(), A.nnz());
    for (int k = 0; k < A.nnz(); ++k) {
      EXPECT_EQ(B.entries(k), A.entries(k));
      EXPECT_DOUBLE_EQ(B.values(k), A.values(k));  // written with 17 digits
    }
  }
}

/// Bytes in memory read as the same file does: plain, gzip-compressed, truncated gzip, NUL bytes.
TEST_F(MatrixMarketTest, ReadsFromMemoryAsFromFiles) {
  const auto A = rsh::generate_uniform<double>(300, 200, 9, rsh::test::fresh_seed());
  auto bytes_of = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (const std::string name : {"mem.mtx", "mem.mtx.gz"}) {
    const std::string path = ::testing::TempDir() + "rsh_io_" + name;
    rsh::write_matrix_market(path, A);
    const std::string bytes = bytes_of(path);
    const rsh::impl::HostCrs got = rsh::impl::read_matrix_market_memory(bytes.data(), bytes.size(), name);
    const rsh::impl::HostCrs want = rsh::impl::read_matrix_market_host(path);
    EXPECT_EQ(got.row_map, want.row_map) << name;
    EXPECT_EQ(got.entries, want.entries) << name;
    EXPECT_EQ(got.values, want.values) << name;
    EXPECT_THROW(rsh::impl::read_matrix_market_memory(bytes.data(), bytes.size() * 2 / 3, name), rsh::FileFormatError)
        << name << " cut";
  }
  const std::string no_newline = "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 1 3.5";
  const auto last = rsh::impl::read_matrix_market_memory(no_newline.data(), no_newline.size(), "x");
  ASSERT_EQ(last.nnz(), 1);
  EXPECT_EQ(last.values[0], 3.5);
  const std::string nul = std::string("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1") + '\0' + " 2\n";
  try {
    rsh::impl::read_matrix_market_memory(nul.data(), nul.size(), "nul.mtx");
    FAIL() << "accepted a NUL byte";
  } catch (const rsh::FileFormatError& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("NUL"), std::string::npos) << e.what();
  }
}

/// A header asking for more memory than the machine has gets rsh::ResourceError naming the size, before
/// anything is allocated (not the kernel's out-of-memory killer).
TEST_F(MatrixMarketTest, SizesBeyondTheMachineAreRefusedBeforeAllocating) {
  const std::string path = write("huge.mtx",
                                 "%%MatrixMarket matrix coordinate real general\n"
                                 "2000000000 2000000000 1000000000000000\n1 1 1\n");
  try {
    rsh::read_matrix_market<double>(path);
    FAIL() << "accepted a petabyte header";
  } catch (const rsh::ResourceError& e) {
    EXPECT_NE(std::string(e.what()).find("GB of host memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  // 2e9 x 2e9 with one entry: its two row arrays take 32 GB, refused wherever they do not fit.
  const std::string one = write("one.mtx",
                                "%%MatrixMarket matrix coordinate real general\n"
                                "2000000000 2000000000 1\n1 1 1\n");
  if (rsh::impl::host_bytes_available() < 32e9) EXPECT_THROW(rsh::read_matrix_market<double>(one), rsh::ResourceError);
  EXPECT_THROW(rsh::impl::check_host_bytes(1e18, "an exabyte"), rsh::ResourceError);
  EXPECT_NO_THROW(rsh::impl::check_host_bytes(1e6, "a megabyte"));
}

TEST_F(MatrixMarketTest, ReadsSharedBenchmarkMatrix) {
  const std::string path = rsh::test::shared_matrix("gnn/cora.mtx.gz");
  if (path.empty()) GTEST_SKIP() << "shared matrices not present";
  const auto A = rsh::read_matrix_market<float>(path);
  EXPECT_EQ(A.num_rows, 2708);
  EXPECT_EQ(A.num_cols, 2708);
  EXPECT_EQ(A.nnz(), 10556);  // MANIFEST.tsv
}

}  // namespace
