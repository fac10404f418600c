#pragma once
// Raw CUDA API: a stable sort of (64-bit key, 32-bit value) pairs on a
// stream, by CUB's radix sort (compiled in rsh_cuda, so that users' code
// never includes CUB). The inspector's sort_pairs on Kokkos::Cuda calls it.
#include <cuda_runtime.h>

#include <cstdint>

namespace rsh {
namespace cuda {

/// Sorts keys[0, n) ascending and permutes values alongside (equal keys keep their order), in place, on
/// `stream` (scratch allocated and freed on the stream). Throws std::invalid_argument for n > INT_MAX and
/// std::runtime_error on a CUDA error.
void sort_pairs(uint64_t* keys, int* values, int64_t n, cudaStream_t stream);

}  // namespace cuda
}  // namespace rsh
