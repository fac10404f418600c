#include <stdexcept>
#include <string>

#include "RshSparse_benchmark_gate.hpp"

namespace rsh {
namespace bench {
namespace {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string("LaunchGate: ") + what + ": " + cudaGetErrorString(err));
}

/// Spins until the host opens the gate; gives up after `limit` ns so that a
/// host that (wrongly) waits on the stream cannot hang the benchmark.
__global__ void spin_until_open(volatile int* flag, unsigned long long limit) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    if (*flag != 0) return;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > limit) {
      *flag = 2;
      return;
    }
  }
}

}  // namespace

LaunchGate::LaunchGate() {
  int* host = nullptr;
  check(cudaHostAlloc(&host, sizeof(int), cudaHostAllocMapped), "cudaHostAlloc");
  check(cudaHostGetDevicePointer(&device_flag_, host, 0), "cudaHostGetDevicePointer");
  flag_ = host;
  *flag_ = 1;
}

LaunchGate::~LaunchGate() {
  cudaFreeHost(const_cast<int*>(flag_));
}

void LaunchGate::close(cudaStream_t stream) {
  *flag_ = 0;
  spin_until_open<<<1, 1, 0, stream>>>(device_flag_, 1000000000ull);
  check(cudaGetLastError(), "launch");
}

void LaunchGate::open() {
  int closed = 0;  // leaves a time-out mark (2) in place
  __atomic_compare_exchange_n(const_cast<int*>(flag_), &closed, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

bool LaunchGate::timed_out() const {
  return *flag_ == 2;
}

}  // namespace bench
}  // namespace rsh
