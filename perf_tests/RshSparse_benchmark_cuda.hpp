#pragma once
// GPU plumbing for the benchmarks: device buffers, the L2-rotation set of
// B/C copies, an event timer.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <Kokkos_Macros.hpp>
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/RshSparse_cuda_device_array.hpp"
#include "cuda/RshSparse_cuda_element.hpp"

namespace rsh {
namespace bench {

using cuda::DeviceArray;

/// ||got - want|| / ||want|| over the whole array (absolute where want is zero); a non-finite value gives infinity.
template <class T>
double relative_error(const std::vector<T>& got, const std::vector<T>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = cuda::to_double(got[i]), w = cuda::to_double(want[i]);
    if (!std::isfinite(g)) return INFINITY;
    num += (g - w) * (g - w);
    den += w * w;
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

/// Context every GPU benchmark report carries: the device, the CUDA runtime,
/// Kokkos, the commit and how runs were timed.
inline void add_gpu_context(const char* git_hash, bool gated_timing) {
  cudaDeviceProp prop{};
  RSH_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  benchmark::AddCustomContext("gpu", prop.name);
  benchmark::AddCustomContext("cuda_runtime", std::to_string(runtime));
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("git_hash", git_hash);
  benchmark::AddCustomContext("timing", gated_timing ? "gated" : "stream");
}

/// Times one stream's work with events (device time, not host time).
class EventTimer {
 public:
  EventTimer() {
    RSH_CUDA_CHECK(cudaEventCreate(&start_));
    RSH_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  void start(cudaStream_t s) { RSH_CUDA_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { RSH_CUDA_CHECK(cudaEventRecord(stop_, s)); }
  /// Waits for the stop event; seconds between the two events.
  double seconds() {
    RSH_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    RSH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return 1e-3 * ms;
  }

 private:
  cudaEvent_t start_, stop_;
};

/// Several copies of B and C, cycled so that consecutive runs do not hit in
/// the 50 MB L2 (at least ~120 MB touched per cycle, at most 16 copies).
template <class T, class OutT>
struct RotatingOperands {
  std::vector<DeviceArray<T>> B;
  std::vector<DeviceArray<OutT>> C;
  RotatingOperands(const std::vector<T>& b, size_t c_count) {
    const size_t bytes = b.size() * sizeof(T) + c_count * sizeof(OutT);
    const size_t copies =
        std::min<size_t>(16, std::max<size_t>(1, (size_t(120) << 20) / std::max<size_t>(bytes, 1) + 1));
    for (size_t i = 0; i < copies; ++i) {
      B.emplace_back(b);
      C.emplace_back(c_count);
    }
  }
};

}  // namespace bench
}  // namespace rsh
