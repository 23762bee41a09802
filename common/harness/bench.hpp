// common/harness/bench.hpp: the benchmark tools' shared run (tools/hgemm_bench.cu, lab/dips_bench.cu): their
// command line, verifying each kernel before it is timed, timing every verified kernel and cuBLAS in
// interleaved rounds by both methods (burst, then sustained), the results table, the CSV files and the run's
// metadata (GPU, clocks, versions, date).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/harness/harness.cuh"

namespace hg {

/// The benchmarks' command line (bench_usage says what each flag does).
struct BenchOptions {
  std::vector<Shape> shapes;  ///< --shape, repeatable; empty on the command line: default_bench_shapes()
  int iters = 200, warmup = 10, rounds = 20;
  double settle_ms = 50;  ///< the sustained method: untimed launches of a kernel before its turn in each round
  uint64_t seed = 1;
  std::string out = "bench_out";
  StreamKKnobs stream_k;  ///< --sk-*: the split of the steps that have one (the verify binaries' flags)
};

/// 4096^3, 8192^3, 4096 x 14336 x 4096, 16384 x 4096 x 1024, and the two with a short last round of 256 x 256
/// tiles on 66 pairs: 5120 x 5120 x 2048 and 2304 x 4608 x 8192.
std::vector<Shape> default_bench_shapes();

/// The --help text of a benchmark named `tool`.
std::string bench_usage(const std::string& tool);

/// Parses argv (argv[0] is the program name). Throws UsageError with a one-line reason, or
/// UsageError("help") for --help / -h.
BenchOptions parse_bench_options(int argc, char** argv, const std::string& tool);

/// The main() of a benchmark tool: parses the command line (--help: the usage, then `extra_help`, exit 0; bad
/// usage: exit 2 with the reason), then returns what `run` returns, or exits 2 on a usage error found while
/// running and 3 on a CUDA or other failure, each printed with the tool's name.
int bench_main(int argc, char** argv, const std::string& tool, const std::string& extra_help,
               const std::function<int(const BenchOptions&)>& run);

/// Refuses (UsageError) a shape whose buffers do not fit, and creates the --out directory.
void prepare_bench_run(const BenchOptions& opt);

/// Dense fp16 tensor-core peak from NVIDIA's datasheets (no sparsity), TFLOP/s; 0 when unknown.
double dense_fp16_peak(const cudaDeviceProp& p);

/// One kernel a benchmark verifies and times: `prepare` builds its launch for one problem (a step's prepare
/// function with its variant bound, or a launch configuration of the tool's own). `extra`: values of the
/// tool's own CSV columns (write_bench_csv), in order.
struct Contestant {
  std::string name, what;
  std::function<Launcher(const GemmArgs&)> prepare;
  std::vector<std::string> extra = {};
};

/// One kernel at one shape by one timing method. Not timed (t.samples == 0) if its verification failed.
struct BenchRow {
  Shape shape;
  std::string step, what, method;
  bool verified = false;
  double max_abs_err = 0;
  TimingStats t;
  double tflops = 0, pct_cublas = 0, pct_peak = 0;
  std::vector<std::string> extra = {};
};

/// One timed launch: which kernel, in which interleaved round, the turn's position in that round and the
/// kernel whose turn ran just before it (round_order, turn_before: order.hpp), and the launch's index among
/// that kernel's launches.
struct BenchSample {
  Shape shape;
  std::string step, method;
  int round = 0, position = 0;
  std::string after;
  int index = 0;
  double ms = 0;
};

/// The "[ 3/20] 4096x4096x4096 step6 verify" lines on stderr.
struct BenchProgress {
  int done = 0, total = 0;
  void operator()(const Shape& s, const char* who, const char* what);
};

/// One shape: verifies every contestant and then cuBLAS on one random-normal problem (a contestant that
/// fails is reported on stderr and not timed), then times the verified ones and cuBLAS (the baseline, timed
/// either way, last) on rotating inputs in interleaved rounds, burst then sustained. Appends the shape's
/// rows (the contestants and cuBLAS, burst, then the same sustained) to `rows` and every timed launch to
/// `samples`. Returns false if a contestant failed verification.
bool bench_shape(const Shape& s, const std::vector<Contestant>& contestants, const BenchOptions& opt,
                 const Device& dev, cublasHandle_t blas, cudaStream_t stream, BenchProgress& progress,
                 std::vector<BenchRow>& rows, std::vector<BenchSample>& samples);

/// What the run was measured on: versions, clocks and the date.
struct RunInfo {
  int runtime = 0, driver_api = 0, clock_khz = 0, mem_clock_khz = 0;
  std::string driver;      ///< from nvidia-smi, "" if it cannot run
  std::string clocks_now;  ///< SM and memory clocks from nvidia-smi, at the end of the run
  std::string date;        ///< UTC, ISO 8601
  std::string cuda, cublas;
};
RunInfo collect_run_info(const Device& dev);

/// The GPU line and the timing line above the tables.
void print_run_header(const Device& dev, const RunInfo& info, const BenchOptions& opt);

/// The order of the kernels' turns (order_note: how evenly each turn's predecessors spread), then one table per
/// shape and method. `key`, `what`: the headers of the first two columns ("step", "what it adds").
void print_bench_tables(const std::vector<BenchRow>& rows, const BenchOptions& opt, const char* key,
                        const char* what);

/// The rows as CSV: m,n,k, the column named `key` (the kernel), then what,method,verified,max_abs_err,
/// median_ms,p10_ms,p90_ms,tflops,pct_cublas,pct_peak, then `extra_columns` (a row's BenchRow::extra, empty
/// where it has fewer). False if it could not be written.
bool write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows, const char* key,
                     const std::vector<std::string>& extra_columns = {});

/// Every timed launch as CSV: m,n,k, the column named `key`, then method,round,position,after,index,ms
/// (position: the turn's place in its round from 0; after: the kernel whose turn ran just before, for round 0's
/// first turn the warm-up's last), a shape's rows in the order the launches ran. False if it could not be
/// written.
bool write_samples_csv(const std::string& path, const std::vector<BenchSample>& samples, const char* key);

}  // namespace hg
