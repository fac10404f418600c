// A Kokkos Tools library that writes every event Kokkos reports, with its
// time, to a TSV file: kernel begins and ends, fences, deep copies,
// allocations and frees, and profiling regions. Unlike
// kokkos_kernel_times.cpp it adds no fence, so the timeline is the
// program's own: a parallel_for's begin-to-end is its launch, a reduction's
// or a scan's includes the wait for its result, and the gap before an
// allocation holds the allocation itself (Kokkos reports it once done), the
// gap after a free the free (reported before it happens).
// scripts/timeline_summary.py splits the file by region and adds it up.
// Build: g++ -O2 -shared -fPIC -o libkokkos_timeline.so scripts/kokkos_timeline.cpp
// Use:   KOKKOS_TOOLS_LIBS=$PWD/libkokkos_timeline.so KOKKOS_TIMELINE_OUT=timeline.tsv <program>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point start = Clock::now();
std::FILE* out = nullptr;

// One line: microseconds since load, event, name, bytes (0 where none).
void record(const char* event, const char* name, uint64_t bytes = 0) {
  if (out == nullptr) return;
  const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  std::fprintf(out, "%.1f\t%s\t%s\t%llu\n", us, event, name, static_cast<unsigned long long>(bytes));
}

}  // namespace

extern "C" {

struct SpaceHandle {
  char name[64];
};

struct Kokkos_Tools_ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

// Kokkos fences around every kernel for a tool unless the tool says it need not.
void kokkosp_request_tool_settings(const uint32_t, Kokkos_Tools_ToolSettings* settings) {
  settings->requires_global_fencing = false;
}

void kokkosp_init_library(const int, const uint64_t, const uint32_t, void*) {
  const char* path = std::getenv("KOKKOS_TIMELINE_OUT");
  out = std::fopen(path != nullptr ? path : "timeline.tsv", "w");
  if (out != nullptr) std::fprintf(out, "us\tevent\tname\tbytes\n");
}

void kokkosp_finalize_library() {
  if (out != nullptr) std::fclose(out);
  out = nullptr;
}

void kokkosp_begin_parallel_for(const char* name, const uint32_t, uint64_t*) {
  record("begin_for", name);
}
void kokkosp_end_parallel_for(const uint64_t) {
  record("end_for", "");
}
void kokkosp_begin_parallel_reduce(const char* name, const uint32_t, uint64_t*) {
  record("begin_reduce", name);
}
void kokkosp_end_parallel_reduce(const uint64_t) {
  record("end_reduce", "");
}
void kokkosp_begin_parallel_scan(const char* name, const uint32_t, uint64_t*) {
  record("begin_scan", name);
}
void kokkosp_end_parallel_scan(const uint64_t) {
  record("end_scan", "");
}
void kokkosp_begin_fence(const char* name, const uint32_t, uint64_t*) {
  record("begin_fence", name);
}
void kokkosp_end_fence(const uint64_t) {
  record("end_fence", "");
}
void kokkosp_begin_deep_copy(SpaceHandle, const char* dst, const void*, SpaceHandle, const char*, const void*,
                             uint64_t bytes) {
  record("begin_copy", dst, bytes);
}
void kokkosp_end_deep_copy() {
  record("end_copy", "");
}
void kokkosp_allocate_data(const SpaceHandle space, const char* name, const void* const, const uint64_t bytes) {
  record(space.name[0] == 'C' ? "alloc_device" : "alloc_host", name, bytes);
}
void kokkosp_deallocate_data(const SpaceHandle space, const char* name, const void* const, const uint64_t bytes) {
  record(space.name[0] == 'C' ? "free_device" : "free_host", name, bytes);
}
void kokkosp_push_profile_region(const char* name) {
  record("push", name);
}
void kokkosp_pop_profile_region() {
  record("pop", "");
}

}  // extern "C"
