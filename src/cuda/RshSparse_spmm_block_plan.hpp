#pragma once
// The dense-block launch the planner picks: cluster size and staging of a
// shape, from the device's resident cluster counts (BlockWaves, queried by
// RshSparse_spmm_block_launch.cuh). Host code alone, so that the rule is
// tested without a GPU.
#include <cstdint>

#include "cuda/RshSparse_spmm_cuda.hpp"
#include "impl/RshSparse_dense_blocks.hpp"

namespace rsh {
namespace cuda {
namespace detail {

constexpr int kBlockMaxCluster = 8;  ///< portable cluster size: CTAs sharing one 64 x 64 tile of C
/// KernelConfig::dense_cluster may ask for 16 (non-portable, sm_90). The planner stays within 8: 16 was the
/// slower on every DLMC layer shape but one (perf_tests/results/MODELS.md).
constexpr int kBlockMaxWideCluster = 16;
constexpr int kBlockMaxStages = 2;  ///< rounds of staged blocks in shared memory at once

/// How a dense-block launch stages its column blocks: rounds of `round_steps`
/// blocks, `stages` rounds in shared memory at once.
struct BlockStaging {
  int round_steps, stages;
};

/// Dense-block clusters of 1, 2, 4 and 8 CTAs the device holds at once, per staging (the kernels of either
/// FloatMath alike: shared memory bounds them).
struct BlockWaves {
  int two_stages[4];  ///< two rounds of staged blocks a CTA: one CTA an SM
  int one_stage[4];   ///< one round a CTA: two CTAs an SM
};

/// Index of a cluster size 1, 2, 4 or 8 in BlockWaves' arrays.
inline int cluster_index(int cluster) {
  int i = 0;
  while ((1 << i) < cluster) ++i;
  return i;
}

/// Cluster size and staging of a dense-block launch (KernelConfig's where it names them).
struct BlockLaunch {
  int cluster;
  BlockStaging staging;
};

/// The cluster size and staging of a dense-block launch over `l` with `slices` feature slices: KernelConfig's
/// where it names them, else the planner's. `round`: the element type's round (kDenseRoundSteps).
inline BlockLaunch plan_block_launch(const impl::DenseBlockLayout& l, int slices, int round, const KernelConfig& config,
                                     const BlockWaves& waves) {
  const int64_t grid_clusters = int64_t(l.groups) * slices;
  const auto rounds_at = [&](int cluster) {  // rounds a CTA stages at this cluster size
    return ((l.col_blocks + cluster - 1) / cluster + round - 1) / round;
  };
  const auto one_stage_waves = [&](int cluster) -> int64_t {  // waves of one-stage clusters (none fit: many)
    const int resident = waves.one_stage[cluster_index(cluster)];
    return resident > 0 ? (grid_clusters + resident - 1) / resident : grid_clusters + 1;
  };
  // The smallest cluster that gives the grid 64 CTAs and each CTA at most two rounds of staged blocks
  // (each round is a memory round trip): enough CTAs to spread the layer, no more rounds than two stages
  // hide. It came closest to the best size of every DLMC layer shape (perf_tests/results/MODELS.md).
  int cluster = config.dense_cluster;
  if (cluster == 0) {
    cluster = 1;
    while (cluster < kBlockMaxCluster && 2 * cluster <= l.col_blocks) {
      if (grid_clusters * cluster >= 64 && rounds_at(cluster) <= 2) break;
      cluster *= 2;
    }
    // A grid of a few more clusters than the device holds at once (FP64 at 2048 x 512 in clusters of 4) runs
    // its last ones in a second wave, after the first's whole round chain. Where half the cluster size holds
    // the grid in one wave, its CTAs' longer chain (a round trip a round, and one to start) may be the
    // shorter wait: taken where it is by that count.
    if (cluster > 1 && one_stage_waves(cluster) > 1 && one_stage_waves(cluster / 2) == 1 &&
        rounds_at(cluster / 2) + 1 < one_stage_waves(cluster) * (rounds_at(cluster) + 1))
      cluster /= 2;
  }
  // Rounds of twice the length (in one stage) only where KernelConfig asks for them: against two stages
  // of short rounds they were as often slower as faster.
  const int round_steps = config.dense_round_steps != 0 ? config.dense_round_steps : round;
  int stages = config.dense_stages;
  if (stages == 0 && round_steps > round) stages = 1;
  // Two stages (double buffering, one CTA an SM) where a CTA has more than one round and the grid fits
  // in one wave of two-stage clusters: the second stage hides a round trip, but its shared memory halves
  // the CTAs resident, so past one wave the later CTAs wait a whole wave.
  if (stages == 0) {
    const bool one_wave = cluster <= kBlockMaxCluster && grid_clusters <= waves.two_stages[cluster_index(cluster)];
    stages = (l.col_blocks + cluster - 1) / cluster > round && one_wave ? 2 : 1;
  }
  return {cluster, {round_steps, stages}};
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
