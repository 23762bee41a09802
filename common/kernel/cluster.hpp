// common/kernel/cluster.hpp: launching a persistent grid of CTA pairs (clusters of two), host side (step 8 on).
//
// A kernel launched in clusters needs cudaLaunchKernelEx with the cluster dimension as a launch attribute, and
// its persistent grid is sized by how many clusters fit at once (cudaOccupancyMaxActiveClusters), not by CTAs
// per SM: a cluster's CTAs must be resident together, on SMs of one GPC.
#pragma once

#include <cuda_runtime.h>

#include "common/kernel/check.cuh"

namespace hg {

/// Launch attributes for clusters of two CTAs along x.
struct PairLaunch {
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t config{};

  PairLaunch(dim3 grid, dim3 block, size_t smem, cudaStream_t stream) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = attr;
    config.numAttrs = 1;
  }
};

/// How many pairs of `kernel` (block threads, smem bytes of dynamic shared memory) can be resident at once.
template <typename Kernel>
int max_resident_pairs(Kernel kernel, int threads, size_t smem) {
  PairLaunch probe(dim3(2), dim3(threads), smem, nullptr);
  int clusters = 0;
  HG_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &probe.config));
  if (clusters < 1) throw CudaError("no cluster of two CTAs of this kernel fits on this GPU");
  return clusters;
}

/// Launches `kernel` on `pairs` clusters of two CTAs.
template <typename Kernel, typename... Args>
void launch_pairs(Kernel kernel, int pairs, int threads, size_t smem, cudaStream_t stream, Args... args) {
  PairLaunch launch(dim3(2 * pairs), dim3(threads), smem, stream);
  HG_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, args...));
}

}  // namespace hg
