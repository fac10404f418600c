// libFuzzer harness: the Matrix Market reader on arbitrary bytes, as plain text
// and gzip-compressed (both the input's own bytes and the input compressed
// here, so the parser behind the inflater is reached too). A rejection must be
// rsh::FileFormatError or rsh::ResourceError; anything else escaping is a crash
// (libFuzzer aborts on an uncaught exception). An accepted matrix must be a
// valid CSR: offsets from 0 to nnz, nondecreasing, columns in range, sorted
// and distinct within each row.
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "RshSparse_Error.hpp"
#include "impl/RshSparse_MatrixMarket.hpp"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

void check_csr(const rsh::impl::HostCrs& A) {
  require(A.num_rows >= 0 && A.num_cols >= 0);
  require(static_cast<int64_t>(A.row_map.size()) == A.num_rows + 1 && A.row_map.front() == 0);
  require(A.row_map.back() == static_cast<int64_t>(A.entries.size()) && A.entries.size() == A.values.size());
  for (int64_t r = 0; r < A.num_rows; ++r) {
    require(A.row_map[r] <= A.row_map[r + 1]);
    for (int64_t k = A.row_map[r]; k < A.row_map[r + 1]; ++k) {
      require(A.entries[k] >= 0 && A.entries[k] < A.num_cols);
      require(k == A.row_map[r] || A.entries[k - 1] < A.entries[k]);
    }
  }
}

void read(const char* data, size_t size) {
  try {
    check_csr(rsh::impl::read_matrix_market_memory(data, size, "fuzz.mtx"));
  } catch (const rsh::FileFormatError&) {
  } catch (const rsh::ResourceError&) {
  }
}

std::string gzip(const uint8_t* data, size_t size) {
  uLongf bound = compressBound(size) + 32;
  std::string out(bound, '\0');
  z_stream z{};
  deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);  // gzip wrapper
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = reinterpret_cast<Bytef*>(&out[0]);
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

// Inputs explore the parser, not the allocator: the reader refuses (rsh::ResourceError) above 50 MB.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("RSH_HOST_MEMORY_LIMIT", "5e7", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  read(reinterpret_cast<const char*>(data), size);  // plain, or the input's own gzip bytes
  if (size < 4096) {
    const std::string compressed = gzip(data, size);
    read(compressed.data(), compressed.size());
    read(compressed.data(), compressed.size() / 2);  // truncated gzip
  }
  return 0;
}
