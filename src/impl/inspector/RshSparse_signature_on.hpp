#pragma once
// Hashes of a CSR matrix in the user's order, on the execution space where
// its views live: the pattern's (dimensions, row_map, entries) and the
// values'. Each is a sum of one mixed 32-bit word per (position, content
// word), so a change of any one entry changes it, and a swap of two changes
// it unless their mixed words collide. Pattern and values are hashed in one
// pass (one launch and one wait for its total) with 32-bit mixing: the
// handle-free call hashes both on every call, and that pass should cost
// about one read of A.
#include <algorithm>
#include <cstring>

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

/// murmur3's 32-bit finaliser: 32-bit multiplies, which GPUs run natively (a 64-bit one is several).
KOKKOS_INLINE_FUNCTION uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  return x ^ (x >> 16);
}

/// One mixed word for a 32-bit `word` at `position`: a bijection of the word for a fixed position, so a
/// change of any one word changes the sum; `salt` keeps the three sums' words apart.
KOKKOS_INLINE_FUNCTION uint64_t position_term(int64_t position, uint32_t word, uint32_t salt) {
  return mix32(word + (static_cast<uint32_t>(position) ^ salt) * 0x9E3779B9u);
}

/// The pattern hash's term of row offset `offset` at r (the high word only where it is not zero, as for
/// most matrices).
KOKKOS_INLINE_FUNCTION uint64_t row_offset_term(int64_t r, uint64_t offset) {
  const uint64_t low = position_term(r, static_cast<uint32_t>(offset), 0x1234567u);
  return offset >> 32 ? low + position_term(r, static_cast<uint32_t>(offset >> 32), 0x89abcdefu) : low;
}

/// The pattern hash's term of column `col` at position k.
KOKKOS_INLINE_FUNCTION uint64_t entry_term(int64_t k, uint32_t col) {
  return position_term(k, col, 0x2545f491u);
}

/// The pattern hash of an m x n CSR from its row offsets' terms and its entries' terms summed modulo 2^64
/// (the sum does not depend on the order it is taken in, so one pass may take both kinds of term).
inline uint64_t pattern_hash(int64_t num_rows, int64_t num_cols, uint64_t terms) {
  return mix64(uint64_t(num_rows) * 0x9E3779B97F4A7C15ULL ^ uint64_t(num_cols)) + terms;
}

template <class RowMap, class Entries, class Values>
struct SignatureFunctor {
  using value_type = SignatureSums;
  using Scalar = typename Values::non_const_value_type;
  RowMap row_map;
  Entries entries;
  Values values;  ///< extent 0: the values are not hashed

  /// Elements an index hashes: several independent loads in flight a thread, where one element a thread
  /// left the pass below the memory's bandwidth.
  static constexpr int kPerIndex = 4;

  KOKKOS_INLINE_FUNCTION void operator()(const int64_t index, value_type& s) const {
    for (int j = 0; j < kPerIndex; ++j) {
      const int64_t i = index * kPerIndex + j;
      if (i < static_cast<int64_t>(row_map.extent(0))) s.rows += row_offset_term(i, static_cast<uint64_t>(row_map(i)));
      if (i < static_cast<int64_t>(entries.extent(0))) s.entries += entry_term(i, static_cast<uint32_t>(entries(i)));
      if (i < static_cast<int64_t>(values.extent(0))) {
        // The scalar's own bits (any scalar type), one or two 32-bit words.
        const Scalar v = values(i);
        uint32_t words[2] = {0, 0};
        static_assert(sizeof(Scalar) <= sizeof(words), "rsh: values of at most 64 bits");
        memcpy(words, &v, sizeof(Scalar));
        s.values += position_term(i, words[0], 0x6a09e667u);
        if (sizeof(Scalar) > 4) s.values += position_term(i, words[1], 0xbb67ae85u);
      }
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
  using Functor = SignatureFunctor<RowMap, Entries, Values>;
  SignatureSums sums{0, 0, 0};
  Kokkos::parallel_reduce("rsh::spmm::signature",
                          Range64<ExecSpace>(exec, 0, (n + Functor::kPerIndex - 1) / Functor::kPerIndex),
                          Functor{row_map, entries, values}, sums);
  CsrSignature out;
  out.pattern = pattern_hash(num_rows, num_cols, sums.rows + sums.entries);
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
