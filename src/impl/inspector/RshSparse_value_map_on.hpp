#pragma once
// The map from A's value positions to the format's value slots, and the
// refresh of the slots from A's values: what analyze() and update_values()
// run instead of a host copy. Where every slot takes exactly one position (A
// without duplicates, the usual case) value_dest itself is the map and the
// refresh a scatter; duplicates sum into one slot, so there value_dest is
// inverted for gathering (a counting sort on the execution space) and each
// slot sums its positions on one thread.
#include <stdexcept>

#include "impl/inspector/RshSparse_inspector_common.hpp"
#include "impl/inspector/RshSparse_inspector_views.hpp"

namespace rsh {
namespace impl {

/// Where A's values go: slot dest(k) takes position k (one_to_one), or slot s sums the positions
/// from(first(s) .. first(s + 1)). 32-bit, as the format's value_dest.
template <class MemorySpace>
struct ValueGather {
  View1<const int, MemorySpace> dest;   ///< position -> slot
  View1<int, MemorySpace> first, from;  ///< empty where one_to_one
  int64_t slots = 0;
  int64_t num_slots() const { return slots; }
  bool one_to_one() const { return first.extent(0) == 0; }
};

/// The map of value_dest (position -> slot) onto `slots` slots, inverted into gather lists unless it is
/// one-to-one. Every slot takes at least one position (a tile slot is a set bit of its bitmap, which some
/// position set; each residual position has its own slot), so as many slots as positions means one each.
template <class ExecSpace, class Dest>
ValueGather<typename ExecSpace::memory_space> value_gather_on(const ExecSpace& exec, const Dest& value_dest,
                                                              int64_t slots) {
  using Mem = typename ExecSpace::memory_space;
  const int64_t nnz = static_cast<int64_t>(value_dest.extent(0));
  if (slots > nnz) throw std::logic_error("rsh::inspect: more value slots than positions");
  if (slots == nnz) return {value_dest, {}, {}, slots};
  const auto count = scratch_zeros<int>(exec, "rsh::gather::count", slots);
  const auto first = zeroed_view<int>(exec, "rsh::gather_first", slots + 1);
  const auto from = uninitialized_view<int>(exec, "rsh::gather_from", nnz);
  Kokkos::parallel_for(
      "rsh::gather::count", Range64<ExecSpace>(exec, 0, nnz),
      KOKKOS_LAMBDA(const int64_t k) { Kokkos::atomic_add(&count(value_dest(k)), 1); });
  scan_offsets(
      exec, "rsh::gather::first", slots, first, KOKKOS_LAMBDA(const int64_t s) { return int64_t(count(s)); });
  Kokkos::parallel_for(
      "rsh::gather::cursor", Range64<ExecSpace>(exec, 0, slots),
      KOKKOS_LAMBDA(const int64_t s) { count(s) = first(s); });
  Kokkos::parallel_for(
      "rsh::gather::fill", Range64<ExecSpace>(exec, 0, nnz), KOKKOS_LAMBDA(const int64_t k) {
        from(Kokkos::atomic_fetch_add(&count(value_dest(k)), 1)) = static_cast<int>(k);
      });
  return {value_dest, first, from, slots};
}

/// slots(s) = sum of user(j) over the positions j gathered into s, accumulated in Sum.
template <class Sum, class ExecSpace, class UserValues, class Slots>
void gather_values(const ExecSpace& exec, const ValueGather<typename ExecSpace::memory_space>& map,
                   const UserValues& user, const Slots& slots) {
  using Scalar = typename Slots::non_const_value_type;
  if (map.one_to_one()) {
    const auto dest = map.dest;
    Kokkos::parallel_for(
        "rsh::SpmmHandle::scatter_values", Range64<ExecSpace>(exec, 0, static_cast<int64_t>(dest.extent(0))),
        KOKKOS_LAMBDA(const int64_t k) { slots(dest(k)) = static_cast<Scalar>(static_cast<Sum>(user(k))); });
    return;
  }
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
