// common/kernel/stream_k_host.hpp: the host side of step 10's stream-K kernels: their workspace and flags, the
// launch counter (epoch) that makes clearing the flags unnecessary, and the counter the pairs take their arrival
// tickets from. The split's knobs are hg::StreamKKnobs
// (common/kernel/stream_k.hpp), set on the command line.
//
// A part of a split tile is published by storing the launch's epoch into its flag (release); the owner waits
// until the flag holds this launch's epoch (acquire). Each launch gets the next epoch, so a flag left by an earlier
// launch never matches and no launch has to clear the flags first: the flags are zeroed on the launch's stream before
// the first launch, and again only when the 32-bit counter wraps. Launches that share one StreamKBuffers must run in
// stream order (one stream): two at once would publish into the same slots. A launch cannot be captured into a CUDA
// graph (next_epoch refuses): a replay would repeat its epoch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace hg {

class StreamKBuffers {
 public:
  /// workspace_bytes of partial sums and flag_count 32-bit flags, allocated and zeroed on the current device. With
  /// poison_each_launch (the --break that skips the flag wait), every launch first fills the workspace with NaN, so
  /// a part read before it was written shows in the result.
  StreamKBuffers(size_t workspace_bytes, size_t flag_count, bool poison_each_launch);
  ~StreamKBuffers();
  StreamKBuffers(const StreamKBuffers&) = delete;
  StreamKBuffers& operator=(const StreamKBuffers&) = delete;

  void* workspace() const { return workspace_; }
  uint32_t* flags() const { return flags_; }
  /// The arrival counter: each pair of a launch takes the next ticket (its worker index) with atomicInc, which
  /// wraps back to 0 after the last pair, so the counter is ready for the next launch without a clear.
  uint32_t* arrivals() const { return flags_ + flag_count_; }
  /// The epoch of the next launch on `stream` (never 0, the value of a cleared flag). Enqueues the flags' clearing
  /// before the first launch and when the counter wraps, and the workspace's poisoning when asked for. Throws
  /// std::runtime_error while `stream` is being captured into a graph.
  uint32_t next_epoch(cudaStream_t stream);

 private:
  void* workspace_ = nullptr;
  uint32_t* flags_ = nullptr;
  size_t workspace_bytes_ = 0, flag_count_ = 0;
  bool poison_ = false;
  uint32_t epoch_ = 0;
};


}  // namespace hg
