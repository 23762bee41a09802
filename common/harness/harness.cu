// common/harness/harness.cu: see harness.cuh.
#include "common/harness/harness.cuh"

#include <sys/sysinfo.h>

#include <cuda/ptx>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "common/harness/order.hpp"
#include "common/harness/reference.cuh"
#include "common/kernel/watchdog.cuh"

namespace hg {
namespace {

double gib(double bytes) { return bytes / double(1ull << 30); }

/// How long the host waits for every hog block to be resident; longer than SmHog::kHoldNs, so that a block that
/// arrived early and gave up is what stops the wait when the blocks cannot all be resident at once.
constexpr auto kHogArriveWait = std::chrono::seconds(5);
static_assert(SmHog::kHoldNs < kWatchdogNs, "a step waiting for the hog to let go must not look like a deadlock");

}  // namespace

/// Written by the hog's blocks and the host through host-mapped memory. Volatile accesses are relaxed at system
/// scope (PTX memory model), so neither side caches a stale value. Every word has one writer or only ever becomes
/// 1: no atomics on host memory.
struct HogFlags {
  uint32_t arrived[kMaxHogSms];  // block b sets arrived[b] on entry
  uint32_t release;              // the host sets it: every block ends
  uint32_t timed_out;            // a block that gave up its SM at SmHog::kHoldNs sets it
};

namespace {

/// One thread per block; the launch's dynamic shared memory (never touched) is what keeps other CTAs off the SM.
__global__ void hog_kernel(HogFlags* flags, uint64_t hold_ns) {
  volatile HogFlags* f = flags;
  f->arrived[blockIdx.x] = 1;
  __threadfence_system();  // the arrival leaves for host memory now
  const uint64_t start = cuda::ptx::get_sreg_globaltimer();  // ns, common to the whole GPU
  while (f->release == 0) {
    if (cuda::ptx::get_sreg_globaltimer() - start > hold_ns) {
      f->timed_out = 1;
      __threadfence_system();  // the host sees it before this SM is free to run a CTA of the step
      return;
    }
    __nanosleep(1000);  // each read crosses the bus to host memory: about once a microsecond is enough
  }
}

}  // namespace

SmHog::SmHog(int blocks, const Device& dev) : blocks_(blocks) {
  try {
    HG_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    HG_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&flags_), sizeof(HogFlags), cudaHostAllocMapped));
    std::memset(flags_, 0, sizeof(HogFlags));  // the launch below orders it before the kernel's reads
    HogFlags* dev_flags = nullptr;
    HG_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_flags), flags_, 0));
    int smem = 0;
    HG_CUDA_CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev.ordinal));
    HG_CUDA_CHECK(cudaFuncSetAttribute(hog_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    hog_kernel<<<blocks, 1, smem, stream_>>>(dev_flags, kHoldNs);
    HG_CUDA_CHECK(cudaGetLastError());
    running_ = true;
    wait_until_resident(dev.prop.multiProcessorCount);
  } catch (...) {
    close();  // the destructor does not run for a constructor that throws
    throw;
  }
}

void SmHog::wait_until_resident(int sm_count) {
  const volatile HogFlags* f = flags_;
  const auto deadline = std::chrono::steady_clock::now() + kHogArriveWait;
  for (;;) {
    int arrived = 0;
    for (int b = 0; b < blocks_; ++b) arrived += f->arrived[b] != 0;
    const bool gave_up = f->timed_out != 0;
    if (arrived == blocks_ && !gave_up) return;
    if (gave_up || std::chrono::steady_clock::now() > deadline) {
      // A hog kernel that failed reports its own error. (Queried only here: the "not ready" of a running stream
      // could linger as the runtime's last error, which check_kernel reads after the step's launch.)
      const cudaError_t state = cudaStreamQuery(stream_);
      if (state != cudaSuccess && state != cudaErrorNotReady) HG_CUDA_CHECK(state);
      throw std::runtime_error(
          "--hog-sms " + std::to_string(blocks_) + ": the hog's blocks were never all resident at once (" +
          std::to_string(arrived) + " of " + std::to_string(blocks_) + " arrived" +
          (gave_up ? ", and one gave up its SM at its time bound" : "") + "); this GPU has " +
          std::to_string(sm_count) + " SMs: another process may be using some, retry on an idle GPU");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

bool SmHog::holding() const { return static_cast<const volatile HogFlags*>(flags_)->timed_out == 0; }

void SmHog::release() {
  if (!running_) return;
  static_cast<volatile HogFlags*>(flags_)->release = 1;
  running_ = false;
  HG_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

SmHog::~SmHog() { close(); }

void SmHog::close() noexcept {
  if (running_) {  // unchecked: this runs while unwinding from another error, which is the one to report
    static_cast<volatile HogFlags*>(flags_)->release = 1;
    cudaStreamSynchronize(stream_);
    running_ = false;
  }
  if (flags_ != nullptr) cudaFreeHost(flags_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
  flags_ = nullptr;
  stream_ = nullptr;
}

std::string find_device(ArchChoice wanted, Device& dev) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess)
    return std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(err) +
           "; is an NVIDIA driver installed and a GPU visible?)";
  if (count == 0) return "no CUDA device found";
  HG_CUDA_CHECK(cudaGetDeviceProperties(&dev.prop, dev.ordinal));
  const int cc = dev.prop.major * 10 + dev.prop.minor;
  // sm_90a and sm_100a code runs only on exactly compute capability 9.0 and 10.0 ('a' = arch-specific).
  if (cc == 90) dev.arch = ArchChoice::kSm90;
  else if (cc == 100) dev.arch = ArchChoice::kSm100;
  else
    return "GPU '" + std::string(dev.prop.name) + "' has compute capability " + std::to_string(dev.prop.major) +
           "." + std::to_string(dev.prop.minor) +
           "; the kernels need 9.0 (Hopper, sm_90a) or 10.0 (Blackwell datacenter, sm_100a)";
  if (wanted != ArchChoice::kAuto && wanted != dev.arch)
    return std::string("--arch ") + to_string(wanted) + " requested, but GPU '" + dev.prop.name + "' runs " +
           to_string(dev.arch) + " code only";
  HG_CUDA_CHECK(cudaSetDevice(dev.ordinal));
  return "";
}

void check_kernel(const std::string& what, cudaStream_t stream) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err == cudaSuccess) return;
  if (const std::string deadlock = fired_watchdog_report(); !deadlock.empty())
    throw DeadlockError(deadlock + " (in " + what + ")");
  throw CudaError(what + " failed: " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ") - " +
                  cuda_error_hint(err));
}

/// Refuses (exit 2) a problem whose buffers cannot fit in free GPU memory or in host memory for checking.
std::string check_memory(const Shape& s) {
  const double dev_bytes = 2.0 * double(s.m * s.k + s.n * s.k + s.m * s.n) + 8.0 * double(s.m * s.n);
  size_t free_b = 0, total_b = 0;
  HG_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  char msg[256];
  if (dev_bytes > 0.95 * double(free_b)) {
    std::snprintf(msg, sizeof msg, "M=%lld N=%lld K=%lld needs %.1f GiB of GPU memory; only %.1f GiB are free",
                  (long long)s.m, (long long)s.n, (long long)s.k, gib(dev_bytes), gib(double(free_b)));
    return msg;
  }
  struct sysinfo info {};
  const double host_bytes = 10.0 * double(s.m * s.n);  // D as fp16, ref and mag as fp32, on the host
  if (sysinfo(&info) == 0 && host_bytes > 0.8 * double(info.totalram) * info.mem_unit) {
    std::snprintf(msg, sizeof msg, "M=%lld N=%lld K=%lld needs %.1f GiB of host memory to verify; this machine has %.1f GiB",
                  (long long)s.m, (long long)s.n, (long long)s.k, gib(host_bytes),
                  gib(double(info.totalram) * info.mem_unit));
    return msg;
  }
  return "";
}

/// Interleaved rounds of event-timed launches (i counts warm-up launches first, then timed ones; settle
/// launches reuse the warm-up indices, whose inputs they share).
std::vector<TimingStats> time_interleaved(const std::vector<std::function<void(int)>>& launches, int warmup,
                                          int iters, int rounds, cudaStream_t stream,
                                          std::vector<std::vector<double>>* samples, double settle_ms) {
  const size_t kernels = launches.size();
  const int per_round = iters / rounds;  // the caller's iters is a multiple of rounds (checked below)
  if (rounds < 1 || per_round * rounds != iters)
    throw UsageError("timing: iters (" + std::to_string(iters) + ") must be a positive multiple of rounds (" +
                     std::to_string(rounds) + ")");
  // One start/stop event pair per timed launch: [kernel][sample]. Created before the warm-up, so that the
  // first round starts right after it.
  std::vector<std::vector<cudaEvent_t>> start(kernels, std::vector<cudaEvent_t>(iters)), stop = start;
  for (size_t k = 0; k < kernels; ++k)
    for (int i = 0; i < iters; ++i) {
      HG_CUDA_CHECK(cudaEventCreate(&start[k][i]));
      HG_CUDA_CHECK(cudaEventCreate(&stop[k][i]));
    }
  // Warm-up, timed as a whole: its mean launch time sizes each kernel's settle launches below. It runs in the
  // order of the balanced cycle's last round, so the first round's first turn follows the kernel it follows
  // whenever the cycle repeats (order.hpp).
  const int n = int(kernels);
  std::vector<int> settle(kernels, 0);
  cudaEvent_t w0, w1;
  HG_CUDA_CHECK(cudaEventCreate(&w0));
  HG_CUDA_CHECK(cudaEventCreate(&w1));
  for (const int k : round_order(n, order_cycle(n) - 1)) {
    HG_CUDA_CHECK(cudaEventRecord(w0, stream));
    for (int i = 0; i < warmup; ++i) launches[k](i);
    HG_CUDA_CHECK(cudaEventRecord(w1, stream));
    HG_CUDA_CHECK(cudaEventSynchronize(w1));
    float t = 0;
    HG_CUDA_CHECK(cudaEventElapsedTime(&t, w0, w1));
    if (settle_ms > 0 && warmup > 0) settle[k] = int(std::ceil(settle_ms / std::max(double(t) / warmup, 1e-3)));
  }
  HG_CUDA_CHECK(cudaEventDestroy(w0));
  HG_CUDA_CHECK(cudaEventDestroy(w1));
  // Each round in its own order: over a cycle of rounds every kernel's turn follows every other kernel's
  // equally often, so no kernel always inherits the clock and power state of the same neighbour.
  for (int r = 0; r < rounds; ++r)
    for (const int k : round_order(n, r)) {
      // Untimed launches first, so that the power limiter's state is this kernel's own, not the one the
      // previous kernel left (a long launch right after a low-power kernel runs at higher clocks).
      for (int i = 0; i < settle[k]; ++i) launches[k](i % std::max(warmup, 1));
      for (int i = r * per_round; i < (r + 1) * per_round; ++i) {
        HG_CUDA_CHECK(cudaEventRecord(start[k][i], stream));
        launches[k](warmup + i);
        HG_CUDA_CHECK(cudaEventRecord(stop[k][i], stream));
      }
    }
  HG_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<TimingStats> out;
  for (size_t k = 0; k < kernels; ++k) {
    std::vector<double> ms(iters);
    for (int i = 0; i < iters; ++i) {
      float t = 0;
      HG_CUDA_CHECK(cudaEventElapsedTime(&t, start[k][i], stop[k][i]));
      ms[i] = t;
      HG_CUDA_CHECK(cudaEventDestroy(start[k][i]));
      HG_CUDA_CHECK(cudaEventDestroy(stop[k][i]));
    }
    out.push_back(summarize(ms));
    if (samples) samples->push_back(ms);
  }
  return out;
}

/// cuBLAS computing the same D = A * B^T: cuBLAS is column-major, so it computes D^T (N x M, ld N) =
/// B (N x K row-major = K x N column-major, transposed) * A^T (K x M column-major): transa = T on B with
/// lda = K, transb = N on A with ldb = K, ldc = N.
void cublas_gemm(cublasHandle_t handle, const GemmArgs& g) {
  const float alpha = 1.0f, beta = 0.0f;
  HG_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, g.n, g.m, g.k, &alpha, g.B, CUDA_R_16F, g.k,
                               g.A, CUDA_R_16F, g.k, &beta, g.D, CUDA_R_16F, g.n, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT));
}


HostReference compute_reference(const GemmArgs& g, cudaStream_t stream) {
  DeviceBuffer<float> ref(int64_t(g.m) * g.n), mag(int64_t(g.m) * g.n);
  reference_gemm(g.A, g.B, ref.get(), mag.get(), g.m, g.n, g.k, stream);
  check_kernel("the reference GEMM", stream);
  return {ref.to_host(), mag.to_host()};
}

VerifyReport run_and_check(const std::function<void(const GemmArgs&)>& compute, const GemmArgs& g,
                           const HostReference& reference, InitMode mode, cudaStream_t stream) {
  poison_matrix(g.D, int64_t(g.m) * g.n, stream);
  compute(g);
  std::vector<uint16_t> d(size_t(g.m) * g.n);
  HG_CUDA_CHECK(cudaMemcpy(d.data(), g.D, d.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  return verify_result(d.data(), reference.ref.data(), reference.mag.data(), g.m, g.n, g.k, mode);
}

VerifyReport run_and_verify(const std::function<void(const GemmArgs&)>& compute, const GemmArgs& g, InitMode mode,
                            cudaStream_t stream) {
  return run_and_check(compute, g, compute_reference(g, stream), mode, stream);
}

namespace {
// Each set starts on a 256-byte boundary, as a cudaMalloc does: at a ragged shape a set's M x N elements need not
// fill whole 16 bytes, and a TMA map needs a 16-byte-aligned base.
int64_t padded(int64_t count) { return (count + 127) / 128 * 128; }
}  // namespace

int64_t rotating_input_sets(const Shape& s, size_t l2_bytes, size_t free_bytes) {
  const double set_bytes = 2.0 * double(padded(s.m * s.k) + padded(s.n * s.k) + padded(s.m * s.n));
  const int64_t sets = std::max<int64_t>(2, int64_t(2.0 * double(l2_bytes) / set_bytes) + 1);
  return std::min<int64_t>({sets, 4096, std::max<int64_t>(1, int64_t(0.8 * double(free_bytes) / set_bytes))});
}

RotatingInputs::RotatingInputs(const Shape& s, uint64_t seed, size_t l2_bytes, cudaStream_t stream) {
  const int64_t a_n = padded(s.m * s.k), b_n = padded(s.n * s.k), d_n = padded(s.m * s.n);
  size_t free_b = 0, total_b = 0;
  HG_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  sets_ = rotating_input_sets(s, l2_bytes, free_b);
  pools_.reserve(3);
  pools_.emplace_back(a_n * sets_);
  pools_.emplace_back(b_n * sets_);
  pools_.emplace_back(d_n * sets_);
  // Timing always uses random-normal data (never zeros or small integers, which can run faster).
  fill_matrix(pools_[0].get(), pools_[0].count(), seed, InitMode::kRandom, 0, stream);
  fill_matrix(pools_[1].get(), pools_[1].count(), seed, InitMode::kRandom, 1, stream);
  check_kernel("filling the benchmark inputs", stream);
  for (int64_t i = 0; i < sets_; ++i)
    args_.push_back(GemmArgs{pools_[0].get() + i * a_n, pools_[1].get() + i * b_n, pools_[2].get() + i * d_n,
                             int(s.m), int(s.n), int(s.k)});
}

}  // namespace hg
