#pragma once
// The map from A's value positions to the format's value slots, inverted for
// gathering (a counting sort of value_dest on the execution space), and the
// gather itself: what analyze() and update_values() run instead of a host copy.
#include "impl/inspector/RshSparse_inspector_common.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// Slot s sums A's values at positions from(first(s) .. first(s + 1)). 32-bit, as the format's value_dest.
template <class MemorySpace>
struct ValueGather {
  View1<int, MemorySpace> first, from;
  int64_t num_slots() const { return first.extent(0) ? static_cast<int64_t>(first.extent(0)) - 1 : 0; }
};

/// Inverts value_dest (position -> slot) into the gather lists of `slots` slots.
template <class ExecSpace, class Dest>
ValueGather<typename ExecSpace::memory_space> value_gather_on(const ExecSpace& exec, const Dest& value_dest,
                                                              int64_t slots) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t nnz = static_cast<int64_t>(value_dest.extent(0));
  const auto count = scratch_zeros<int>(exec, "rsh::gather::count", slots);
  const auto first = zeroed_view<int>(exec, "rsh::gather_first", slots + 1);
  const auto from = uninitialized_view<int>(exec, "rsh::gather_from", nnz);
  Kokkos::parallel_for(
      "rsh::gather::count", Range64<ExecSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(const int64_t k) { Kokkos::atomic_add(&count(value_dest(k)), 1); });
  exclusive_scan(
      exec, "rsh::gather::first", slots, first, KOKKOS_LAMBDA(const int64_t s) { return int64_t(count(s)); });
  Kokkos::parallel_for(
      "rsh::gather::cursor", Range64<ExecSpace>(exec, 0, slots),
      KOKKOS_LAMBDA(const int64_t s) { count(s) = first(s); });
  Kokkos::parallel_for(
      "rsh::gather::fill", Range64<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const int64_t k) {
        from(Kokkos::atomic_fetch_add(&count(value_dest(k)), 1)) = static_cast<int>(k);
      });
  return {first, from};
}

/// slots(s) = sum of user(j) over the positions j gathered into s, accumulated in Sum.
template <class Sum, class ExecSpace, class UserValues, class Slots>
void gather_values(const ExecSpace& exec, const ValueGather<typename ExecSpace::memory_space>& map,
                   const UserValues& user, const Slots& slots) {
  using Scalar = typename Slots::non_const_value_type;
  const auto first = map.first, from = map.from;
  Kokkos::parallel_for(
      "rsh::SpmmHandle::gather_values", Range64<ExecSpace>(exec, 0, map.num_slots()), KOKKOS_LAMBDA(const int64_t s) {
        Sum sum = 0;
        for (int64_t j = first(s); j < first(s + 1); ++j) sum += static_cast<Sum>(user(from(j)));
        slots(s) = static_cast<Scalar>(sum);
      });
}

}  // namespace impl
}  // namespace rsh
