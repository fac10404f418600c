#pragma once
// Host side of the dense-block kernel: how a launch stages its column blocks
// (round length, stages), the cluster size and staging the planner picks for
// a shape, and the launch itself (thread block clusters, dynamic shared memory).
#include <cstdint>
#include <stdexcept>

#include "cuda/RshSparse_spmm_block_kernel.cuh"
#include "cuda/RshSparse_spmm_cuda.hpp"
#include "impl/RshSparse_dense_blocks.hpp"

namespace rsh {
namespace cuda {
namespace detail {

/// How a dense-block launch stages its column blocks: rounds of `round_steps`
/// blocks, `stages` rounds in shared memory at once.
struct BlockStaging {
  int round_steps, stages;
};

/// The dense-block kernel of a staging: BlockMma's round in one stage or two, or one round of twice its length.
template <class T, class OutT, Tf32Split S>
auto block_kernel_for(BlockStaging s) {
  constexpr int k = BlockMma<T>::kRoundSteps;
  if (s.stages == 2) return block_kernel<T, OutT, S, k, 2>;
  return s.round_steps == 2 * k ? block_kernel<T, OutT, S, 2 * k, 1> : block_kernel<T, OutT, S, k, 1>;
}

template <class T>
size_t block_smem_bytes(BlockStaging s) {
  return BlockSmem<T, BlockMma<T>::kRoundSteps>::bytes(s.round_steps * s.stages);
}

/// Lets the dense-block kernels of T and S (T output, and FP32 where the accumulation is FP32; each staging)
/// use their 86 / 155 KB (FP64: 100 / 167 KB) of dynamic shared memory; once per plan, on the plan's device.
template <class T, Tf32Split S>
void allow_block_kernel_smem() {
  const auto allow = [](auto kernel, size_t bytes) {
    RSH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    RSH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  };
  constexpr int k = BlockMma<T>::kRoundSteps;
  for (const BlockStaging s : {BlockStaging{k, 1}, BlockStaging{k, 2}, BlockStaging{2 * k, 1}}) {
    allow(block_kernel_for<T, T, S>(s), block_smem_bytes<T>(s));
    if constexpr (std::is_same<Accum<T>, float>::value) allow(block_kernel_for<T, float, S>(s), block_smem_bytes<T>(s));
  }
}

/// Launch configuration of the dense-block kernel: `clusters` clusters of `cluster` CTAs along x, `slices`
/// along y. `attr` receives the cluster size the configuration points to.
inline cudaLaunchConfig_t block_launch_config(int64_t clusters, int cluster, int slices, size_t smem_bytes,
                                              cudaLaunchAttribute& attr, cudaStream_t stream) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(clusters * cluster), static_cast<unsigned>(slices));
  cfg.blockDim = dim3(kBlockThreads);
  cfg.dynamicSmemBytes = smem_bytes;
  cfg.stream = stream;
  attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
  cfg.attrs = &attr, cfg.numAttrs = 1;
  return cfg;
}

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

template <class T, Tf32Split S>
BlockWaves query_block_waves() {
  BlockWaves waves{};
  constexpr int k = BlockMma<T>::kRoundSteps;
  for (const int stages : {kBlockMaxStages, 1}) {
    const BlockStaging staging{k, stages};
    int* resident = stages == 1 ? waves.one_stage : waves.two_stages;
    for (int i = 0; i < 4; ++i) {
      cudaLaunchAttribute attr;
      const cudaLaunchConfig_t cfg = block_launch_config(1, 1 << i, 1, block_smem_bytes<T>(staging), attr, nullptr);
      RSH_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident[i], block_kernel_for<T, T, S>(staging), &cfg));
    }
  }
  return waves;
}

/// Launches the dense-block kernel: a cluster of `cluster` CTAs per 64-row group and feature slice.
template <Tf32Split S, class T, class OutT>
void launch_block_kernel(const BlockParams<T, OutT>& p, int groups, int cluster, BlockStaging staging,
                         cudaStream_t stream) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg =
      block_launch_config(groups, cluster, p.slices, block_smem_bytes<T>(staging), attr, stream);
  RSH_CUDA_CHECK(cudaLaunchKernelEx(&cfg, block_kernel_for<T, OutT, S>(staging), p));
}

/// Cluster size and staging of a dense-block launch (KernelConfig's where it names them).
struct BlockLaunch {
  int cluster;
  BlockStaging staging;
};

template <class T>
BlockLaunch block_launch(const impl::DenseBlockLayout& l, int slices, const KernelConfig& config,
                         const BlockWaves& waves) {
  constexpr int kRound = BlockMma<T>::kRoundSteps;
  const int64_t grid_clusters = int64_t(l.groups) * slices;
  const auto rounds_at = [&](int cluster) {  // rounds a CTA stages at this cluster size
    return ((l.col_blocks + cluster - 1) / cluster + kRound - 1) / kRound;
  };
  const auto one_stage_waves = [&](int cluster) -> int64_t {  // waves of one-stage clusters (none fit: many)
    const int resident = waves.one_stage[cluster_index(cluster)];
    return resident > 0 ? (grid_clusters + resident - 1) / resident : grid_clusters + 1;
  };
  // The smallest cluster that gives the grid 64 CTAs and each CTA at most two rounds of staged blocks
  // (each round is a memory round trip). On the H100 over the DLMC layer shapes at every cluster size
  // (perf_tests/results/h100_2026-11-23d.md) this came within 2% (FP16) / 1% (TF32) of the best size,
  // where "until ~100 CTAs" was 5% / 4% off.
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
  // of short rounds they were as often slower as faster (h100_2026-11-23g.md, section 2).
  const int round_steps = config.dense_round_steps != 0 ? config.dense_round_steps : kRound;
  int stages = config.dense_stages;
  if (stages == 0 && round_steps > kRound) stages = 1;
  // Two stages (double buffering, one CTA an SM) where a CTA has more than one round and the grid fits
  // in one wave of two-stage clusters. On the H100 (perf_tests/results/h100_2026-11-23g.md), against the
  // one-stage kernel in the same call: 2048 x 512 x0.90 FP16 / x0.87 TF32, 512 x 2048 x0.95 FP16; past one
  // wave two stages lose (TF32 512 x 2048 in clusters of 8: x1.23).
  if (stages == 0) {
    const bool one_wave = cluster <= kBlockMaxCluster && grid_clusters <= waves.two_stages[cluster_index(cluster)];
    stages = (l.col_blocks + cluster - 1) / cluster > kRound && one_wave ? 2 : 1;
  }
  return {cluster, {round_steps, stages}};
}

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
