#include "impl/RshSparse_HostCrs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "RshSparse_Error.hpp"

namespace rsh {
namespace impl {

namespace {

/// The first number in a file (cgroup v2's memory.max reads "max" where there is no limit: infinity).
double number_in(const char* path) {
  std::ifstream f(path);
  double x;
  return f >> x ? x : std::numeric_limits<double>::infinity();
}

}  // namespace

double host_bytes_available() {
  double available = std::numeric_limits<double>::infinity();
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") available = 1024.0 * kib;
  if (available == std::numeric_limits<double>::infinity()) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) available = double(pages) * double(page);
  }
  // A budget the caller sets (fuzzers and batch jobs: a share of the node, below what the kernel allows).
  if (const char* limit = std::getenv("RSH_HOST_MEMORY_LIMIT")) {
    char* end = nullptr;
    const double bytes = std::strtod(limit, &end);
    if (end != limit && bytes >= 0) available = std::min(available, bytes);
  }
  // A container's limit (cgroup v2) is what its out-of-memory killer enforces.
  const double limit = number_in("/sys/fs/cgroup/memory.max"), used = number_in("/sys/fs/cgroup/memory.current");
  if (limit != std::numeric_limits<double>::infinity() && used != std::numeric_limits<double>::infinity())
    available = std::min(available, limit - used);
  return available;
}

void check_host_bytes(double bytes, const std::string& what) {
  const double available = host_bytes_available();
  if (bytes <= available) return;
  char text[160];
  std::snprintf(text, sizeof(text), ": needs %.3g GB of host memory, %.3g GB available", bytes * 1e-9,
                available * 1e-9);
  throw ResourceError(what + text);
}

double crs_bytes(int64_t num_rows, int64_t nnz, int offset_bytes, int value_bytes) {
  return double(num_rows + 1) * offset_bytes + double(nnz) * (sizeof(int) + value_bytes);
}

HostCrs coo_to_crs(int64_t num_rows, int64_t num_cols, std::vector<CooEntry> coo) {
  constexpr int64_t kMaxIndex = std::numeric_limits<int>::max();
  if (num_rows < 0 || num_cols < 0 || num_rows > kMaxIndex || num_cols > kMaxIndex)
    throw std::invalid_argument("rsh::coo_to_crs: dimensions " + std::to_string(num_rows) + " x " +
                                std::to_string(num_cols) + " outside the 32-bit index range");
  for (const CooEntry& e : coo) {
    if (e.row < 0 || e.row >= num_rows || e.col < 0 || e.col >= num_cols)
      throw std::invalid_argument("rsh::coo_to_crs: entry (" + std::to_string(e.row) + ", " + std::to_string(e.col) +
                                  ") outside " + std::to_string(num_rows) + " x " + std::to_string(num_cols));
  }
  // Bucket by row (linear), then sort each row's few entries: fast for the
  // 100M-entry generated graphs where one global sort is not. Peak: the row
  // starts, the buckets and the CSR beside the coordinates.
  check_host_bytes(
      double(num_rows + 1) * 2 * sizeof(int64_t) +
          double(coo.size()) * (sizeof(std::pair<int, double>) + sizeof(int) + sizeof(double)),
      "rsh::coo_to_crs: " + std::to_string(num_rows) + " rows, " + std::to_string(coo.size()) + " entries");
  HostCrs crs;
  crs.num_rows = num_rows;
  crs.num_cols = num_cols;
  std::vector<int64_t> start(num_rows + 1, 0);
  for (const CooEntry& e : coo) ++start[e.row + 1];
  for (int64_t r = 0; r < num_rows; ++r) start[r + 1] += start[r];
  std::vector<std::pair<int, double>> bucket(coo.size());
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (const CooEntry& e : coo) bucket[fill[e.row]++] = {static_cast<int>(e.col), e.value};
  }
  coo.clear();
  coo.shrink_to_fit();
  crs.row_map.assign(num_rows + 1, 0);
  crs.entries.reserve(bucket.size());
  crs.values.reserve(bucket.size());
  for (int64_t r = 0; r < num_rows; ++r) {
    auto first = bucket.begin() + start[r], last = bucket.begin() + start[r + 1];
    std::sort(first, last, [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = first; it != last; ++it) {
      if (it != first && it->first == (it - 1)->first) {
        crs.values.back() += it->second;  // duplicates are summed
        continue;
      }
      crs.entries.push_back(it->first);
      crs.values.push_back(it->second);
    }
    crs.row_map[r + 1] = static_cast<int64_t>(crs.entries.size());
  }
  return crs;
}

}  // namespace impl
}  // namespace rsh

namespace rsh {
namespace impl {

void validate_crs(const HostCrs& A, const char* who) {
  const std::string w(who);
  if (static_cast<int64_t>(A.row_map.size()) != A.num_rows + 1)
    throw std::invalid_argument(w + ": row_map has " + std::to_string(A.row_map.size()) + " entries for " +
                                std::to_string(A.num_rows) + " rows");
  if (A.row_map[0] != 0) throw std::invalid_argument(w + ": row_map(0) = " + std::to_string(A.row_map[0]) + " != 0");
  for (int64_t r = 0; r < A.num_rows; ++r)
    if (A.row_map[r + 1] < A.row_map[r])
      throw std::invalid_argument(w + ": row_map decreases at row " + std::to_string(r));
  if (A.nnz() != static_cast<int64_t>(A.entries.size()) || A.entries.size() != A.values.size())
    throw std::invalid_argument(w + ": row_map(" + std::to_string(A.num_rows) + ") = " + std::to_string(A.nnz()) +
                                " but entries has " + std::to_string(A.entries.size()) + " and values " +
                                std::to_string(A.values.size()));
  for (int64_t k = 0; k < A.nnz(); ++k)
    if (A.entries[k] < 0 || A.entries[k] >= A.num_cols)
      throw std::invalid_argument(w + ": column index " + std::to_string(A.entries[k]) + " at position " +
                                  std::to_string(k) + " outside [0, " + std::to_string(A.num_cols) + ")");
}

std::vector<int64_t> sort_rows(HostCrs& A) {
  std::vector<int64_t> source(A.nnz());
  for (int64_t k = 0; k < A.nnz(); ++k) source[k] = k;
  for (int64_t r = 0; r < A.num_rows; ++r) {
    auto first = source.begin() + A.row_map[r], last = source.begin() + A.row_map[r + 1];
    if (std::is_sorted(A.entries.begin() + A.row_map[r], A.entries.begin() + A.row_map[r + 1])) continue;
    std::stable_sort(first, last, [&](int64_t a, int64_t b) { return A.entries[a] < A.entries[b]; });
  }
  std::vector<int> entries(A.nnz());
  std::vector<double> values(A.nnz());
  for (int64_t k = 0; k < A.nnz(); ++k) {
    entries[k] = A.entries[source[k]];
    values[k] = A.values[source[k]];
  }
  A.entries.swap(entries);
  A.values.swap(values);
  return source;
}

HostCrs permute_rows(const HostCrs& A, const std::vector<int>& order, std::vector<int64_t>& source) {
  HostCrs P;
  P.num_rows = A.num_rows;
  P.num_cols = A.num_cols;
  P.row_map.assign(A.num_rows + 1, 0);
  for (int64_t i = 0; i < A.num_rows; ++i)
    P.row_map[i + 1] = P.row_map[i] + A.row_map[order[i] + 1] - A.row_map[order[i]];
  P.entries.resize(A.nnz());
  std::vector<int64_t> permuted_source(A.nnz());
  for (int64_t i = 0; i < A.num_rows; ++i) {
    const int64_t from = A.row_map[order[i]], len = P.row_map[i + 1] - P.row_map[i];
    std::copy_n(A.entries.begin() + from, len, P.entries.begin() + P.row_map[i]);
    std::copy_n(source.begin() + from, len, permuted_source.begin() + P.row_map[i]);
  }
  source.swap(permuted_source);
  return P;
}

}  // namespace impl
}  // namespace rsh
