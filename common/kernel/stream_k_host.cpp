// common/kernel/stream_k_host.cpp: see stream_k_host.hpp.
#include "common/kernel/stream_k_host.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

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

namespace {

int from_env(const char* name, int default_value, int lo) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return default_value;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < lo || v > 1000000)
    throw std::invalid_argument(std::string(name) + " must be an integer from " + std::to_string(lo) +
                                " to 1000000, got '" + text + "' (unset it for the kernel's default)");
  return int(v);
}

}  // namespace

int stream_k_min_share(int default_value) { return from_env("HG_SK_MIN_SHARE", default_value, 1); }
int stream_k_rounds(int default_value) { return from_env("HG_SK_ROUNDS", default_value, 0); }
int stream_k_min_saving(int default_value) { return from_env("HG_SK_MIN_SAVING", default_value, 0); }

}  // namespace hg
