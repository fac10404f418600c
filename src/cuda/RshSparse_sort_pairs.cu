#include <climits>
#include <cub/device/device_radix_sort.cuh>
#include <stdexcept>
#include <string>

#include "cuda/RshSparse_cuda_device_array.hpp"
#include "cuda/RshSparse_sort_pairs_cuda.hpp"

namespace rsh {
namespace cuda {

void sort_pairs(uint64_t* keys, int* values, int64_t n, cudaStream_t stream) {
  if (n > INT_MAX) throw std::invalid_argument("rsh::cuda::sort_pairs: " + std::to_string(n) + " keys exceed INT_MAX");
  if (n < 2) return;
  detail::StreamBuffer<uint64_t> keys_out(size_t(n), stream);
  detail::StreamBuffer<int> values_out(size_t(n), stream);
  size_t bytes = 0;
  const int count = static_cast<int>(n), bits = 64;
  RSH_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, keys_out.get(), values, values_out.get(), count,
                                                 0, bits, stream));
  detail::StreamBuffer<char> scratch(bytes, stream);
  RSH_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.get(), bytes, keys, keys_out.get(), values, values_out.get(),
                                                 count, 0, bits, stream));
  RSH_CUDA_CHECK(cudaMemcpyAsync(keys, keys_out.get(), sizeof(uint64_t) * size_t(n), cudaMemcpyDeviceToDevice, stream));
  RSH_CUDA_CHECK(cudaMemcpyAsync(values, values_out.get(), sizeof(int) * size_t(n), cudaMemcpyDeviceToDevice, stream));
}

}  // namespace cuda
}  // namespace rsh
