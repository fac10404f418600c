#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_stream_pool_cuda.hpp"

namespace rsh {
namespace cuda {
namespace {

/// The library's pool of the current device, created on first use (and kept for the process: destroying
/// it at exit could run after the CUDA runtime has gone).
cudaMemPool_t pool_of_current_device() {
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;
  int device = 0;
  RSH_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools.size() <= size_t(device)) pools.resize(size_t(device) + 1, nullptr);
  if (!pools[device]) {
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    RSH_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
    uint64_t kept = kStreamPoolKeptBytes;
    RSH_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &kept));
    pools[device] = pool;
  }
  return pools[device];
}

}  // namespace

void* stream_pool_allocate(size_t bytes, cudaStream_t stream) {
  void* block = nullptr;
  const cudaError_t err = cudaMallocFromPoolAsync(&block, bytes ? bytes : 1, pool_of_current_device(), stream);
  if (err != cudaSuccess) {
    cudaGetLastError();  // (an out-of-memory error is not sticky: clear it for the caller's next call)
    throw std::runtime_error("rsh::cuda::stream_pool_allocate: " + std::to_string(bytes) +
                             " bytes of device memory: " + cudaGetErrorString(err));
  }
  return block;
}

void stream_pool_free(void* block, cudaStream_t stream) noexcept {
  if (block) cudaFreeAsync(block, stream);
}

void stream_pool_trim() {
  RSH_CUDA_CHECK(cudaMemPoolTrimTo(pool_of_current_device(), 0));
}

void* PooledBlocks::allocate(size_t bytes, cudaStream_t stream) {
  int device = 0;
  RSH_CUDA_CHECK(cudaGetDevice(&device));
  if (device_ >= 0 && device != device_)
    throw std::logic_error("rsh::cuda::PooledBlocks: blocks of one format on two devices");
  device_ = device;
  blocks_.reserve(blocks_.size() + 1);  // (no allocation between the block's and its record)
  void* block = stream_pool_allocate(bytes, stream);
  blocks_.push_back(block);
  return block;
}

void stream_pool_free_when_idle(int device, void* const* blocks, size_t count) noexcept {
  if (count == 0) return;
  // No error leaves: at exit the runtime may already be gone, and then the blocks are too.
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  if (cudaSetDevice(device) != cudaSuccess) return;
  if (cudaDeviceSynchronize() == cudaSuccess)
    for (size_t i = 0; i < count; ++i) cudaFreeAsync(blocks[i], nullptr);
  cudaSetDevice(current);
}

PooledBlocks::~PooledBlocks() {
  stream_pool_free_when_idle(device_, blocks_.data(), blocks_.size());
}

}  // namespace cuda
}  // namespace rsh
