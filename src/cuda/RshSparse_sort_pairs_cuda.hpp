#pragma once
// sort_pairs on Kokkos::Cuda: CUB's radix sort of (key, value) pairs (stable,
// so equal keys keep their order), on the execution space's stream.
#include <Kokkos_Core.hpp>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <string>

namespace rsh {
namespace impl {

template <class Key, class Value>
void sort_pairs_cuda(const Kokkos::Cuda& exec,
                     const Kokkos::View<Key*, Kokkos::LayoutRight, Kokkos::Cuda::memory_space>& keys,
                     const Kokkos::View<Value*, Kokkos::LayoutRight, Kokkos::Cuda::memory_space>& values) {
  const int64_t n = static_cast<int64_t>(keys.extent(0));
  if (n > INT_MAX)
    throw std::invalid_argument("rsh::sort_pairs: " + std::to_string(n) + " keys exceed CUB's int count");
  if (n < 2) return;
  Kokkos::View<Key*, Kokkos::LayoutRight, Kokkos::Cuda::memory_space> keys_out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sort_pairs::keys"), n);
  Kokkos::View<Value*, Kokkos::LayoutRight, Kokkos::Cuda::memory_space> values_out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sort_pairs::values"), n);
  size_t bytes = 0;
  auto check = [](cudaError_t e) {
    if (e != cudaSuccess) throw std::runtime_error(std::string("rsh::sort_pairs: ") + cudaGetErrorString(e));
  };
  check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys.data(), keys_out.data(), values.data(), values_out.data(),
                                        static_cast<int>(n), 0, int(8 * sizeof(Key)), exec.cuda_stream()));
  Kokkos::View<char*, Kokkos::Cuda::memory_space> scratch(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "rsh::sort_pairs::scratch"), bytes);
  check(cub::DeviceRadixSort::SortPairs(scratch.data(), bytes, keys.data(), keys_out.data(), values.data(),
                                        values_out.data(), static_cast<int>(n), 0, int(8 * sizeof(Key)),
                                        exec.cuda_stream()));
  Kokkos::deep_copy(exec, keys, keys_out);
  Kokkos::deep_copy(exec, values, values_out);
}

}  // namespace impl
}  // namespace rsh
