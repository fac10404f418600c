// A Kokkos Tools library that times every labelled parallel_for / reduce /
// scan and deep_copy, for finding where the inspector's phases spend their
// time on a device that has no profiler (Nsight Systems is not usable on the
// GPU node). It asks Kokkos to fence after every kernel, so a kernel's time is
// its launch to its end; the launches' host cost is in it. At exit it prints
// each label's count and total milliseconds, longest first, to stderr.
// KOKKOS_KERNEL_TIMES_TRACE=1 also prints each kernel's label to stderr as it
// starts (unbuffered): with CUDA_LAUNCH_BLOCKING=1, the last label before a
// fence's error names the kernel that faulted.
// Build: g++ -O2 -shared -fPIC -o libkokkos_kernel_times.so scripts/kokkos_kernel_times.cpp
// Use:   KOKKOS_TOOLS_LIBS=$PWD/libkokkos_kernel_times.so <program>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Open {
  std::string name;
  Clock::time_point start;
};
struct Total {
  int64_t count = 0;
  double ms = 0;
};

std::map<uint64_t, Open> open_regions;
std::map<std::string, Total> totals;
uint64_t next_id = 0;
const bool trace = [] {
  const char* v = std::getenv("KOKKOS_KERNEL_TIMES_TRACE");
  return v != nullptr && std::string(v) == "1";
}();

void begin(const char* kind, const char* name, uint64_t* id) {
  *id = next_id++;
  if (trace) std::fprintf(stderr, "kokkos_kernel_times: begin %s %s\n", kind, name);
  open_regions[*id] = Open{std::string(kind) + " " + name, Clock::now()};
}

void end(uint64_t id) {
  const auto it = open_regions.find(id);
  if (it == open_regions.end()) return;
  Total& t = totals[it->second.name];
  ++t.count;
  t.ms += std::chrono::duration<double, std::milli>(Clock::now() - it->second.start).count();
  open_regions.erase(it);
}

}  // namespace

extern "C" {

struct Kokkos_Tools_ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

void kokkosp_request_tool_settings(const uint32_t, Kokkos_Tools_ToolSettings* settings) {
  settings->requires_global_fencing = true;
}

void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {}

void kokkosp_finalize_library() {
  std::vector<std::pair<std::string, Total>> sorted(totals.begin(), totals.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  std::fprintf(stderr, "kokkos_kernel_times: %zu labels\n%12s %10s  %s\n", sorted.size(), "total ms", "count", "label");
  for (const auto& [name, t] : sorted)
    std::fprintf(stderr, "%12.3f %10lld  %s\n", t.ms, static_cast<long long>(t.count), name.c_str());
}

void kokkosp_begin_parallel_for(const char* name, const uint32_t, uint64_t* id) {
  begin("for", name, id);
}
void kokkosp_end_parallel_for(const uint64_t id) {
  end(id);
}
void kokkosp_begin_parallel_reduce(const char* name, const uint32_t, uint64_t* id) {
  begin("reduce", name, id);
}
void kokkosp_end_parallel_reduce(const uint64_t id) {
  end(id);
}
void kokkosp_begin_parallel_scan(const char* name, const uint32_t, uint64_t* id) {
  begin("scan", name, id);
}
void kokkosp_end_parallel_scan(const uint64_t id) {
  end(id);
}

}  // extern "C"
