// common/runner.cu: the verify binary every step shares (DESIGN section 6).
//
// Order: parse and validate the arguments (exit 2, no CUDA call yet); find a supported GPU (exit 77);
// allocate, fill, poison D, run the step's kernel, run the reference, verify (exit 0 or 1); optionally
// save .npy files and benchmark against cuBLAS. CUDA failures exit 3 with the failed call named.
#include <sys/sysinfo.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/check.cuh"
#include "common/cli.hpp"
#include "common/fp16_host.hpp"
#include "common/npy.hpp"
#include "common/reference.cuh"
#include "common/stats.hpp"
#include "common/step.cuh"
#include "common/verify.hpp"

namespace hg {
namespace {

enum ExitCode { kExitPass = 0, kExitFail = 1, kExitUsage = 2, kExitCuda = 3, kExitNoGpu = 77 };

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

/// Returns "" and fills `dev`, or the one-line reason why no supported GPU is usable (exit 77).
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

/// Throws CudaError naming the kernel when its launch or its execution failed.
void check_kernel(const std::string& what, cudaStream_t stream) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    throw CudaError(what + " failed: " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) + ") - " +
                    cuda_error_hint(err));
}

double gib(double bytes) { return bytes / double(1ull << 30); }

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

/// Times `launch(i)` (i cycles over the rotation sets) with CUDA events around every launch.
TimingStats time_launches(const std::function<void(int)>& launch, int warmup, int iters, cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) launch(i);
  HG_CUDA_CHECK(cudaGetLastError());
  std::vector<cudaEvent_t> start(iters), stop(iters);
  for (int i = 0; i < iters; ++i) {
    HG_CUDA_CHECK(cudaEventCreate(&start[i]));
    HG_CUDA_CHECK(cudaEventCreate(&stop[i]));
  }
  for (int i = 0; i < iters; ++i) {
    HG_CUDA_CHECK(cudaEventRecord(start[i], stream));
    launch(warmup + i);
    HG_CUDA_CHECK(cudaEventRecord(stop[i], stream));
  }
  HG_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> ms(iters);
  for (int i = 0; i < iters; ++i) {
    float t = 0;
    HG_CUDA_CHECK(cudaEventElapsedTime(&t, start[i], stop[i]));
    ms[i] = t;
    HG_CUDA_CHECK(cudaEventDestroy(start[i]));
    HG_CUDA_CHECK(cudaEventDestroy(stop[i]));
  }
  return summarize(ms);
}

/// cuBLAS computing the same D = A * B^T: cuBLAS is column-major, so it computes D^T (N x M, ld N) =
/// B (N x K row-major = K x N column-major, transposed) * A^T (K x M column-major) (DESIGN section 6).
void cublas_gemm(cublasHandle_t handle, const GemmArgs& g) {
  const float alpha = 1.0f, beta = 0.0f;
  HG_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, g.n, g.m, g.k, &alpha, g.B, CUDA_R_16F, g.k,
                               g.A, CUDA_R_16F, g.k, &beta, g.D, CUDA_R_16F, g.n, CUBLAS_COMPUTE_32F,
                               CUBLAS_GEMM_DEFAULT));
}

struct CublasHandle {
  cublasHandle_t h = nullptr;
  explicit CublasHandle(cudaStream_t s) {
    HG_CUBLAS_CHECK(cublasCreate(&h));
    HG_CUBLAS_CHECK(cublasSetStream(h, s));
  }
  ~CublasHandle() { cublasDestroy(h); }
};

/// Fills A and B, poisons D, runs `compute`, and verifies D against the reference GEMM.
VerifyReport run_and_verify(const std::function<void(const GemmArgs&)>& compute, const GemmArgs& g,
                            const Options& opt, cudaStream_t stream) {
  poison_matrix(g.D, int64_t(g.m) * g.n, stream);
  compute(g);
  DeviceBuffer<float> ref(int64_t(g.m) * g.n), mag(int64_t(g.m) * g.n);
  reference_gemm(g.A, g.B, ref.get(), mag.get(), g.m, g.n, g.k, stream);
  check_kernel("the reference GEMM", stream);
  std::vector<uint16_t> d(size_t(g.m) * g.n);
  HG_CUDA_CHECK(cudaMemcpy(d.data(), g.D, d.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  return verify_result(d.data(), ref.to_host().data(), mag.to_host().data(), g.m, g.n, g.k, opt.init);
}

void save_npy(const std::string& dir, const GemmArgs& g) {
  auto save = [&](const char* name, const __half* src, int64_t rows, int64_t cols) {
    std::vector<uint16_t> bits(size_t(rows * cols));
    HG_CUDA_CHECK(cudaMemcpy(bits.data(), src, bits.size() * sizeof(uint16_t), cudaMemcpyDeviceToHost));
    write_npy_f16(dir + "/" + name, bits.data(), rows, cols);
  };
  save("A.npy", g.A, g.m, g.k);
  save("B.npy", g.B, g.n, g.k);
  save("D.npy", g.D, g.m, g.n);
}

/// --bench: the step's kernel and cuBLAS, each on the same rotation of random-normal input sets whose total
/// size is at least twice the L2, so no launch finds its operands already cached by the previous one.
std::string bench(const StepSpec& spec, PrepareFn prepare, const Device& dev, const Options& opt,
                  const GemmArgs& verified, cudaStream_t stream) {
  const Shape& s = opt.shape;
  const int64_t a_n = s.m * s.k, b_n = s.n * s.k, d_n = s.m * s.n;
  const double set_bytes = 2.0 * double(a_n + b_n + d_n);
  size_t free_b = 0, total_b = 0;
  HG_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  int64_t sets = std::max<int64_t>(2, int64_t(2.0 * dev.prop.l2CacheSize / set_bytes) + 1);
  sets = std::min<int64_t>({sets, 4096, std::max<int64_t>(1, int64_t(0.8 * double(free_b) / set_bytes))});

  DeviceBuffer<__half> a_pool(a_n * sets), b_pool(b_n * sets), d_pool(d_n * sets);
  // Timing always uses random-normal data (never zeros or small integers, which can run faster).
  fill_matrix(a_pool.get(), a_pool.count(), opt.seed + 1000, InitMode::kRandom, 0, stream);
  fill_matrix(b_pool.get(), b_pool.count(), opt.seed + 1000, InitMode::kRandom, 1, stream);
  std::vector<GemmArgs> args(static_cast<size_t>(sets));
  std::vector<Launcher> launchers;
  for (int64_t i = 0; i < sets; ++i) {
    args[i] = GemmArgs{a_pool.get() + i * a_n, b_pool.get() + i * b_n, d_pool.get() + i * d_n, int(s.m),
                       int(s.n), int(s.k)};
    launchers.push_back(prepare(args[i]));
  }
  check_kernel("filling the benchmark inputs", stream);

  const TimingStats mine = time_launches([&](int i) { launchers[size_t(i % sets)](stream); }, opt.warmup,
                                         opt.iters, stream);
  check_kernel(std::string("timing the ") + spec.name + " kernel", stream);

  // cuBLAS: first checked on the verified problem with the same verifier, so the baseline is the same GEMM.
  CublasHandle handle(stream);
  const VerifyReport blas_check =
      run_and_verify([&](const GemmArgs& g) { cublas_gemm(handle.h, g); }, verified, opt, stream);
  const TimingStats blas = time_launches([&](int i) { cublas_gemm(handle.h, args[size_t(i % sets)]); },
                                         opt.warmup, opt.iters, stream);
  check_kernel("timing cuBLAS", stream);

  char line[512];
  std::snprintf(line, sizeof line,
                " median_ms=%.4f p10_ms=%.4f p90_ms=%.4f tflops=%.1f cublas_median_ms=%.4f cublas_tflops=%.1f "
                "pct_cublas=%.1f cublas_check=%s iters=%d sets=%lld",
                mine.median_ms, mine.p10_ms, mine.p90_ms, tflops(s.m, s.n, s.k, mine.median_ms), blas.median_ms,
                tflops(s.m, s.n, s.k, blas.median_ms), 100.0 * blas.median_ms / mine.median_ms,
                blas_check.pass ? "PASS" : "FAIL", opt.iters, (long long)sets);
  return line;
}

int run(const StepSpec& spec, const Options& opt) {
  Device dev;
  const std::string no_gpu = find_device(opt.arch, dev);
  if (!no_gpu.empty()) {
    std::printf("%s SKIP: %s\n", spec.name, no_gpu.c_str());
    return kExitNoGpu;
  }
  const std::string too_big = check_memory(opt.shape);
  if (!too_big.empty()) {
    std::fprintf(stderr, "%s: error: %s\n", spec.name, too_big.c_str());
    return kExitUsage;
  }
  const PrepareFn prepare = dev.arch == ArchChoice::kSm90 ? spec.prepare_sm90 : spec.prepare_sm100;
  const Shape& s = opt.shape;

  Stream stream;
  DeviceBuffer<__half> a(s.m * s.k), b(s.n * s.k), d(s.m * s.n);
  fill_matrix(a.get(), a.count(), opt.seed, opt.init, 0, stream.s);
  fill_matrix(b.get(), b.count(), opt.seed, opt.init, 1, stream.s);
  const GemmArgs g{a.get(), b.get(), d.get(), int(s.m), int(s.n), int(s.k)};

  const std::string kernel_name = std::string("the ") + spec.name + " " + to_string(dev.arch) + " kernel";
  const VerifyReport report = run_and_verify(
      [&](const GemmArgs& args) {
        const Launcher launch = prepare(args);
        launch(stream.s);
        check_kernel(kernel_name, stream.s);
      },
      g, opt, stream.s);

  if (!opt.save_dir.empty()) save_npy(opt.save_dir, g);
  std::string timing;
  if (opt.bench && report.pass) timing = bench(spec, prepare, dev, opt, g, stream.s);

  std::printf("%s %s gpu=\"%s\" M=%lld N=%lld K=%lld init=%s seed=%llu %s %s%s\n", spec.name, to_string(dev.arch),
              dev.prop.name, (long long)s.m, (long long)s.n, (long long)s.k, to_string(opt.init),
              (unsigned long long)opt.seed, report.summary().c_str(), report.pass ? "PASS" : "FAIL",
              timing.c_str());
  return report.pass ? kExitPass : kExitFail;
}

}  // namespace

int run_step(const StepSpec& spec, int argc, char** argv) {
  Options opt;
  try {
    opt = parse_cli(std::vector<std::string>(argv, argv + argc), spec.natural_shape);
    if (opt.help) {
      std::printf("%s", usage(spec.name, spec.what_it_adds, spec.natural_shape).c_str());
      return kExitPass;
    }
    const std::string bad_shape = check_shape(opt.shape, spec.rule, spec.name);
    if (!bad_shape.empty()) throw UsageError(bad_shape);
    if (!opt.save_dir.empty()) prepare_save_dir(opt.save_dir);
  } catch (const UsageError& e) {
    const bool hinted = std::string(e.what()).find("--help") != std::string::npos;
    std::fprintf(stderr, "%s: error: %s%s\n", spec.name, e.what(), hinted ? "" : " (run with --help for usage)");
    return kExitUsage;
  }
  try {
    return run(spec, opt);
  } catch (const CudaError& e) {
    std::fprintf(stderr, "%s: CUDA error: %s\n", spec.name, e.what());
    return kExitCuda;
  } catch (const std::exception& e) {  // e.g. --save could not write a file
    std::fprintf(stderr, "%s: error: %s\n", spec.name, e.what());
    return kExitCuda;
  }
}

}  // namespace hg
