#pragma once
// Hashes of a CSR matrix in the user's order, on the execution space where
// its views live: the pattern's (dimensions, row_map, entries) and the
// values'. Each is a sum of one mixed word per (position, content), so a
// change of any one entry changes it, and a swap of two changes it unless
// their mixed words collide. Pattern and values are hashed in one pass (one
// launch and one wait for its total): the handle-free call hashes both on
// every call.
#include <algorithm>

#include "impl/inspector/RshSparse_inspector_common.hpp"

namespace rsh {
namespace impl {

/// A matrix's pattern hash and values hash (0 where values were not hashed).
struct CsrSignature {
  uint64_t pattern = 0, values = 0;
};

/// The three sums behind a CsrSignature: over row_map, over entries, over values.
struct SignatureSums {
  uint64_t rows, entries, values;
};

template <class RowMap, class Entries, class Values>
struct SignatureFunctor {
  using value_type = SignatureSums;
  RowMap row_map;
  Entries entries;
  Values values;  ///< extent 0: the values are not hashed

  KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, value_type& s) const {
    if (i < static_cast<int64_t>(row_map.extent(0))) s.rows += mix64(uint64_t(i) << 32 ^ uint64_t(row_map(i)));
    if (i < static_cast<int64_t>(entries.extent(0)))
      s.entries += mix64(~(uint64_t(i) << 32) ^ uint64_t(static_cast<uint32_t>(entries(i))));
    if (i < static_cast<int64_t>(values.extent(0))) {
      union {
        double d;
        uint64_t u;
      } bits;
      bits.d = static_cast<double>(values(i));  // every scalar's bits in one width
      s.values += mix64(bits.u + uint64_t(i) * 0x9E3779B97F4A7C15ULL);
    }
  }
  KOKKOS_INLINE_FUNCTION void init(value_type& s) const { s.rows = s.entries = s.values = 0; }
  KOKKOS_INLINE_FUNCTION void join(RSH_JOIN_VOLATILE value_type& dst, const RSH_JOIN_VOLATILE value_type& src) const {
    dst.rows += src.rows, dst.entries += src.entries, dst.values += src.values;
  }
};

/// Pattern and values hashes of a CSR matrix, on `exec`; `values` may be empty (values hash 0).
template <class ExecSpace, class RowMap, class Entries, class Values>
CsrSignature csr_signature_on(const ExecSpace& exec, int64_t num_rows, int64_t num_cols, const RowMap& row_map,
                              const Entries& entries, const Values& values) {
  const int64_t n = std::max({static_cast<int64_t>(row_map.extent(0)), static_cast<int64_t>(entries.extent(0)),
                              static_cast<int64_t>(values.extent(0))});
  SignatureSums sums{0, 0, 0};
  Kokkos::parallel_reduce("rsh::spmm::signature", Range64<ExecSpace>(exec, 0, n),
                          SignatureFunctor<RowMap, Entries, Values>{row_map, entries, values}, sums);
  CsrSignature out;
  out.pattern =
      mix64(uint64_t(num_rows) * 0x9E3779B97F4A7C15ULL ^ uint64_t(num_cols)) + mix64(sums.rows) + sums.entries;
  out.values = sums.values;
  return out;
}

/// Hash of a CSR pattern in the user's order (dimensions, row_map, entries), on `exec`.
template <class ExecSpace, class RowMap, class Entries>
uint64_t pattern_signature_on(const ExecSpace& exec, int64_t num_rows, int64_t num_cols, const RowMap& row_map,
                              const Entries& entries) {
  return csr_signature_on(exec, num_rows, num_cols, row_map, entries,
                          Kokkos::View<const double*, typename ExecSpace::memory_space>())
      .pattern;
}

}  // namespace impl
}  // namespace rsh
