#pragma once
// An owning device array (cudaMalloc / cudaFree), for the plan's format
// buffers and for callers' B and C (tests, benchmarks), scratch in stream
// order, and a mapped host flag. Host code only.
#include <cuda_runtime.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "cuda/RshSparse_stream_pool_cuda.hpp"

namespace rsh {
namespace cuda {

template <class E>
class DeviceArray {
 public:
  DeviceArray() = default;
  /// `count` uninitialised elements.
  explicit DeviceArray(size_t count) { allocate(count); }
  /// `count` uninitialised elements from the library's pool (stream_pool_allocate), in `stream`'s order:
  /// other streams may use them once `stream` has passed this point. A cudaMalloc costs tens of
  /// microseconds, more for megabytes, where a block the pool keeps costs about one.
  DeviceArray(size_t count, cudaStream_t stream) : count_(count) {
    RSH_CUDA_CHECK(cudaGetDevice(&pool_device_));
    ptr_ = static_cast<E*>(stream_pool_allocate(std::max<size_t>(count, 1) * sizeof(E), stream));
  }
  /// A copy of `host`.
  explicit DeviceArray(const std::vector<E>& host) { assign(host.data(), host.size(), nullptr); }
  DeviceArray(DeviceArray&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)), pool_device_(o.pool_device_) {}
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    std::swap(pool_device_, o.pool_device_);
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() { release(); }

  /// Replaces the contents with `count` elements of the host buffer `host`;
  /// returns when the copy is done (the host buffer may be temporary).
  void assign(const E* host, size_t count, cudaStream_t stream) {
    if (!ptr_ || count != count_) allocate(count);
    if (count == 0) return;
    RSH_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, count * sizeof(E), cudaMemcpyHostToDevice, stream));
    RSH_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  std::vector<E> download() const {
    std::vector<E> host(count_);
    RSH_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, count_ * sizeof(E), cudaMemcpyDeviceToHost));
    return host;
  }
  E* get() const { return ptr_; }
  size_t size() const { return count_; }

 private:
  /// Never a null pointer, even for zero elements, so callers' null checks mean "not given".
  void allocate(size_t count) {
    release();
    ptr_ = nullptr;
    count_ = count;
    RSH_CUDA_CHECK(cudaMalloc(&ptr_, std::max<size_t>(count, 1) * sizeof(E)));
  }

  /// Frees the elements once every stream is done with them (a pooled block once its device is idle, as
  /// cudaFree waits). No error leaves it: at exit the runtime may be gone, and the memory with it.
  void release() noexcept {
    if (!ptr_) return;
    void* block = ptr_;
    if (pool_device_ < 0)
      cudaFree(block);
    else
      stream_pool_free_when_idle(pool_device_, &block, 1);
    ptr_ = nullptr, pool_device_ = -1;
  }

  E* ptr_ = nullptr;
  size_t count_ = 0;
  int pool_device_ = -1;  ///< the device whose pool (stream_pool_allocate) the elements are from, or -1
};

namespace detail {

/// One int of page-locked host memory that kernels write (mapped into the device's address space) and the
/// host reads without waiting for the device: for answers the host may take late or not at all. It is freed
/// only after the last write recorded with written_on has landed.
class MappedHostFlag {
 public:
  MappedHostFlag() {
    RSH_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), sizeof(int), cudaHostAllocMapped));
    *host_ = 0;
    RSH_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
    RSH_CUDA_CHECK(cudaEventCreateWithFlags(&written_, cudaEventDisableTiming));
  }
  ~MappedHostFlag() {
    cudaEventSynchronize(written_);
    cudaEventDestroy(written_);
    cudaFreeHost(host_);
  }
  MappedHostFlag(const MappedHostFlag&) = delete;
  MappedHostFlag& operator=(const MappedHostFlag&) = delete;
  /// The value last written by a kernel (or 0), read from memory on every call.
  int read() const { return *static_cast<volatile int*>(host_); }
  int* device() const { return device_; }
  /// Records that a kernel on `stream` writes the flag (after the launches so far).
  void written_on(cudaStream_t stream) { RSH_CUDA_CHECK(cudaEventRecord(written_, stream)); }

 private:
  int* host_ = nullptr;
  int* device_ = nullptr;
  cudaEvent_t written_ = nullptr;
};

/// Device memory in stream order from the library's pool (stream_pool_allocate: a call after the first
/// allocates nothing new), freed on the same stream when it goes out of scope. Never null, even for zero
/// elements.
template <class E>
class StreamBuffer {
 public:
  StreamBuffer(size_t count, cudaStream_t stream)
      : stream_(stream), ptr_(static_cast<E*>(stream_pool_allocate(sizeof(E) * (count ? count : 1), stream))) {}
  ~StreamBuffer() { stream_pool_free(ptr_, stream_); }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  E* get() const { return ptr_; }

 private:
  cudaStream_t stream_;
  E* ptr_ = nullptr;
};

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
