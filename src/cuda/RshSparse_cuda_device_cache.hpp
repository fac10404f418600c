#pragma once
// Answers about the current device that stay the same while the process runs
// (kernels' occupancy, attributes once set), asked once a device. Each such
// query costs microseconds to tens of them (the first one of a kernel loads
// it), and a plan asks several when it is built: a handle's first multiply
// would pay them every time.
#include <cuda_runtime.h>

#include <mutex>

#include "cuda/RshSparse_spmm_cuda.hpp"

namespace rsh {
namespace cuda {
namespace detail {

/// Devices whose answers are kept; a device past them is asked every time.
constexpr int kCachedDevices = 64;

/// query() for the current device: asked the first time for that device, its answer kept for the next
/// calls. Each Query type (a lambda: a call site, per template instance) has a cache of its own. A query
/// that throws is asked again next time.
template <class Query>
auto once_per_device(const Query& query) -> decltype(query()) {
  using Answer = decltype(query());
  struct Slot {
    std::once_flag asked;
    Answer answer{};
  };
  static Slot slots[kCachedDevices];
  int device = 0;
  RSH_CUDA_CHECK(cudaGetDevice(&device));
  if (device < 0 || device >= kCachedDevices) return query();
  Slot& slot = slots[device];
  std::call_once(slot.asked, [&] { slot.answer = query(); });
  return slot.answer;
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
