#pragma once
// The timed loop of the GPU benchmarks. Each iteration enqueues one call per
// rotating B/C copy back to back between two events (a stream of SpMMs, as in
// a GNN layer); each call still reads a B that is not in L2. With gated timing
// the batch is enqueued behind a LaunchGate and runs without waiting for the
// host, so small calls time the GPU's work rather than the host's launch
// rate; ungated ("stream") timing times the batch as it is enqueued.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "RshSparse_benchmark_cuda.hpp"
#include "RshSparse_benchmark_gate.hpp"

namespace rsh {
namespace bench {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// Times `run(copy)` (one call on `stream` with rotating copy `copy` of B and C, copy < copies) and returns
/// the median device seconds per call over the iterations. Counters: median_us (what speedups use),
/// host_us (median host time to enqueue one call: what a caller's thread spends), calls_per_timing.
template <class Run>
double timed_calls(benchmark::State& state, int copies, bool gated, cudaStream_t stream, Run&& run) {
  static LaunchGate gate;
  EventTimer timer;
  std::vector<double> device, host;
  for (int w = 0; w < 3; ++w) run(w % copies);  // warm-up
  int next = 0;
  for (auto _ : state) {
    if (gated) gate.close(stream);
    timer.start(stream);
    const auto enqueue = std::chrono::steady_clock::now();
    for (int r = 0; r < copies; ++r) {
      next = (next + 1) % copies;
      run(next);
    }
    const std::chrono::duration<double> enqueued = std::chrono::steady_clock::now() - enqueue;
    timer.stop(stream);
    if (gated) gate.open();
    const double t = timer.seconds() / copies;
    if (gated && gate.timed_out()) {
      state.SkipWithError("a call waited for the GPU inside the launch gate: use --rsh_timing=stream");
      return 0;
    }
    state.SetIterationTime(t);
    device.push_back(t);
    host.push_back(enqueued.count() / copies);
  }
  const double m = median(device);
  state.counters["calls_per_timing"] = copies;
  state.counters["median_us"] = 1e6 * m;
  state.counters["host_us"] = 1e6 * median(host);
  return m;
}

}  // namespace bench
}  // namespace rsh
