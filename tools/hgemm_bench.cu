// tools/hgemm_bench.cu: the benchmark ladder. The registry's ladder steps (steps.json) and cuBLAS, timed in
// one process per run on the same rotating random-normal inputs, each step verified before it is timed.
//
//   cmake --preset default && cmake --build build --target hgemm_bench
//   ./build/hgemm_bench --out docs/results      # 4096^3, 8192^3, 4096 x 14336 x 4096, 16384 x 4096 x 1024
//   ./build/hgemm_bench --shape 2048x2048x2048 --iters 200  # any shapes the steps accept
//   tools/run_benchmark.sh does both and redraws the chart and the results tables (tools/plot_results.py).
//
// Output: a table on stdout, progress on stderr, <out>/samples.csv (every timed launch), and <out>/ladder.csv
// and <out>/ladder.json with the GPU, SM count, clocks, driver, CUDA and cuBLAS versions and the date.
// Timing: each kernel's launches are spread over interleaved rounds (all kernels take turns) so that clock
// and power drift during the run lands on every kernel alike. Every shape is timed by two methods, one after
// the other: "burst" (no settle launches: what most published GEMM numbers report) and "sustained" (each turn
// starts with --settle-ms of untimed launches of that kernel: on a power-capped GPU a long kernel timed right
// after a slow, low-power one runs at a higher clock than it can hold; docs/results/ladder.csv has both, and
// the README's table shows how far apart they are). Exit codes as the verify binaries:
// 0 all verified, 1 a verification failed (that row is not timed), 2 bad usage, 3 CUDA error, 77 no GPU.
#include <cuda_fp16.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/harness/harness.cuh"
#include "common/harness/reference.cuh"
// The steps of the ladder, from the registry (steps.json): each step's kernels are compiled once, into the
// spec this binary links (CMakeLists.txt generates ladder.hpp and the specs).
#include "ladder.hpp"

namespace {

struct Args {
  std::vector<hg::Shape> shapes;
  int iters = 200, warmup = 10, rounds = 20;
  double settle_ms = 50;  // the sustained method: untimed launches of a kernel before its turn in each round
  uint64_t seed = 1;
  std::string out = "bench_out";
};

const char* kUsage =
    "usage: hgemm_bench [--shape MxNxK]... [--iters N (>= 50, default 200)] [--warmup N (default 10)]\n"
    "                   [--rounds R (default 20; iters must be a multiple)] [--settle-ms T (default 50, > 0)]\n"
    "                   [--seed S] [--out DIR (default bench_out)]\n"
    "Each kernel gets iters timed launches, spread over R rounds in which all kernels take turns, by two\n"
    "methods: burst (no settle launches) and sustained (each turn starts with about T ms of untimed\n"
    "launches of that kernel, so that a power-capped GPU times it at the clock it can hold).\n"
    "Default shapes: 4096x4096x4096, 8192x8192x8192, 4096x14336x4096 (an LLM MLP projection) and\n"
    "16384x4096x1024 (short K, 4096 output tiles: where a persistent grid can pay).\n";

/// Throws hg::UsageError with a one-line reason.
Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") throw hg::UsageError("help");
    if (i + 1 >= argc) throw hg::UsageError(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--shape") {
      long long m = 0, n = 0, k = 0;
      char tail = 0;
      if (std::sscanf(value.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1 ||
          m > hg::kMaxDim || n > hg::kMaxDim || k > hg::kMaxDim)
        throw hg::UsageError("--shape expects MxNxK with sizes from 1 to 1048576, got '" + value + "'");
      const hg::Shape s{m, n, k};
      const std::string bad = hg::check_shape(s, hg::ShapeRule::kTiled, "hgemm_bench");
      if (!bad.empty()) throw hg::UsageError("--shape " + value + ": " + bad);
      a.shapes.push_back(s);
    } else if (flag == "--iters") {
      a.iters = int(hg::parse_bounded(flag, value, 50, 100000));
    } else if (flag == "--warmup") {
      a.warmup = int(hg::parse_bounded(flag, value, 0, 100000));
    } else if (flag == "--rounds") {
      a.rounds = int(hg::parse_bounded(flag, value, 1, 1000));
    } else if (flag == "--settle-ms") {
      a.settle_ms = double(hg::parse_bounded(flag, value, 1, 10000));  // burst is the other method
    } else if (flag == "--seed") {
      a.seed = uint64_t(hg::parse_bounded(flag, value, 0, int64_t(1) << 62));
    } else if (flag == "--out") {
      a.out = value;
    } else {
      throw hg::UsageError("unknown option '" + flag + "'");
    }
  }
  if (a.iters % a.rounds != 0)
    throw hg::UsageError("--iters " + std::to_string(a.iters) + " is not a multiple of --rounds " +
                         std::to_string(a.rounds));
  if (a.shapes.empty())
    a.shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 14336, 4096}, {16384, 4096, 1024}};
  return a;
}

/// Dense fp16 tensor-core peak from NVIDIA's datasheets (no sparsity), TFLOP/s; 0 when unknown.
double dense_fp16_peak(const cudaDeviceProp& p) {
  const std::string name = p.name;
  if (p.major == 9 && p.minor == 0) {
    if (name.find("PCIe") != std::string::npos) return 756.5;   // H100 PCIe
    if (name.find("NVL") != std::string::npos) return 835.5;    // H100 NVL
    return 989.4;                                               // H100 SXM, H200 SXM
  }
  if (p.major == 10 && p.minor == 0) return 2250.0;  // B200 (dense FP16/BF16)
  return 0.0;
}

/// First line of a command's output ("" if it cannot run): the driver version and clocks via nvidia-smi.
std::string shell_line(const char* cmd) {
  std::string line;
  if (FILE* f = popen(cmd, "r")) {
    char buf[256];
    if (std::fgets(buf, sizeof buf, f)) line = buf;
    pclose(f);
  }
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

struct Row {
  hg::Shape shape;
  std::string step, what, method;
  bool verified = false;
  double max_abs_err = 0;
  hg::TimingStats t;
  double tflops = 0, pct_cublas = 0, pct_peak = 0;
};

/// One timed launch: which kernel, in which interleaved round, its index among that kernel's launches.
struct Sample {
  hg::Shape shape;
  std::string step, method;
  int round = 0, index = 0;
  double ms = 0;
};

int run(const Args& args) {
  hg::Device dev;
  const std::string no_gpu = hg::find_device(hg::ArchChoice::kAuto, dev);
  if (!no_gpu.empty()) {
    std::printf("hgemm_bench SKIP: %s\n", no_gpu.c_str());
    return 77;
  }
  for (const hg::Shape& s : args.shapes) {
    const std::string too_big = hg::check_memory(s);
    if (!too_big.empty()) throw hg::UsageError(too_big);
  }
  if (mkdir(args.out.c_str(), 0755) != 0 && errno != EEXIST)
    throw hg::UsageError("--out: cannot create '" + args.out + "': " + std::strerror(errno));

  const bool blackwell = dev.arch == hg::ArchChoice::kSm100;
  const double peak = dense_fp16_peak(dev.prop);
  hg::Stream stream;
  hg::CublasHandle blas(stream.s);
  std::vector<Row> rows;
  std::vector<Sample> samples;  // every timed launch, for <out>/samples.csv
  bool all_verified = true;
  const std::vector<hg::StepSpec> ladder = hg::ladder_steps();
  const int total = int(args.shapes.size() * (ladder.size() + 1));
  const double settle[] = {0.0, args.settle_ms};  // the two methods, burst then sustained
  int done = 0;
  auto progress = [&](const hg::Shape& s, const char* who, const char* what) {
    std::fprintf(stderr, "[%2d/%d] %lldx%lldx%lld %-22s %s\n", ++done, total, (long long)s.m, (long long)s.n,
                 (long long)s.k, who, what);
  };

  for (const hg::Shape& s : args.shapes) {
    // One verification problem (random-normal, tolerance check) and one rotation of timing inputs per shape.
    hg::DeviceBuffer<__half> a(s.m * s.k), b(s.n * s.k), d(s.m * s.n);
    hg::fill_matrix(a.get(), a.count(), args.seed, hg::InitMode::kRandom, 0, stream.s);
    hg::fill_matrix(b.get(), b.count(), args.seed, hg::InitMode::kRandom, 1, stream.s);
    const hg::GemmArgs check{a.get(), b.get(), d.get(), int(s.m), int(s.n), int(s.k)};
    const hg::RotatingInputs inputs(s, args.seed + 1000, size_t(dev.prop.l2CacheSize), stream.s);

    // Verify every contestant first; the verified ones are then timed together in interleaved rounds.
    std::vector<Row> shape_rows;
    std::vector<std::function<void(int)>> timed;  // one per verified row, in row order
    std::vector<size_t> timed_row;
    std::vector<std::vector<hg::Launcher>> launchers(ladder.size());
    for (size_t li = 0; li < ladder.size(); ++li) {
      const hg::StepSpec& step = ladder[li];
      progress(s, step.name, "verify");
      const hg::PrepareFn prepare = blackwell ? step.prepare_sm100 : step.prepare_sm90;
      // The step's default ring depth (its binary's); a step without a ring ignores it.
      const hg::Variant variant{hg::Break::kNone, step.pipe_depths.empty() ? hg::Variant{}.pipe_depth
                                                                             : step.pipe_depths.front()};
      Row r{s, step.name, step.label};
      const hg::VerifyReport rep = hg::run_and_verify(
          [&](const hg::GemmArgs& g) {
            prepare(g, variant)(stream.s);
            hg::check_kernel(std::string("the ") + step.name + " kernel", stream.s);
          },
          check, hg::InitMode::kRandom, stream.s);
      r.verified = rep.pass;
      r.max_abs_err = rep.max_abs_err;
      if (rep.pass) {  // only a verified kernel is timed
        for (int64_t i = 0; i < inputs.sets(); ++i) launchers[li].push_back(prepare(inputs[i], variant));
        timed.push_back([&, li](int i) { launchers[li][size_t(i % inputs.sets())](stream.s); });
        timed_row.push_back(shape_rows.size());
      } else {
        all_verified = false;
        std::fprintf(stderr, "  %s FAILED verification: %s (not timed)\n", step.name, rep.summary().c_str());
      }
      shape_rows.push_back(r);
    }
    progress(s, "cuBLAS", "verify");
    Row c{s, "cublas", "cublasGemmEx (baseline)"};
    const hg::VerifyReport crep = hg::run_and_verify([&](const hg::GemmArgs& g) { hg::cublas_gemm(blas.h, g); },
                                                     check, hg::InitMode::kRandom, stream.s);
    c.verified = crep.pass;
    c.max_abs_err = crep.max_abs_err;
    timed.push_back([&](int i) { hg::cublas_gemm(blas.h, inputs[i]); });  // the baseline is timed either way
    timed_row.push_back(shape_rows.size());
    shape_rows.push_back(c);

    for (const double settle_ms : settle) {
      const char* method = hg::timing_method(settle_ms);
      std::fprintf(stderr, "        %lldx%lldx%lld timing %zu kernels in %d interleaved rounds, %s\n",
                   (long long)s.m, (long long)s.n, (long long)s.k, timed.size(), args.rounds, method);
      std::vector<std::vector<double>> raw;
      const std::vector<hg::TimingStats> times =
          hg::time_interleaved(timed, args.warmup, args.iters, args.rounds, stream.s, &raw, settle_ms);
      hg::check_kernel("timing the ladder", stream.s);
      std::vector<Row> method_rows = shape_rows;
      for (Row& r : method_rows) r.method = method;
      for (size_t t = 0; t < times.size(); ++t) {
        Row& r = method_rows[timed_row[t]];
        r.t = times[t];
        for (size_t i = 0; i < raw[t].size(); ++i)
          samples.push_back({s, r.step, method, int(i / size_t(args.iters / args.rounds)), int(i), raw[t][i]});
      }
      const Row& base = method_rows.back();  // cuBLAS, timed by the same method
      for (Row& r : method_rows) {
        if (r.t.samples == 0) continue;
        r.tflops = hg::tflops(s.m, s.n, s.k, r.t.median_ms);
        r.pct_cublas = 100.0 * base.t.median_ms / r.t.median_ms;
        r.pct_peak = peak > 0 ? 100.0 * r.tflops / peak : 0.0;
      }
      rows.insert(rows.end(), method_rows.begin(), method_rows.end());
    }
  }

  // --- metadata -----------------------------------------------------------------------------------------
  int runtime = 0, driver_api = 0, clock_khz = 0, mem_clock_khz = 0;
  HG_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  HG_CUDA_CHECK(cudaDriverGetVersion(&driver_api));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev.ordinal));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev.ordinal));
  int blas_major = 0, blas_minor = 0, blas_patch = 0;
  HG_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &blas_major));
  HG_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &blas_minor));
  HG_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &blas_patch));
  const std::string driver = shell_line("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null");
  const std::string clocks_now =
      shell_line("nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null");
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const std::string cuda = std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10);
  const std::string cublas_v =
      std::to_string(blas_major) + "." + std::to_string(blas_minor) + "." + std::to_string(blas_patch);

  // --- table ----------------------------------------------------------------------------------------------
  std::printf("GPU: %s, %d SMs, max SM clock %d MHz, driver %s, CUDA %s, cuBLAS %s, %s\n", dev.prop.name,
              dev.prop.multiProcessorCount, clock_khz / 1000, driver.empty() ? "unknown" : driver.c_str(),
              cuda.c_str(), cublas_v.c_str(), date);
  std::printf("median of %d timed launches in %d interleaved rounds after %d warm-up; burst: no settle launches, "
              "sustained: each turn after %g ms of settle launches; inputs rotated through more than 2x the L2; "
              "dense fp16 peak %.1f TFLOP/s\n",
              args.iters, args.rounds, args.warmup, args.settle_ms, peak);
  for (const hg::Shape& s : args.shapes)
    for (const double settle_ms : settle) {
      const std::string method = hg::timing_method(settle_ms);
      std::printf("\n%lld x %lld x %lld, %s\n", (long long)s.m, (long long)s.n, (long long)s.k, method.c_str());
      std::printf("  %-22s %-31s %10s %10s %10s %8s %9s %7s\n", "step", "what it adds", "median ms", "p10 ms",
                  "p90 ms", "TFLOP/s", "% cuBLAS", "% peak");
      for (const Row& r : rows) {
        if (r.shape.m != s.m || r.shape.n != s.n || r.shape.k != s.k || r.method != method) continue;
        if (r.t.samples == 0) {
          std::printf("  %-22s %-31s %s\n", r.step.c_str(), r.what.c_str(), "FAILED verification, not timed");
          continue;
        }
        std::printf("  %-22s %-31s %10.4f %10.4f %10.4f %8.1f %8.1f%% %6.1f%%\n", r.step.c_str(), r.what.c_str(),
                    r.t.median_ms, r.t.p10_ms, r.t.p90_ms, r.tflops, r.pct_cublas, r.pct_peak);
      }
    }

  // --- CSV and JSON -----------------------------------------------------------------------------------------
  const std::string csv_path = args.out + "/ladder.csv", json_path = args.out + "/ladder.json";
  std::ofstream csv(csv_path);
  csv << "m,n,k,step,what,method,verified,max_abs_err,median_ms,p10_ms,p90_ms,tflops,pct_cublas,pct_peak\n";
  for (const Row& r : rows) {
    char line[512];
    std::snprintf(line, sizeof line, "%lld,%lld,%lld,%s,\"%s\",%s,%d,%.4g,%.5f,%.5f,%.5f,%.1f,%.1f,%.1f\n",
                  (long long)r.shape.m, (long long)r.shape.n, (long long)r.shape.k, r.step.c_str(), r.what.c_str(),
                  r.method.c_str(), r.verified ? 1 : 0, r.max_abs_err, r.t.median_ms, r.t.p10_ms, r.t.p90_ms, r.tflops, r.pct_cublas,
                  r.pct_peak);
    csv << line;
  }
  const std::string samples_path = args.out + "/samples.csv";
  std::ofstream raw(samples_path);
  raw << "m,n,k,step,method,round,index,ms\n";
  for (const Sample& x : samples) {
    char line[160];
    std::snprintf(line, sizeof line, "%lld,%lld,%lld,%s,%s,%d,%d,%.5f\n", (long long)x.shape.m,
                  (long long)x.shape.n, (long long)x.shape.k, x.step.c_str(), x.method.c_str(), x.round, x.index,
                  x.ms);
    raw << line;
  }
  std::ofstream json(json_path);
  json << "{\n  \"gpu\": \"" << json_escape(dev.prop.name) << "\",\n  \"sm_count\": " << dev.prop.multiProcessorCount
       << ",\n  \"compute_capability\": \"" << dev.prop.major << "." << dev.prop.minor << "\",\n  \"kernel\": \""
       << (blackwell ? "sm100" : "sm90") << "\",\n  \"sm_clock_max_mhz\": " << clock_khz / 1000
       << ",\n  \"mem_clock_max_mhz\": " << mem_clock_khz / 1000 << ",\n  \"clocks_at_end\": \""
       << json_escape(clocks_now) << "\",\n  \"l2_bytes\": " << dev.prop.l2CacheSize << ",\n  \"driver\": \""
       << json_escape(driver) << "\",\n  \"driver_cuda_api\": " << driver_api << ",\n  \"cuda_runtime\": \"" << cuda
       << "\",\n  \"cublas\": \"" << cublas_v << "\",\n  \"date_utc\": \"" << date << "\",\n  \"iters\": "
       << args.iters << ",\n  \"rounds\": " << args.rounds << ",\n  \"warmup\": " << args.warmup
       << ",\n  \"methods\": {\"burst\": {\"settle_ms\": 0}, \"sustained\": {\"settle_ms\": " << args.settle_ms
       << "}},\n  \"settle_ms\": " << args.settle_ms
       << ",\n  \"dense_fp16_peak_tflops\": " << peak
       << ",\n  \"csv\": \"ladder.csv\"\n}\n";
  if (!csv || !json || !raw)
    throw hg::UsageError("cannot write " + csv_path + ", " + json_path + " or " + samples_path);
  std::printf("\nwrote %s, %s and %s\n", csv_path.c_str(), json_path.c_str(), samples_path.c_str());
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    args = parse(argc, argv);
  } catch (const hg::UsageError& e) {
    if (std::string(e.what()) == "help") {
      std::printf("%s", kUsage);
      return 0;
    }
    std::fprintf(stderr, "hgemm_bench: error: %s (run with --help for usage)\n", e.what());
    return 2;
  }
  try {
    return run(args);
  } catch (const hg::UsageError& e) {
    std::fprintf(stderr, "hgemm_bench: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hgemm_bench: CUDA error: %s\n", e.what());
    return 3;
  }
}
