#pragma once
// Raw CUDA API: device memory in stream order from a memory pool the library
// owns, one per device. The inspector's scratch arena on Kokkos::Cuda takes
// its blocks here: cudaMalloc and cudaFree each cost tens of microseconds and
// cudaFree waits for the whole device, where a block the pool kept from an
// earlier inspection costs neither. The pool keeps up to
// kStreamPoolKeptBytes after a synchronization (the largest arena an
// inspection uses) and gives back the rest; it never touches the device's
// default pool, which the application may tune.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace rsh {
namespace cuda {

/// Bytes the pool of a device keeps for reuse once its blocks are freed.
constexpr size_t kStreamPoolKeptBytes = size_t(256) << 20;

/// `bytes` of device memory on the current device, usable in `stream`'s order. Throws std::runtime_error
/// when the device has no room.
void* stream_pool_allocate(size_t bytes, cudaStream_t stream);

/// Frees a block of stream_pool_allocate in `stream`'s order (the work queued before it may still read it).
void stream_pool_free(void* block, cudaStream_t stream) noexcept;

/// Frees `count` blocks of device `device`'s pool once that device is idle (a wait for the whole device,
/// as cudaFree waits): for blocks that work on any stream may have read. Reports no error (at exit the
/// runtime may be gone, and the blocks with it).
void stream_pool_free_when_idle(int device, void* const* blocks, size_t count) noexcept;

/// Returns the memory the current device's pool keeps to the device (after the blocks in use are freed).
void stream_pool_trim();

/// Blocks of the pool that outlive the stream order they were allocated in (a format's views, which work on
/// any stream may read): freed together, after a wait for the whole device, when the object goes.
class PooledBlocks {
 public:
  PooledBlocks() = default;
  ~PooledBlocks();
  PooledBlocks(const PooledBlocks&) = delete;
  PooledBlocks& operator=(const PooledBlocks&) = delete;
  /// `bytes` more on the current device, in `stream`'s order (work on another stream must wait for it).
  void* allocate(size_t bytes, cudaStream_t stream);

 private:
  std::vector<void*> blocks_;
  int device_ = -1;
};

}  // namespace cuda
}  // namespace rsh
