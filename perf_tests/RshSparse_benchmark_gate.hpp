#pragma once
// LaunchGate: holds a stream behind a spinning kernel while the host
// enqueues a batch of calls, then lets the batch run back to back. Events
// around such a batch time the GPU's work, not the rate at which the host
// can launch (the blocking-kernel method of NVIDIA's nvbench): a call of a
// few microseconds on a small matrix otherwise measures the host's launch
// latency for every implementation alike.
#include <cuda_runtime.h>

namespace rsh {
namespace bench {

class LaunchGate {
 public:
  LaunchGate();
  ~LaunchGate();
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;

  /// Enqueues the spinning kernel on `stream`; work enqueued after it waits.
  void close(cudaStream_t stream);
  /// Releases the stream. Call before any host wait on that stream.
  void open();
  /// True when the last close() gave up waiting (after about a second):
  /// something between close() and open() waited for the GPU, and the
  /// batch ran behind a timed-out gate instead of back to back.
  bool timed_out() const;

 private:
  volatile int* flag_ = nullptr;  ///< host-mapped: 0 closed, 1 open, 2 timed out
  int* device_flag_ = nullptr;    ///< the same word as the spinning kernel sees it
};

}  // namespace bench
}  // namespace rsh
