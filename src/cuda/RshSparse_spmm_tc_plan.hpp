#pragma once
// The Tensor-Core launch the planner picks: how many warps (K) share one (item, feature slice) task. Host
// code alone, so that the rule is tested without a GPU.
#include <cstdint>

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kTcMaxWarpsPerItem = 8;  ///< a CTA's warps: the split-K reduction stays inside one CTA
/// Warps a launch may reach before K stops doubling (the rule measured on FP16 and TF32; about four waves of
/// resident warps on the H100).
constexpr int64_t kTcMaxSplitWarps = 16384;

/// K for `tasks` (item, slice) tasks whose items hold `mean_tiles` tiles on average. K doubles while the
/// grid stays within kTcMaxSplitWarps and each warp keeps a tile. With `one_wave_for_short_items` (FP64) it
/// doubles past the device's `wave_warps` (resident warps of the kernel) only while each warp keeps four
/// tiles: a split past one wave pays every warp's fixed cost (its metadata, rows and reduction) again in each
/// wave, which a short item's tiles do not hide (perf_tests/results/MODELS.md).
inline int plan_tc_warps(int64_t tasks, int64_t mean_tiles, int64_t wave_warps, bool one_wave_for_short_items) {
  constexpr int64_t kMinTilesPastOneWave = 4;
  int K = 1;
  while (K < kTcMaxWarpsPerItem && 2 * K * tasks <= kTcMaxSplitWarps && K < mean_tiles) {
    const bool past_one_wave = 2 * K * tasks > wave_warps;
    if (one_wave_for_short_items && past_one_wave && mean_tiles < kMinTilesPastOneWave * 2 * K) break;
    K *= 2;
  }
  return K;
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
