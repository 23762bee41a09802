// common/harness/harness.cuh: the pieces of a GEMM run shared by the verify binaries (common/harness/runner.cu) and the
// benchmark (tools/hgemm_bench.cu): device selection, buffers, verification against the reference GEMM,
// timing with CUDA events over rotated inputs, the cuBLAS baseline, and a kernel that holds SMs (--hog-sms).
#pragma once

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/kernel/check.cuh"
#include "common/harness/cli.hpp"
#include "common/kernel/gemm.hpp"
#include "common/harness/stats.hpp"
#include "common/harness/verify.hpp"

namespace hg {

[[noreturn]] inline void throw_cublas_error(cublasStatus_t st, const char* call, const char* file, int line) {
  throw CudaError(std::string(call) + " failed: " + cublasGetStatusString(st) + " (status " +
                  std::to_string(int(st)) + ") at " + file + ":" + std::to_string(line) +
                  " - check the cuBLAS installation and the problem size");
}

/// HG_CUDA_CHECK (common/kernel/check.cuh) for cuBLAS calls.
#define HG_CUBLAS_CHECK(call)                                                           \
  do {                                                                                  \
    const cublasStatus_t hg_st_ = (call);                                               \
    if (hg_st_ != CUBLAS_STATUS_SUCCESS) ::hg::throw_cublas_error(hg_st_, #call, __FILE__, __LINE__); \
  } while (0)

/// Owns one cudaMalloc allocation of `count` elements of T.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(int64_t count) : count_(count) {
    HG_CUDA_CHECK(cudaMalloc(&ptr_, size_t(count) * sizeof(T)));
  }
  ~DeviceBuffer() { cudaFree(ptr_); }  // no check: destructors run while unwinding from other errors
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  T* get() const { return ptr_; }
  int64_t count() const { return count_; }
  std::vector<T> to_host() const {
    std::vector<T> host(static_cast<size_t>(count_));
    HG_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, size_t(count_) * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* ptr_ = nullptr;
  int64_t count_ = 0;
};

/// Owns a stream, so that early returns and exceptions release it.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { HG_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s); }
};

/// Result of looking for a GPU this tutorial has kernels for.
struct Device {
  int ordinal = 0;
  cudaDeviceProp prop{};
  ArchChoice arch = ArchChoice::kAuto;  // kSm90 or kSm100 once found
};

/// --hog-sms: another kernel that holds `blocks` SMs while a step runs, so that the step gets only the SMs left.
/// Each of its blocks takes all the shared memory a block may have (so no CTA fits beside it on its SM) and spins,
/// on its own non-blocking stream, until release() or until kHoldNs have passed. The constructor returns once all
/// blocks are resident at once, and throws when they never are.
struct HogFlags;  // what the hog and the host share, in host-mapped memory (harness.cu)
class SmHog {
 public:
  /// How long a block holds its SM at most: far longer than any step's verified launch (milliseconds), and shorter
  /// than the watchdog's bound (HG_WATCHDOG_SECONDS, 5 s), so that a step that can finish only once the hog lets go
  /// does finish and is reported as such (hog_held=no) instead of being stopped as a deadlock.
  static constexpr uint64_t kHoldNs = 2'000'000'000ull;
  SmHog(int blocks, const Device& dev);
  ~SmHog();  // releases and waits for the hog's kernel, without throwing
  SmHog(const SmHog&) = delete;
  SmHog& operator=(const SmHog&) = delete;
  /// Whether every block still holds its SM (none has given up at its time bound).
  bool holding() const;
  /// Lets the blocks go and waits until the hog's kernel has ended.
  void release();

 private:
  void wait_until_resident(int sm_count);
  void close() noexcept;
  int blocks_ = 0;
  cudaStream_t stream_ = nullptr;
  HogFlags* flags_ = nullptr;  // host address; the kernel gets the mapped device address
  bool running_ = false;       // launched and not yet waited for
};

/// Returns "" and fills `dev`, or the one-line reason why no supported GPU is usable (exit 77).
std::string find_device(ArchChoice wanted, Device& dev);

/// Throws CudaError naming the kernel when its launch or its execution failed, or DeadlockError with the
/// watchdog's report when a wait of the kernel never completed (common/kernel/watchdog.cuh).
void check_kernel(const std::string& what, cudaStream_t stream);

/// "" when the problem's buffers fit in free GPU memory and host memory for checking, else the reason.
std::string check_memory(const Shape& s);

/// Times kernels with CUDA events around every launch (`launch(i)`: i counts warm-up launches first): after
/// `warmup` launches of each, `rounds` rounds in which every kernel in turn runs iters/rounds timed launches.
/// Interleaving spreads clock and power drift over all of them instead of charging it to whichever runs last.
/// Each round takes the kernels in its own order (round_order, order.hpp): over a cycle of rounds every
/// kernel's turn follows every other kernel's equally often, so none always starts from the state one
/// particular neighbour left.
/// With settle_ms > 0, each kernel's turn in a round starts with untimed launches of it lasting about that
/// long (sized from its warm-up), so that a power-capped GPU times it at its own steady clock.
/// Returns one summary per kernel, in order; `samples`, when given, receives every timed launch in ms,
/// [kernel][launch], in launch order.
/// The timing method a settle time stands for, as the results tables name it: "burst" (no settle launches:
/// what most published GEMM numbers report) or "sustained" (each timed turn after settle launches: the clock a
/// long-running job holds under the power cap).
inline const char* timing_method(double settle_ms) { return settle_ms > 0 ? "sustained" : "burst"; }

std::vector<TimingStats> time_interleaved(const std::vector<std::function<void(int)>>& launches, int warmup,
                                          int iters, int rounds, cudaStream_t stream,
                                          std::vector<std::vector<double>>* samples = nullptr,
                                          double settle_ms = 0);

/// cuBLAS computing the same D = A * B^T.
void cublas_gemm(cublasHandle_t handle, const GemmArgs& g);

struct CublasHandle {
  cublasHandle_t h = nullptr;
  explicit CublasHandle(cudaStream_t s) {
    HG_CUBLAS_CHECK(cublasCreate(&h));
    HG_CUBLAS_CHECK(cublasSetStream(h, s));
  }
  ~CublasHandle() { cublasDestroy(h); }
};

/// The reference GEMM's ref and mag (common/harness/reference.cuh) of one problem, on the host: computed once
/// and checked against every kernel that computes that problem (the benchmarks verify several).
struct HostReference {
  std::vector<float> ref, mag;
};
HostReference compute_reference(const GemmArgs& g, cudaStream_t stream);

/// Poisons D, runs `compute`, and verifies D against `reference`, computed for g's A and B (mode decides exact
/// or tolerance).
VerifyReport run_and_check(const std::function<void(const GemmArgs&)>& compute, const GemmArgs& g,
                           const HostReference& reference, InitMode mode, cudaStream_t stream);

/// run_and_check against a reference computed for this one check.
VerifyReport run_and_verify(const std::function<void(const GemmArgs&)>& compute, const GemmArgs& g, InitMode mode,
                            cudaStream_t stream);

/// How many input sets of `s` (A, B and D, each from a 256-byte boundary) rotate in a timing: enough that their
/// total size is at least twice the L2 (`l2_bytes`; so a launch never finds its operands cached by the previous
/// one), at least 2 when memory allows, at most 4096, and within 80% of `free_bytes`. Host arithmetic only
/// (tools/torch_bench.py asks for it through torch/hgemm_ops.cu).
int64_t rotating_input_sets(const Shape& s, size_t l2_bytes, size_t free_bytes);

/// Random-normal input sets for timing: rotating_input_sets(s, ...) copies of A, B and D.
class RotatingInputs {
 public:
  RotatingInputs(const Shape& s, uint64_t seed, size_t l2_bytes, cudaStream_t stream);
  int64_t sets() const { return sets_; }
  const GemmArgs& operator[](int64_t i) const { return args_[size_t(i % sets_)]; }

 private:
  int64_t sets_ = 1;
  std::vector<DeviceBuffer<__half>> pools_;
  std::vector<GemmArgs> args_;
};

}  // namespace hg
