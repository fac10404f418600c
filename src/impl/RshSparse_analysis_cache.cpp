#include "impl/RshSparse_analysis_cache.hpp"

namespace rsh {
namespace impl {
namespace {

/// The clear() of every AnalysisCache instantiation, run together at Kokkos::finalize() or on request.
struct Clears {
  std::mutex mutex;
  std::vector<std::function<void()>> all;
  void run() {
    std::vector<std::function<void()>> copy;
    {
      std::lock_guard<std::mutex> lock(mutex);
      copy = all;
    }
    for (const auto& clear : copy) clear();
  }
};

Clears& clears() {
  static Clears* c = new Clears();  // outlives every cache: finalize may run at exit
  return *c;
}

}  // namespace

void clear_at_finalize(std::function<void()> clear) {
  std::lock_guard<std::mutex> lock(clears().mutex);
  if (clears().all.empty()) Kokkos::push_finalize_hook([] { clears().run(); });
  clears().all.push_back(std::move(clear));
}

}  // namespace impl

void clear_analysis_cache() {
  impl::clears().run();
}

}  // namespace rsh
