// common/kernel/stream_k_host.cpp: see stream_k_host.hpp.
#include "common/kernel/stream_k_host.hpp"

#include <stdexcept>

#include "common/kernel/check.cuh"

namespace hg {

StreamKBuffers::StreamKBuffers(size_t workspace_bytes, size_t flag_count, bool poison_each_launch)
    : workspace_bytes_(workspace_bytes), flag_count_(flag_count), poison_(poison_each_launch) {
  HG_CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes));
  // The flags, then the arrival counter (arrivals()).
  HG_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&flags_), (flag_count + 1) * sizeof(uint32_t)));
  // Not cleared here: a plain cudaMemset runs on the legacy stream, which the launch's non-blocking stream does not
  // wait for. The first next_epoch clears the flags on the launch's own stream.
}

StreamKBuffers::~StreamKBuffers() {
  cudaFree(workspace_);  // no check: a destructor must not throw, and a failed free leaves nothing to do
  cudaFree(flags_);
}

uint32_t StreamKBuffers::next_epoch(cudaStream_t stream) {
  // A graph captured from this launch would replay its epoch, and from the second replay on every flag would
  // already hold it: owners would add parts not yet written, silently. So capture is refused.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  HG_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone)
    throw std::runtime_error("a stream-K launch that splits tiles cannot be captured into a CUDA graph: its parts are "
                             "published with a per-launch epoch counted on the host, which every replay would "
                             "repeat; launch it directly");
  if (epoch_ == 0 || ++epoch_ == 0) {  // first launch, or wrapped after 2^32 - 1: clear the flags, count from 1
    HG_CUDA_CHECK(cudaMemsetAsync(flags_, 0, (flag_count_ + 1) * sizeof(uint32_t), stream));  // and the arrivals
    epoch_ = 1;
  }
  if (poison_) HG_CUDA_CHECK(cudaMemsetAsync(workspace_, 0xff, workspace_bytes_, stream));  // 0xffffffff: NaN
  return epoch_;
}

}  // namespace hg
