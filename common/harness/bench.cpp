// common/harness/bench.cpp: the benchmark tools' shared run (see bench.hpp).
#include "common/harness/bench.hpp"

#include <cuda_fp16.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>

#include "common/harness/order.hpp"
#include "common/harness/reference.cuh"

namespace hg {
namespace {

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

bool same_shape(const Shape& a, const Shape& b) { return a.m == b.m && a.n == b.n && a.k == b.k; }

}  // namespace

std::vector<Shape> default_bench_shapes() {
  return {{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 14336, 4096}, {16384, 4096, 1024}, {5120, 5120, 2048},
          {2304, 4608, 8192}};
}

std::string bench_usage(const std::string& tool) {
  const std::string indent(std::string("usage: ").size() + tool.size() + 1, ' ');
  return "usage: " + tool + " [--shape MxNxK]... [--iters N (>= 50, default 200)] [--warmup N (default 10)]\n" +
         indent + "[--rounds R (default 20; iters must be a multiple)] [--settle-ms T (default 50, > 0)]\n" +
         indent + "[--seed S] [--out DIR (default bench_out)] [--sk-min-share N] [--sk-rounds N] [--sk-min-saving P]\n" +
         "Each kernel gets iters timed launches, spread over R rounds in which all kernels take turns, by two\n"
         "methods: burst (no settle launches) and sustained (each turn starts with about T ms of untimed\n"
         "launches of that kernel, so that a power-capped GPU times it at the clock it can hold).\n"
         "The turns follow a balanced order: the first kernel opens every round and the others follow in a\n"
         "different order each round, so that over a cycle of rounds (n - 1 for an odd number n of kernels,\n"
         "2(n - 1) for an even n > 2) every kernel's turn follows every other kernel's equally often. R is not\n"
         "rounded to whole cycles; the output's 'kernel order' line says how evenly R rounds spread them.\n"
         "Default shapes: 4096x4096x4096, 8192x8192x8192, 4096x14336x4096 (an LLM MLP projection),\n"
         "16384x4096x1024 (short K, 4096 output tiles: where a persistent grid can pay), and two whose last\n"
         "round of 256 x 256 tiles is short on 66 CTA pairs: 5120x5120x2048 (400 tiles: 6 rounds and 4 over)\n"
         "and 2304x4608x8192 (162 tiles: 2 rounds and 30 over), where step 10 splits the last round.\n"
         "The --sk-* flags set the stream-K split of the steps that have one, as in their verify binaries:\n" +
         stream_k_usage();
}

BenchOptions parse_bench_options(int argc, char** argv, const std::string& tool) {
  BenchOptions a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") throw UsageError("help");
    if (i + 1 >= argc) throw UsageError(flag + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--shape") {
      long long m = 0, n = 0, k = 0;
      char tail = 0;
      if (std::sscanf(value.c_str(), "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 || m < 1 || n < 1 || k < 1 ||
          m > kMaxDim || n > kMaxDim || k > kMaxDim)
        throw UsageError("--shape expects MxNxK with sizes from 1 to 1048576, got '" + value + "'");
      const Shape s{m, n, k};
      const std::string bad = check_shape(s, ShapeRule::kTiled, tool);
      if (!bad.empty()) throw UsageError("--shape " + value + ": " + bad);
      a.shapes.push_back(s);
    } else if (flag == "--iters") {
      a.iters = int(parse_bounded(flag, value, 50, 100000));
    } else if (flag == "--warmup") {
      a.warmup = int(parse_bounded(flag, value, 0, 100000));
    } else if (flag == "--rounds") {
      a.rounds = int(parse_bounded(flag, value, 1, 1000));
    } else if (flag == "--settle-ms") {
      a.settle_ms = double(parse_bounded(flag, value, 1, 10000));  // burst is the other method
    } else if (flag == "--seed") {
      a.seed = uint64_t(parse_bounded(flag, value, 0, int64_t(1) << 62));
    } else if (flag == "--out") {
      a.out = value;
    } else if (parse_stream_k_flag(flag, value, a.stream_k)) {
      // read into a.stream_k
    } else {
      throw UsageError("unknown option '" + flag + "'");
    }
  }
  if (a.iters % a.rounds != 0)
    throw UsageError("--iters " + std::to_string(a.iters) + " is not a multiple of --rounds " +
                     std::to_string(a.rounds));
  if (a.shapes.empty()) a.shapes = default_bench_shapes();
  return a;
}

void prepare_bench_run(const BenchOptions& opt) {
  for (const Shape& s : opt.shapes) {
    const std::string too_big = check_memory(s);
    if (!too_big.empty()) throw UsageError(too_big);
  }
  if (mkdir(opt.out.c_str(), 0755) != 0 && errno != EEXIST)
    throw UsageError("--out: cannot create '" + opt.out + "': " + std::strerror(errno));
}

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

void BenchProgress::operator()(const Shape& s, const char* who, const char* what) {
  std::fprintf(stderr, "[%2d/%d] %lldx%lldx%lld %-22s %s\n", ++done, total, (long long)s.m, (long long)s.n,
               (long long)s.k, who, what);
}

bool bench_shape(const Shape& s, const std::vector<Contestant>& contestants, const BenchOptions& opt,
                 const Device& dev, cublasHandle_t blas, cudaStream_t stream, BenchProgress& progress,
                 std::vector<BenchRow>& rows, std::vector<BenchSample>& samples) {
  const double peak = dense_fp16_peak(dev.prop);
  const double settle[] = {0.0, opt.settle_ms};  // the two methods, burst then sustained
  bool all_verified = true;
  // One verification problem (random-normal, tolerance check) and one rotation of timing inputs per shape.
  DeviceBuffer<__half> a(s.m * s.k), b(s.n * s.k), d(s.m * s.n);
  fill_matrix(a.get(), a.count(), opt.seed, InitMode::kRandom, 0, stream);
  fill_matrix(b.get(), b.count(), opt.seed, InitMode::kRandom, 1, stream);
  const GemmArgs check{a.get(), b.get(), d.get(), int(s.m), int(s.n), int(s.k)};
  const RotatingInputs inputs(s, opt.seed + 1000, size_t(dev.prop.l2CacheSize), stream);

  // Verify every contestant first; the verified ones are then timed together in interleaved rounds.
  std::vector<BenchRow> shape_rows;
  std::vector<std::function<void(int)>> timed;  // one per verified row, in row order
  std::vector<size_t> timed_row;
  std::vector<std::vector<Launcher>> launchers(contestants.size());
  for (size_t ci = 0; ci < contestants.size(); ++ci) {
    const Contestant& c = contestants[ci];
    progress(s, c.name.c_str(), "verify");
    BenchRow r;
    r.shape = s;
    r.step = c.name;
    r.what = c.what;
    r.extra = c.extra;
    const VerifyReport rep = run_and_verify(
        [&](const GemmArgs& g) {
          const Launcher launch = c.prepare(g);  // alive until the kernel is checked: it owns buffers the launch uses
          launch(stream);
          check_kernel("the " + c.name + " kernel", stream);
        },
        check, InitMode::kRandom, stream);
    r.verified = rep.pass;
    r.max_abs_err = rep.max_abs_err;
    if (rep.pass) {  // only a verified kernel is timed
      for (int64_t i = 0; i < inputs.sets(); ++i) launchers[ci].push_back(c.prepare(inputs[i]));
      timed.push_back([&, ci](int i) { launchers[ci][size_t(i % inputs.sets())](stream); });
      timed_row.push_back(shape_rows.size());
    } else {
      all_verified = false;
      std::fprintf(stderr, "  %s FAILED verification: %s (not timed)\n", c.name.c_str(), rep.summary().c_str());
    }
    shape_rows.push_back(r);
  }
  progress(s, "cuBLAS", "verify");
  BenchRow c;
  c.shape = s;
  c.step = "cublas";
  c.what = "cublasGemmEx (baseline)";
  const VerifyReport crep =
      run_and_verify([&](const GemmArgs& g) { cublas_gemm(blas, g); }, check, InitMode::kRandom, stream);
  c.verified = crep.pass;
  c.max_abs_err = crep.max_abs_err;
  timed.push_back([&](int i) { cublas_gemm(blas, inputs[i]); });  // the baseline is timed either way
  timed_row.push_back(shape_rows.size());
  shape_rows.push_back(c);

  for (const double settle_ms : settle) {
    const char* method = timing_method(settle_ms);
    std::fprintf(stderr, "        %lldx%lldx%lld timing %zu kernels in %d interleaved rounds, %s\n", (long long)s.m,
                 (long long)s.n, (long long)s.k, timed.size(), opt.rounds, method);
    std::vector<std::vector<double>> raw;
    const std::vector<TimingStats> times =
        time_interleaved(timed, opt.warmup, opt.iters, opt.rounds, stream, &raw, settle_ms);
    check_kernel("timing the ladder", stream);
    std::vector<BenchRow> method_rows = shape_rows;
    for (BenchRow& r : method_rows) r.method = method;
    for (size_t t = 0; t < times.size(); ++t) method_rows[timed_row[t]].t = times[t];
    // Every timed launch, with its turn's place in the round's balanced order and the kernel before it.
    const int n = int(timed.size()), per_round = opt.iters / opt.rounds;
    for (int round = 0; round < opt.rounds; ++round) {
      const std::vector<int> order = round_order(n, round);
      for (int pos = 0; pos < n; ++pos) {
        const int t = order[size_t(pos)];
        const std::string& name = method_rows[timed_row[size_t(t)]].step;
        const std::string& after = method_rows[timed_row[size_t(turn_before(n, round, pos))]].step;
        for (int i = round * per_round; i < (round + 1) * per_round; ++i)
          samples.push_back({s, name, method, round, pos, after, i, raw[size_t(t)][size_t(i)]});
      }
    }
    const BenchRow& base = method_rows.back();  // cuBLAS, timed by the same method
    for (BenchRow& r : method_rows) {
      if (r.t.samples == 0) continue;
      r.tflops = tflops(s.m, s.n, s.k, r.t.median_ms);
      r.pct_cublas = 100.0 * base.t.median_ms / r.t.median_ms;
      r.pct_peak = peak > 0 ? 100.0 * r.tflops / peak : 0.0;
    }
    rows.insert(rows.end(), method_rows.begin(), method_rows.end());
  }
  return all_verified;
}

RunInfo collect_run_info(const Device& dev) {
  RunInfo r;
  HG_CUDA_CHECK(cudaRuntimeGetVersion(&r.runtime));
  HG_CUDA_CHECK(cudaDriverGetVersion(&r.driver_api));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&r.clock_khz, cudaDevAttrClockRate, dev.ordinal));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&r.mem_clock_khz, cudaDevAttrMemoryClockRate, dev.ordinal));
  int blas_major = 0, blas_minor = 0, blas_patch = 0;
  HG_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &blas_major));
  HG_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &blas_minor));
  HG_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &blas_patch));
  r.driver = shell_line("nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null");
  r.clocks_now = shell_line("nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null");
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  r.date = date;
  r.cuda = std::to_string(r.runtime / 1000) + "." + std::to_string(r.runtime % 1000 / 10);
  r.cublas = std::to_string(blas_major) + "." + std::to_string(blas_minor) + "." + std::to_string(blas_patch);
  return r;
}

void print_run_header(const Device& dev, const RunInfo& info, const BenchOptions& opt) {
  std::printf("GPU: %s, %d SMs, max SM clock %d MHz, driver %s, CUDA %s, cuBLAS %s, %s\n", dev.prop.name,
              dev.prop.multiProcessorCount, info.clock_khz / 1000,
              info.driver.empty() ? "unknown" : info.driver.c_str(),
              info.cuda.c_str(), info.cublas.c_str(), info.date.c_str());
  std::printf("median of %d timed launches in %d interleaved rounds after %d warm-up; burst: no settle launches, "
              "sustained: each turn after %g ms of settle launches; inputs rotated through more than 2x the L2; "
              "dense fp16 peak %.1f TFLOP/s\n",
              opt.iters, opt.rounds, opt.warmup, opt.settle_ms, dense_fp16_peak(dev.prop));
  std::printf("stream-K knobs of the steps that have them: %s\n", stream_k_text(opt.stream_k).c_str());
}

void print_bench_tables(const std::vector<BenchRow>& rows, const BenchOptions& opt, const char* key,
                        const char* what) {
  const double settle[] = {0.0, opt.settle_ms};
  // The turns' order: one line, or one per shape where shapes timed different numbers of kernels.
  std::vector<int> timed;
  for (const Shape& s : opt.shapes) {
    int n = 0;
    for (const BenchRow& r : rows) n += same_shape(r.shape, s) && r.method == timing_method(0) && r.t.samples > 0;
    timed.push_back(n);
  }
  if (std::all_of(timed.begin(), timed.end(), [&](int n) { return n == timed.front(); })) {
    if (!timed.empty()) std::printf("kernel order: %s\n", order_note(timed.front(), opt.rounds).c_str());
  } else {
    for (size_t i = 0; i < timed.size(); ++i)
      std::printf("kernel order at %lldx%lldx%lld: %s\n", (long long)opt.shapes[i].m, (long long)opt.shapes[i].n,
                  (long long)opt.shapes[i].k, order_note(timed[i], opt.rounds).c_str());
  }
  for (const Shape& s : opt.shapes)
    for (const double settle_ms : settle) {
      const std::string method = timing_method(settle_ms);
      std::printf("\n%lld x %lld x %lld, %s\n", (long long)s.m, (long long)s.n, (long long)s.k, method.c_str());
      std::printf("  %-22s %-31s %10s %10s %10s %8s %9s %7s\n", key, what, "median ms", "p10 ms", "p90 ms",
                  "TFLOP/s", "% cuBLAS", "% peak");
      for (const BenchRow& r : rows) {
        if (!same_shape(r.shape, s) || r.method != method) continue;
        if (r.t.samples == 0) {
          std::printf("  %-22s %-31s %s\n", r.step.c_str(), r.what.c_str(), "FAILED verification, not timed");
          continue;
        }
        std::printf("  %-22s %-31s %10.4f %10.4f %10.4f %8.1f %8.1f%% %6.1f%%\n", r.step.c_str(), r.what.c_str(),
                    r.t.median_ms, r.t.p10_ms, r.t.p90_ms, r.tflops, r.pct_cublas, r.pct_peak);
      }
    }
}

bool write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows, const char* key,
                     const std::vector<std::string>& extra_columns) {
  std::ofstream csv(path);
  csv << "m,n,k," << key << ",what,method,verified,max_abs_err,median_ms,p10_ms,p90_ms,tflops,pct_cublas,pct_peak";
  for (const std::string& col : extra_columns) csv << ',' << col;
  csv << '\n';
  for (const BenchRow& r : rows) {
    char line[512];
    std::snprintf(line, sizeof line, "%lld,%lld,%lld,%s,\"%s\",%s,%d,%.4g,%.5f,%.5f,%.5f,%.1f,%.1f,%.1f",
                  (long long)r.shape.m, (long long)r.shape.n, (long long)r.shape.k, r.step.c_str(), r.what.c_str(),
                  r.method.c_str(), r.verified ? 1 : 0, r.max_abs_err, r.t.median_ms, r.t.p10_ms, r.t.p90_ms, r.tflops,
                  r.pct_cublas, r.pct_peak);
    csv << line;
    for (size_t i = 0; i < extra_columns.size(); ++i) csv << ',' << (i < r.extra.size() ? r.extra[i] : "");
    csv << '\n';
  }
  return bool(csv);
}

bool write_samples_csv(const std::string& path, const std::vector<BenchSample>& samples, const char* key) {
  std::ofstream raw(path);
  raw << "m,n,k," << key << ",method,round,position,after,index,ms\n";
  for (const BenchSample& x : samples) {
    char line[256];
    std::snprintf(line, sizeof line, "%lld,%lld,%lld,%s,%s,%d,%d,%s,%d,%.5f\n", (long long)x.shape.m,
                  (long long)x.shape.n, (long long)x.shape.k, x.step.c_str(), x.method.c_str(), x.round,
                  x.position, x.after.c_str(), x.index, x.ms);
    raw << line;
  }
  return bool(raw);
}

int bench_main(int argc, char** argv, const std::string& tool, const std::string& extra_help,
               const std::function<int(const BenchOptions&)>& run) {
  const char* name = tool.c_str();
  BenchOptions args;
  try {
    args = parse_bench_options(argc, argv, tool);
  } catch (const UsageError& e) {
    if (std::string(e.what()) == "help") {
      std::printf("%s%s", bench_usage(tool).c_str(), extra_help.c_str());
      return 0;
    }
    std::fprintf(stderr, "%s: error: %s (run with --help for usage)\n", name, e.what());
    return 2;
  }
  try {
    return run(args);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 2;
  } catch (const CudaError& e) {
    std::fprintf(stderr, "%s: CUDA error: %s\n", name, e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 3;
  }
}

}  // namespace hg
