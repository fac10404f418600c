#pragma once
// Host side of the dense-block kernel: the kernel of a staging, its shared
// memory, the clusters the device holds at once (BlockWaves, queried), and the
// launch itself (thread block clusters, dynamic shared memory). The planner's
// cluster size and staging are in RshSparse_spmm_block_plan.hpp.
#include <cstdint>
#include <stdexcept>

#include "cuda/RshSparse_cuda_device_cache.hpp"
#include "cuda/RshSparse_spmm_block_kernel.cuh"
#include "cuda/RshSparse_spmm_block_plan.hpp"
#include "cuda/RshSparse_spmm_cuda.hpp"

namespace rsh {
namespace cuda {
namespace detail {

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
/// use their 86 / 155 KB (FP64: 100 / 167 KB) of dynamic shared memory; once a device (the attributes stay
/// set).
template <class T, Tf32Split S>
void allow_block_kernel_smem() {
  once_per_device([] {
    const auto allow = [](auto kernel, size_t bytes) {
      RSH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
      RSH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    };
    constexpr int k = BlockMma<T>::kRoundSteps;
    for (const BlockStaging s : {BlockStaging{k, 1}, BlockStaging{k, 2}, BlockStaging{2 * k, 1}}) {
      allow(block_kernel_for<T, T, S>(s), block_smem_bytes<T>(s));
      if constexpr (std::is_same<Accum<T>, float>::value)
        allow(block_kernel_for<T, float, S>(s), block_smem_bytes<T>(s));
    }
    return true;
  });
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

}  // namespace detail
}  // namespace cuda
}  // namespace rsh
