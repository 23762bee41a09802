// common/harness/bench.hpp: the benchmark tools' shared run (tools/hgemm_bench.cu, lab/dips_bench.cu): their
// command line, verifying each kernel before it is timed, timing every verified kernel and cuBLAS in
// interleaved rounds by both methods (burst, then sustained), the results table, the CSV files and the run's
// metadata (GPU, clocks, versions, date).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "common/harness/harness.cuh"

namespace hg {

/// One GEMM of a sweep file (--sweep, read_sweep_file): a layer of a published model at a token count.
struct SweepShape {
  Shape shape;                       ///< M = tokens, N = out features, K = in features (nn.Linear is D = A * B^T)
  std::string model, layer, source;  ///< source: the published configuration its sizes come from
  int line = 0;                      ///< its line in the file
};

/// The benchmarks' command line (bench_usage says what each flag does).
struct BenchOptions {
  std::vector<Shape> shapes;  ///< --shape, repeatable, or --sweep's; neither: default_bench_shapes()
  std::string sweep_file;     ///< --sweep FILE
  std::vector<SweepShape> sweep;   ///< its rows, in its order (shapes holds the same shapes)
  std::vector<std::string> steps;  ///< --steps: the steps to time, as named; empty: every step the tool offers
  bool plan = false;               ///< --plan: print what the run would time and skip, then exit (no GPU)
  bool sk_forced = false;          ///< --sk-forced: also time each stream-K step with its split wherever it can
  std::vector<TileRequest> tiles;  ///< --tiles: also time each step with a tile menu once per tile, forced
  int iters = 200, warmup = 10, rounds = 20;
  double settle_ms = 50;  ///< the sustained method: untimed launches of a kernel before its turn in each round
  uint64_t seed = 1;
  std::string out = "bench_out";
  StreamKKnobs stream_k;  ///< --sk-*: the split of the steps that have one (the verify binaries' flags)
};

/// 4096^3, 8192^3, 4096 x 14336 x 4096, 16384 x 4096 x 1024, and the two with a short last round of 256 x 256
/// tiles on 66 pairs: 5120 x 5120 x 2048 and 2304 x 4608 x 8192.
std::vector<Shape> default_bench_shapes();

/// The --help text of a benchmark named `tool`. `step_names`: the steps --steps chooses from (without it the
/// tool times its ladder); empty: a tool of its own kernels (hg_dips_bench), which takes neither --sweep,
/// --steps, --plan, --sk-forced nor --tiles (its CSV has no columns for a sweep's rows).
std::string bench_usage(const std::string& tool, const std::vector<std::string>& step_names = {});

/// Parses argv (argv[0] is the program name); --sweep reads its file. `step_names`: as for bench_usage. Throws
/// UsageError with a one-line reason, or UsageError("help") for --help / -h. Which kernels take each --shape is
/// check_bench_shapes' question.
BenchOptions parse_bench_options(int argc, char** argv, const std::vector<std::string>& step_names = {});

/// The rows of a sweep file: CSV whose first line that is not blank or a # comment names the columns model,
/// layer, m, n, k, tiled, source (in any order); each further such line is one GEMM. tiled: yes or no, whether
/// ShapeRule::kTiled admits the shape (checked: the mark says which rows the tiled steps skip). Fields are not
/// quoted and hold no commas. Throws UsageError "NAME:LINE: reason" for a missing, unknown or repeated column,
/// a row of the wrong width, an empty field, a size that is not an integer from 1 to kMaxDim, a wrong tiled
/// mark, a shape listed twice, or no rows. `name` is the file's name in the messages.
std::vector<SweepShape> parse_sweep(std::istream& in, const std::string& name);
/// parse_sweep of the file at `path` (UsageError if it cannot be read).
std::vector<SweepShape> read_sweep_file(const std::string& path);

/// The main() of a benchmark tool: parses the command line (--help: the usage, then `extra_help`, exit 0; bad
/// usage: exit 2 with the reason), then returns what `run` returns, or exits 2 on a usage error found while
/// running and 3 on a CUDA or other failure, each printed with the tool's name. `step_names`: as for bench_usage.
int bench_main(int argc, char** argv, const std::string& tool, const std::string& extra_help,
               const std::function<int(const BenchOptions&)>& run,
               const std::vector<std::string>& step_names = {});

/// Refuses (UsageError) a shape whose buffers do not fit, and creates the --out directory (make_out_dir).
void prepare_bench_run(const BenchOptions& opt);

/// Creates the directory `out` and its parents; UsageError naming --out if it cannot (a file on the path).
void make_out_dir(const std::string& out);

/// `s` inside a JSON string: its quotes and backslashes escaped (the JSON that hgemm_bench and hgemm_torch_ops write).
std::string json_escape(const std::string& s);

/// Dense fp16 tensor-core peak from NVIDIA's datasheets (no sparsity), TFLOP/s; 0 when unknown.
double dense_fp16_peak(const cudaDeviceProp& p);

/// One kernel a benchmark verifies and times: `prepare` builds its launch for one problem (a step's prepare
/// function with its variant bound, or a launch configuration of the tool's own). `extra`: values of the
/// tool's own CSV columns (write_bench_csv), in order. `rule`: the shapes it accepts; it skips the others.
struct Contestant {
  std::string name, what;
  std::function<Launcher(const GemmArgs&)> prepare;
  std::vector<std::string> extra = {};
  ShapeRule rule = ShapeRule::kTiled;
};

/// Refuses (UsageError) a shape of --shape (or the defaults) that no contestant's rule admits, naming each rule's
/// reason. A sweep's rows are not checked: a row no kernel takes is timed by cuBLAS alone.
void check_bench_shapes(const BenchOptions& opt, const std::vector<Contestant>& contestants);

/// One kernel at one shape by one timing method. Not timed (t.samples == 0) if its verification failed or its
/// rule refuses the shape (`skipped` says why).
struct BenchRow {
  Shape shape;
  std::string step, what, method;
  std::string skipped;  ///< the rule's reason when the kernel skipped this shape, else ""
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

/// One shape: verifies every contestant whose rule admits the shape (the others are skipped with a note on
/// stderr) and then cuBLAS on one random-normal problem, against one reference GEMM (a contestant that fails
/// is reported on stderr and not timed), then times the verified ones and cuBLAS (the baseline, timed either
/// way, last) on rotating inputs in interleaved rounds, burst then sustained. Appends the shape's rows (the
/// contestants and cuBLAS, burst, then the same sustained) to `rows` and every timed launch to `samples`.
/// Returns false if a contestant failed verification.
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

/// --plan: one line per shape (its GFLOP, which contestants time it and which skip it, and why), then the
/// totals: timed launches, their TFLOP and the reference GEMM's, and the settle time. No CUDA call; the
/// contestants' prepare functions are not called.
void print_bench_plan(const BenchOptions& opt, const std::vector<Contestant>& contestants);

/// The GPU line and the timing line above the tables.
void print_run_header(const Device& dev, const RunInfo& info, const BenchOptions& opt);

/// The order of the kernels' turns (order_note: how evenly each turn's predecessors spread; one line per number
/// of kernels timed where shapes differ), then one table per shape and method (a sweep's shapes also name their
/// model and layer). `key`, `what`: the headers of the first two columns ("step", "what it adds").
void print_bench_tables(const std::vector<BenchRow>& rows, const BenchOptions& opt, const char* key,
                        const char* what);

/// The rows as CSV: m,n,k, the column named `key` (the kernel), then what,method,verified,max_abs_err,
/// median_ms,p10_ms,p90_ms,tflops,pct_cublas,pct_peak, then `extra_columns` (a row's BenchRow::extra, empty
/// where it has fewer; quoted where a value holds a comma or a quote). False if it could not be written.
bool write_bench_csv(const std::string& path, const std::vector<BenchRow>& rows, const char* key,
                     const std::vector<std::string>& extra_columns = {});

/// Every timed launch as CSV: m,n,k, the column named `key`, then method,round,position,after,index,ms
/// (position: the turn's place in its round from 0; after: the kernel whose turn ran just before, for round 0's
/// first turn the warm-up's last), a shape's rows in the order the launches ran. False if it could not be
/// written.
bool write_samples_csv(const std::string& path, const std::vector<BenchSample>& samples, const char* key);

}  // namespace hg
