#pragma once
// What every phase of the inspector on an execution space shares: views of
// its memory space, scans and reductions that hand their totals back to the
// host, and the 8-way merge of a row window's sorted columns. Kokkos 3.4
// through 4.x (KOKKOS_COMPAT.md): no execution-space overloads of sort, and
// joins of custom reduction types take volatile arguments before 4.0.
#include <Kokkos_Core.hpp>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

namespace rsh {
namespace impl {

#if KOKKOS_VERSION >= 40000
#define RSH_JOIN_VOLATILE
#else
#define RSH_JOIN_VOLATILE volatile
#endif

template <class T, class MemorySpace>
using View1 = Kokkos::View<T*, Kokkos::LayoutRight, MemorySpace>;

/// The inspector's kernels: int64 indices, and light weight, so that Kokkos::Cuda passes the functor as a
/// kernel argument. (A functor of 512 bytes or more, as most that capture several views, otherwise goes
/// through constant memory, and each such launch first waits for the previous one's kernel to finish.)
template <class ExecSpace>
using Range64 = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<int64_t>,
                                    Kokkos::Experimental::WorkItemProperty::HintLightWeight_t>;

KOKKOS_INLINE_FUNCTION int popcount64(uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __popcll(x);
#else
  return __builtin_popcountll(x);
#endif
}

KOKKOS_INLINE_FUNCTION uint64_t mix64(uint64_t x) {  // splitmix64's finaliser
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The row of an n-row CSR holding stored entry k: the last r with row_map(r) <= k (empty rows before it
/// skipped); a binary search.
template <class RowMap>
KOKKOS_INLINE_FUNCTION int64_t row_of(const RowMap& row_map, int64_t num_rows, int64_t k) {
  int64_t lo = 0, hi = num_rows - 1;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (row_map(mid) <= k)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// A Kokkos Tools region over a scope, closed on every exit (Kokkos::Profiling::ScopedRegion is 4.x only).
class ProfilingRegion {
 public:
  explicit ProfilingRegion(const char* name) { Kokkos::Profiling::pushRegion(name); }
  ~ProfilingRegion() { Kokkos::Profiling::popRegion(); }
  ProfilingRegion(const ProfilingRegion&) = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;
};

/// Element i of a view, on the host (a fence on the view's space).
template <class View>
typename View::non_const_value_type read_back(const View& v, int64_t i) {
  typename View::non_const_value_type x{};
  Kokkos::deep_copy(x, Kokkos::subview(v, i));
  return x;
}

/// Element i of a view, on the host, once the work queued on `exec` is done: one fence of `exec`, where the
/// deep_copy into a scalar above fences every space before and after its copy.
template <class ExecSpace, class View>
typename View::non_const_value_type read_back(const ExecSpace& exec, const View& v, int64_t i) {
  using T = typename View::non_const_value_type;
  T x{};
  const Kokkos::View<T, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(&x);
  Kokkos::deep_copy(exec, host, Kokkos::subview(v, i));
  exec.fence();
  return x;
}

/// Two counts scanned as one int64, so that one total comes back: the first in the low 32 bits, the second
/// in the high ones. Each total stays below 2^31 (counts of windows, items and tiles: their ids are 32-bit).
struct PackedCounts {
  static constexpr int64_t kHigh = int64_t(1) << 32;
  KOKKOS_INLINE_FUNCTION static constexpr int64_t pack(int64_t low, int64_t high) { return low + high * kHigh; }
  KOKKOS_INLINE_FUNCTION static constexpr int64_t low(int64_t packed) { return packed & (kHigh - 1); }
  KOKKOS_INLINE_FUNCTION static constexpr int64_t high(int64_t packed) { return packed / kHigh; }
};

/// offsets(i) = sum of count(j) over j < i for i in [0, n], queued on `exec` (the total stays on the
/// device). `offsets` has n + 1 entries; count(i) is callable on the execution space.
template <class ExecSpace, class Offsets, class Count>
void scan_offsets(const ExecSpace& exec, const char* label, int64_t n, const Offsets& offsets, const Count& count) {
  using Offset = typename Offsets::non_const_value_type;
  Kokkos::parallel_scan(
      label, Range64<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const int64_t i, int64_t& sum, const bool final) {
        const int64_t c = count(i);
        if (final) {
          offsets(i) = static_cast<Offset>(sum);
          if (i == n - 1) offsets(n) = static_cast<Offset>(sum + c);
        }
        sum += c;
      });
  if (n == 0) Kokkos::deep_copy(exec, Kokkos::subview(offsets, 0), Offset(0));
}

/// The same, and returns offsets(n) (a wait for `exec`).
template <class ExecSpace, class Offsets, class Count>
int64_t exclusive_scan(const ExecSpace& exec, const char* label, int64_t n, const Offsets& offsets,
                       const Count& count) {
  scan_offsets(exec, label, n, offsets, count);
  return static_cast<int64_t>(read_back(exec, offsets, n));
}

/// A host copy of the rank-1 view v once the work queued on `exec` is done (one fence of `exec`; a vector,
/// where a host view would fence again when freed).
template <class ExecSpace, class View>
std::vector<typename View::non_const_value_type> host_copy(const ExecSpace& exec, const View& v) {
  using T = typename View::non_const_value_type;
  std::vector<T> h(v.extent(0));
  Kokkos::deep_copy(
      exec,
      Kokkos::View<T*, typename View::array_layout, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
          h.data(), h.size()),
      v);
  exec.fence();
  return h;
}

/// Sums and maxima a reduction gathers at once (one pass where a statistic needs several).
struct Tally {
  int64_t sum[3];
  int64_t max[2];
  uint64_t hash;  ///< a sum modulo 2^64 (of hash terms)
};

template <class F>
struct TallyFunctor {
  using value_type = Tally;
  F f;
  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, value_type& v) const { f(i, v); }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int j = 0; j < 3; ++j) v.sum[j] = 0;
    for (int j = 0; j < 2; ++j) v.max[j] = INT64_MIN;
    v.hash = 0;
  }
  KOKKOS_INLINE_FUNCTION void join(RSH_JOIN_VOLATILE value_type& dst, const RSH_JOIN_VOLATILE value_type& src) const {
    for (int j = 0; j < 3; ++j) dst.sum[j] += src.sum[j];
    for (int j = 0; j < 2; ++j) dst.max[j] = dst.max[j] < src.max[j] ? src.max[j] : dst.max[j];
    dst.hash += src.hash;
  }
};

/// parallel_reduce of f(i, Tally&) over [0, n) on `exec` (sums and the hash start at 0, maxima at INT64_MIN).
template <class ExecSpace, class F>
Tally tally(const ExecSpace& exec, const char* label, int64_t n, const F& f) {
  Tally out;
  Kokkos::parallel_reduce(label, Range64<ExecSpace>(exec, 0, n), TallyFunctor<F>{f}, out);
  return out;
}

/// Visits the distinct columns of up to 8 rows (columns sorted within each row; rows[i] < 0: none) in
/// increasing order: f(local, i, k, first) for each stored position k of row i whose column is the
/// local-th distinct one, `first` false for a row's repeats of a column (duplicates share a slot).
/// Returns the number of distinct columns. One thread merges the 8 rows: linear in their nonzeros. Each
/// row's next column is held in a register, so a step reads only the rows it advances.
template <class RowMap, class Entries, class F>
KOKKOS_INLINE_FUNCTION int merge_window_columns(const RowMap& row_map, const Entries& entries, const int* rows,
                                                const F& f) {
  int64_t pos[8], end[8];
  int head[8];  // entries(pos[i]), INT_MAX past the row's end (columns are below num_cols <= INT_MAX)
  for (int i = 0; i < 8; ++i) {
    pos[i] = rows[i] >= 0 ? static_cast<int64_t>(row_map(rows[i])) : 0;
    end[i] = rows[i] >= 0 ? static_cast<int64_t>(row_map(rows[i] + 1)) : 0;
    head[i] = pos[i] < end[i] ? static_cast<int>(entries(pos[i])) : INT_MAX;
  }
  int local = 0;
  while (true) {
    int col = head[0];
    for (int i = 1; i < 8; ++i) col = head[i] < col ? head[i] : col;
    if (col == INT_MAX) return local;
    for (int i = 0; i < 8; ++i)
      for (bool first = true; head[i] == col; first = false) {
        f(local, i, pos[i], first);
        ++pos[i];
        head[i] = pos[i] < end[i] ? static_cast<int>(entries(pos[i])) : INT_MAX;
      }
    ++local;
  }
}

/// The rows of natural 8-row window w of an n-row matrix (-1 past the end).
KOKKOS_INLINE_FUNCTION void natural_window(int64_t w, int64_t n, int* rows) {
  for (int i = 0; i < 8; ++i) rows[i] = 8 * w + i < n ? static_cast<int>(8 * w + i) : -1;
}

}  // namespace impl
}  // namespace rsh
