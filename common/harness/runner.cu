// common/harness/runner.cu: the verify binary every step shares (see runner.hpp).
//
// Order: parse and validate the arguments (exit 2, no CUDA call yet); find a supported GPU (exit 77);
// allocate, fill, poison D, run the step's kernel (with --hog-sms, while another kernel holds N SMs), run the
// reference, verify (exit 0 or 1); optionally relaunch and compare the bits (--repeat), save .npy files and
// benchmark against cuBLAS. CUDA failures exit 3 with the failed call named, and so does a wait stopped by the
// mbarrier watchdog ("deadlock: ..."). A request the step's host code refuses (std::invalid_argument from its
// prepare function, e.g. a --tile off its menu) exits 2 with its message. --break NAME runs a broken variant.
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness/runner.hpp"

#include "common/harness/breaks.hpp"
#include "common/kernel/check.cuh"
#include "common/harness/cli.hpp"
#include "common/harness/harness.cuh"
#include "common/harness/npy.hpp"
#include "common/harness/reference.cuh"
#include "common/harness/verify.hpp"
#include "common/kernel/tma.hpp"
#include "common/kernel/watchdog.cuh"

namespace hg {
namespace {

enum ExitCode { kExitPass = 0, kExitFail = 1, kExitUsage = 2, kExitCuda = 3, kExitNoGpu = 77 };

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

/// --repeat N: launches the verified kernel N more times on the same inputs, D poisoned before each, and compares
/// every output bit with the first launch's. Returns "" when all are identical, else what differed.
/// Relaunches with `relaunch` `count` times, poisoning D before each, and compares every output bit with what the
/// first launch left in D. Returns "" when all match, else where the first differing relaunch differs.
std::string same_bits(const std::function<void()>& relaunch, const GemmArgs& g, int count, const char* what,
                      const std::string& kernel_name, cudaStream_t stream) {
  const size_t outputs = size_t(g.m) * size_t(g.n);
  std::vector<uint16_t> first(outputs), again(outputs);
  HG_CUDA_CHECK(cudaMemcpy(first.data(), g.D, outputs * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  for (int r = 1; r <= count; ++r) {
    poison_matrix(g.D, int64_t(outputs), stream);
    relaunch();
    check_kernel(kernel_name + " (" + what + ")", stream);
    HG_CUDA_CHECK(cudaMemcpy(again.data(), g.D, outputs * sizeof(uint16_t), cudaMemcpyDeviceToHost));
    size_t differ = 0, where = 0;
    for (size_t i = 0; i < outputs; ++i)
      if (first[i] != again[i] && differ++ == 0) where = i;
    if (differ > 0)
      return std::string(what) + " " + std::to_string(r) + " differs from launch 1 in " + std::to_string(differ) +
             " of " + std::to_string(outputs) + " outputs (first at row " + std::to_string(where / size_t(g.n)) +
             ", column " + std::to_string(where % size_t(g.n)) + ")";
  }
  return "";
}

/// --graph N: one launch captured into a CUDA graph (cudaStreamBeginCapture), replayed N times, each replay must
/// give the first launch's bits. A launcher that refuses capture throws; the capture is ended first.
std::string graph_replays(const Launcher& launch, const GemmArgs& g, int replays, const std::string& kernel_name,
                          cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  HG_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    launch(stream);
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);  // leave the stream usable; the launcher's error is the one to report
    if (graph != nullptr) cudaGraphDestroy(graph);
    throw;
  }
  HG_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  HG_CUDA_CHECK(made);
  std::string diff;
  try {
    diff = same_bits([&] { HG_CUDA_CHECK(cudaGraphLaunch(exec, stream)); }, g, replays, "graph replay", kernel_name,
                     stream);
  } catch (...) {
    cudaGraphExecDestroy(exec);
    throw;
  }
  cudaGraphExecDestroy(exec);
  return diff;
}

/// --bench: the step's kernel and cuBLAS, each timed on the same rotating random-normal input sets.
std::string bench(const StepSpec& spec, const std::function<Launcher(const GemmArgs&)>& prepare, const Device& dev,
                  const Options& opt, const GemmArgs& verified, cudaStream_t stream) {
  const Shape& s = opt.shape;
  const RotatingInputs inputs(s, opt.seed + 1000, size_t(dev.prop.l2CacheSize), stream);
  std::vector<Launcher> launchers;
  for (int64_t i = 0; i < inputs.sets(); ++i) launchers.push_back(prepare(inputs[i]));

  // cuBLAS: first checked on the verified problem with the same verifier, so the baseline is the same GEMM.
  CublasHandle handle(stream);
  const VerifyReport blas_check =
      run_and_verify([&](const GemmArgs& g) { cublas_gemm(handle.h, g); }, verified, opt.init, stream);

  // Both timed in interleaved rounds (10 when iters allows), so clock drift does not favour either; two kernels
  // simply alternate, so each turn follows the other's (order.hpp).
  const int rounds = opt.iters % 10 == 0 ? 10 : 1;
  const std::vector<TimingStats> t = time_interleaved(
      {[&](int i) { launchers[size_t(i % inputs.sets())](stream); }, [&](int i) { cublas_gemm(handle.h, inputs[i]); }},
      opt.warmup, opt.iters, rounds, stream, nullptr, opt.settle_ms);
  check_kernel(std::string("timing the ") + spec.name + " kernel and cuBLAS", stream);
  const TimingStats& mine = t[0];
  const TimingStats& blas = t[1];

  char line[512];
  std::snprintf(line, sizeof line,
                " median_ms=%.4f p10_ms=%.4f p90_ms=%.4f tflops=%.1f cublas_median_ms=%.4f cublas_tflops=%.1f "
                "pct_cublas=%.1f cublas_check=%s iters=%d sets=%lld method=%s settle_ms=%d",
                mine.median_ms, mine.p10_ms, mine.p90_ms, tflops(s.m, s.n, s.k, mine.median_ms), blas.median_ms,
                tflops(s.m, s.n, s.k, blas.median_ms), 100.0 * blas.median_ms / mine.median_ms,
                blas_check.pass ? "PASS" : "FAIL", opt.iters, (long long)inputs.sets(), timing_method(opt.settle_ms),
                opt.settle_ms);
  return line;
}

int run(const StepSpec& spec, const Options& opt, const Variant& requested) {
  std::string chosen;  // what the step's host code chose for this problem (step 11: the tile), for the result line
  Variant variant = requested;
  variant.chosen = &chosen;
  const Break brk = variant.brk;
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
  const std::string too_many = check_hog_sms(opt.hog_sms, dev.prop.multiProcessorCount);
  if (!too_many.empty()) {
    std::fprintf(stderr, "%s: error: %s\n", spec.name, too_many.c_str());
    return kExitUsage;
  }
  const PrepareFn prepare_fn = dev.arch == ArchChoice::kSm90 ? spec.prepare_sm90 : spec.prepare_sm100;
  if (brk != Break::kNone && !has_break(dev.arch == ArchChoice::kSm90 ? KernelArch::kSm90 : KernelArch::kSm100, brk)) {
    std::fprintf(stderr, "%s: error: --break %s switches off a contract of the %s kernel; this GPU runs the %s "
                 "kernel\n", spec.name, break_info(brk).name, break_arch(brk), to_string(dev.arch));
    return kExitUsage;
  }
  const auto prepare = [&](const GemmArgs& g) { return prepare_fn(g, variant); };
  const Shape& s = opt.shape;

  Stream stream;
  DeviceBuffer<__half> a(s.m * s.k), b(s.n * s.k), d(s.m * s.n);
  fill_matrix(a.get(), a.count(), opt.seed, opt.init, 0, stream.s);
  fill_matrix(b.get(), b.count(), opt.seed, opt.init, 1, stream.s);
  const GemmArgs g{a.get(), b.get(), d.get(), int(s.m), int(s.n), int(s.k)};

  const std::string kernel_name = std::string("the ") + spec.name + " " + to_string(dev.arch) + " kernel";
  const Launcher launch = prepare(g);  // loads the kernel before any hog runs: a load may wait for running kernels
  bool hog_held = true;  // --hog-sms: the hog still held its SMs when the kernel finished
  const VerifyReport report = run_and_verify(
      [&](const GemmArgs&) {
        std::optional<SmHog> hog;
        if (opt.hog_sms > 0) hog.emplace(opt.hog_sms, dev);  // returns once it holds all its SMs
        launch(stream.s);
        check_kernel(kernel_name, stream.s);
        if (hog) {
          hog_held = hog->holding();
          hog->release();
        }
      },
      g, opt.init, stream.s);
  std::string repeat_text;
  if (opt.hog_sms > 0)
    repeat_text += " hog_sms=" + std::to_string(opt.hog_sms) + " hog_held=" +
                   (hog_held ? std::string("yes")
                             : "no (the hog gave up its SMs after " + std::to_string(SmHog::kHoldNs / 1000000000) +
                                   " s, before the kernel finished: the kernel did not complete on the SMs left)");
  bool identical = true;  // --repeat and --graph: every relaunch gave the first launch's bits
  if (opt.repeat > 0 && report.pass) {
    const std::string diff = same_bits([&] { launch(stream.s); }, g, opt.repeat, "relaunch", kernel_name, stream.s);
    identical = identical && diff.empty();
    repeat_text += " repeat=" + std::to_string(opt.repeat) + (diff.empty() ? " identical_bits" : " " + diff);
  }
  if (opt.graph > 0 && report.pass) {
    const std::string diff = graph_replays(launch, g, opt.graph, kernel_name, stream.s);
    identical = identical && diff.empty();
    repeat_text += " graph=" + std::to_string(opt.graph) + (diff.empty() ? " identical_bits" : " " + diff);
  }

  if (!opt.save_dir.empty()) save_npy(opt.save_dir, g);
  std::string timing;
  if (opt.bench && report.pass) timing = bench(spec, prepare, dev, opt, g, stream.s);

  std::string variant_text;
  if (!spec.pipe_depths.empty()) variant_text += " pipe_depth=" + std::to_string(variant.pipe_depth);
  if (spec.stream_k_knobs) variant_text += " " + stream_k_text(variant.stream_k);
  if (!chosen.empty()) variant_text += " " + chosen;
  if (brk != Break::kNone) variant_text += std::string(" break=") + break_info(brk).name;
  const bool pass = report.pass && identical && hog_held;
  std::printf("%s %s gpu=\"%s\" M=%lld N=%lld K=%lld init=%s seed=%llu%s %s%s %s%s\n", spec.name,
              to_string(dev.arch), dev.prop.name, (long long)s.m, (long long)s.n, (long long)s.k, to_string(opt.init),
              (unsigned long long)opt.seed, variant_text.c_str(), report.summary().c_str(), repeat_text.c_str(),
              pass ? "PASS" : "FAIL", timing.c_str());
  return pass ? kExitPass : kExitFail;
}

}  // namespace

void check_step_knobs(const StepSpec& spec, bool stream_k_given, bool tile_given) {
  if (stream_k_given && !spec.stream_k_knobs)
    throw UsageError(std::string(spec.name) +
                     " has no stream-K split: the --sk-* flags are for the steps that have one");
  if (tile_given && !spec.tile_knob)
    throw UsageError(std::string(spec.name) + " has one tile size: --tile is for the steps that offer a menu");
}

int run_step(const StepSpec& spec, int argc, char** argv) {
  Options opt;
  Variant variant;
  std::vector<int> depths;  // --pipe-depth all: each depth the step offers
  std::vector<InitMode> inits;  // --init both: int, then random
  try {
    opt = parse_cli(std::vector<std::string>(argv, argv + argc), spec.natural_shape);
    if (opt.help) {
      std::printf("%s", usage(spec.name, spec.what_it_adds, spec.natural_shape, spec.pipe_depths,
                              spec.stream_k_knobs, spec.tile_knob).c_str());
      std::printf("\n%s", break_list(spec.breaks, spec.tolerated_sm90, spec.name).c_str());
      return kExitPass;
    }
    if (opt.break_name == "list") {
      std::printf("%s", break_list(spec.breaks, spec.tolerated_sm90, spec.name).c_str());
      return kExitPass;
    }
    variant.brk = resolve_break(opt.break_name, spec.breaks, spec.name);
    if (variant.brk != Break::kNone && !spec.break_variants)
      throw UsageError("this build of " + std::string(spec.name) + " has no --break variants: reconfigure with "
                       "-DHG_BREAK_VARIANTS=ON (the test preset sets it) and rebuild");
    depths = resolve_pipe_depths(opt.pipe_depth, spec.pipe_depths, spec.name);
    check_step_knobs(spec, opt.stream_k_given, opt.tile_given);
    variant.stream_k = opt.stream_k;
    variant.tile = opt.tile;
    if (opt.init_both) inits = {InitMode::kInt, InitMode::kRandom};
    // --bench times one input (both would time the same kernel twice) but may time every ring depth in turn;
    // --save writes one variant's files, which a second variant would overwrite.
    if (opt.init_both && opt.bench) throw UsageError("--bench times one input: give one --init");
    if ((opt.init_both || depths.size() > 1) && !opt.save_dir.empty())
      throw UsageError("--save writes one variant: give one --pipe-depth and one --init");
    const std::string bad_shape = check_shape(opt.shape, spec.rule, spec.name);
    if (!bad_shape.empty()) throw UsageError(bad_shape);
    if (!opt.save_dir.empty()) prepare_save_dir(opt.save_dir);
    if (inits.empty()) inits = {opt.init};
  } catch (const UsageError& e) {
    const bool hinted = std::string(e.what()).find("--help") != std::string::npos ||
                        std::string(e.what()).find("--break list") != std::string::npos;
    std::fprintf(stderr, "%s: error: %s%s\n", spec.name, e.what(), hinted ? "" : " (run with --help for usage)");
    return kExitUsage;
  }
  try {
    // Several variants run in turn in this one process (a GPU process's start is the costly part of a short
    // test): each prints its line; a CUDA error, a deadlock or no GPU ends the run, a failed check does not.
    int worst = kExitPass;
    for (int depth : depths) {
      for (InitMode init : inits) {
        Options one = opt;
        one.init = init;
        variant.pipe_depth = depth;
        const int rc = run(spec, one, variant);
        if (rc != kExitPass && rc != kExitFail) return rc;
        if (rc == kExitFail) worst = kExitFail;
      }
    }
    return worst;
  } catch (const DeadlockError& e) {  // the watchdog stopped a wait that would never have completed
    std::fprintf(stderr, "%s: %s\n", spec.name, e.what());
    return kExitCuda;
  } catch (const CudaError& e) {
    std::fprintf(stderr, "%s: CUDA error: %s\n", spec.name, e.what());
    return kExitCuda;
  } catch (const TmaGeometryError& e) {  // a shape the step's rule admits but its tensor maps cannot describe: a bug
    std::fprintf(stderr, "%s: error: %s\n", spec.name, e.what());
    return kExitCuda;
  } catch (const std::invalid_argument& e) {  // the step's host code refused the request, e.g. a --tile off its menu
    std::fprintf(stderr, "%s: error: %s (run with --help for usage)\n", spec.name, e.what());
    return kExitUsage;
  } catch (const std::exception& e) {  // e.g. --save could not write a file
    std::fprintf(stderr, "%s: error: %s\n", spec.name, e.what());
    return kExitCuda;
  }
}

}  // namespace hg
