// common/kernel/stream_k_host.cpp: see stream_k_host.hpp.
#include "common/kernel/stream_k_host.hpp"

#include "common/kernel/check.cuh"

namespace hg {

StreamKBuffers::StreamKBuffers(size_t workspace_bytes, size_t flag_count, bool poison_each_launch)
    : workspace_bytes_(workspace_bytes), flag_count_(flag_count), poison_(poison_each_launch) {
  HG_CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes));
  HG_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&flags_), flag_count * sizeof(uint32_t)));
  HG_CUDA_CHECK(cudaMemset(flags_, 0, flag_count * sizeof(uint32_t)));
}

StreamKBuffers::~StreamKBuffers() {
  cudaFree(workspace_);  // no check: a destructor must not throw, and a failed free leaves nothing to do
  cudaFree(flags_);
}

uint32_t StreamKBuffers::next_epoch(cudaStream_t stream) {
  if (++epoch_ == 0) {  // wrapped after 2^32 - 1 launches: clear the flags once, then count from 1 again
    HG_CUDA_CHECK(cudaMemsetAsync(flags_, 0, flag_count_ * sizeof(uint32_t), stream));
    epoch_ = 1;
  }
  if (poison_) HG_CUDA_CHECK(cudaMemsetAsync(workspace_, 0xff, workspace_bytes_, stream));  // 0xffffffff: NaN
  return epoch_;
}

}  // namespace hg
