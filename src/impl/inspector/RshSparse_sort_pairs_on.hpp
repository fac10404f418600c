#pragma once
// Sorting (key, value) pairs by key on an execution space, ties in the given
// order: the reordering's one global sort. Kokkos 3.4 has no sort of pairs on
// an execution space (KOKKOS_COMPAT.md), so host spaces sort on the host and
// Kokkos::Cuda takes the raw CUDA API's radix sort (src/cuda, beside the multiply).
#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "impl/inspector/RshSparse_inspector_common.hpp"
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
#include "cuda/RshSparse_sort_pairs_cuda.hpp"
#endif

namespace rsh {
namespace impl {

/// Sorts keys ascending and permutes values alongside; equal keys keep their order.
template <class ExecSpace, class Key, class Value>
void sort_pairs(const ExecSpace& exec, const View1<Key, typename ExecSpace::memory_space>& keys,
                const View1<Value, typename ExecSpace::memory_space>& values) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(RSH_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value && std::is_same<Key, uint64_t>::value &&
                std::is_same<Value, int>::value)
    return cuda::sort_pairs(keys.data(), values.data(), static_cast<int64_t>(keys.extent(0)), exec.cuda_stream());
#endif
  exec.fence();
  const auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values);
  std::vector<int64_t> by(k.extent(0));
  std::iota(by.begin(), by.end(), int64_t(0));
  std::stable_sort(by.begin(), by.end(), [&](int64_t a, int64_t b) { return k(a) < k(b); });
  std::vector<Key> sorted_keys(by.size());
  std::vector<Value> sorted_values(by.size());
  for (size_t i = 0; i < by.size(); ++i) sorted_keys[i] = k(by[i]), sorted_values[i] = v(by[i]);
  for (size_t i = 0; i < by.size(); ++i) k(i) = sorted_keys[i], v(i) = sorted_values[i];
  Kokkos::deep_copy(keys, k);
  Kokkos::deep_copy(values, v);
}

}  // namespace impl
}  // namespace rsh
