// tools/hgemm_bench.cu: the benchmark ladder. The registry's ladder steps (steps.json) and cuBLAS, timed in
// one process per run on the same rotating random-normal inputs, each step verified before it is timed.
//
//   cmake --preset default && cmake --build build --target hgemm_bench
//   ./build/hgemm_bench --out docs/results      # at default_bench_shapes() (common/harness/bench.hpp)
//   ./build/hgemm_bench --shape 2048x2048x2048 --iters 200  # any shapes the steps accept
//   tools/run_benchmark.sh builds it, runs it three times and combines the runs into their median
//   (tools/ladder_median.py), then redraws the chart and the pages' tables (tools/pages.py).
//   ./build/hgemm_bench --sweep tools/sweep_shapes.csv --steps step9_multi_consumer,step10_stream_k --out run1
//                                               # layers of published models; tools/sweep_summary.py
//                                               # combines runs (add --plan to see the run without a GPU;
//                                               # --sk-forced adds step10_stream_k+split, its split forced,
//                                               # for tools/choose_sk_knobs.py; --tiles 256x192,...
//                                               # adds step11_fitted_tile+256x192, ..., each tile forced,
//                                               # for tools/choose_tile_price.py)
//
// Output: a table on stdout, progress on stderr, <out>/samples.csv (every timed launch, with its turn's place
// in the round and the kernel before it), and <out>/ladder.csv and <out>/ladder.json with the GPU, SM count,
// clocks, driver, CUDA and cuBLAS versions, the date and the timing's settings; with --sweep,
// <out>/sweep_samples.csv, sweep_run.csv (the ladder's columns, then model, layer, source and skipped: the
// rule's reason where a step skips a shape its rule refuses) and sweep_run.json, so that a sweep never
// overwrites the ladder's files.
// Timing: each kernel's launches are spread over interleaved rounds (all kernels take turns) so that clock
// and power drift during the run lands on every kernel alike; the turns run in a balanced order
// (common/harness/order.hpp), so that every kernel's turn follows every other kernel's equally often and none
// always starts from the state one particular neighbour left. Every shape is timed by two methods, one after
// the other: "burst" (no settle launches: what most published GEMM numbers report) and "sustained" (each turn
// starts with --settle-ms of untimed launches of that kernel: on a power-capped GPU a long kernel timed right
// after a slow, low-power one runs at a higher clock than it can hold; docs/results/ladder.csv has both, and
// the README's table shows how far apart they are). Exit codes as the verify binaries:
// 0 all verified, 1 a verification failed (that row is not timed), 2 bad usage, 3 CUDA error, 77 no GPU.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/harness/bench.hpp"
#include "common/kernel/tile_choice.hpp"  // kTilePartPrice, which the run records
// The steps, from the registry (steps.json): each step's kernels are compiled once, into the spec this
// binary links (CMakeLists.txt generates steps.hpp and the specs).
#include "steps.hpp"

// The command line, the verify-then-time run of each shape, the table and the CSV files are the benchmarks'
// shared run (common/harness/bench.hpp); this file adds the ladder's contestants and ladder.json.
namespace {

using hg::json_escape;

/// The steps --steps names (any step of the registry), else the ladder's, in the registry's order.
std::vector<hg::StepSpec> timed_steps(const hg::BenchOptions& args) {
  if (args.steps.empty()) return hg::ladder_steps();
  std::vector<hg::StepSpec> steps;
  for (const hg::StepSpec& step : hg::all_steps())
    if (std::find(args.steps.begin(), args.steps.end(), step.name) != args.steps.end()) steps.push_back(step);
  return steps;
}

/// The contestants: each step at its default ring depth (its binary's; a step without a ring ignores it) with the
/// run's stream-K knobs, and with --sk-forced, after each step that has the knobs, the same step as <step>+split:
/// min_saving_pct and part_cost 0 and no limit on splitting every tile, so it splits wherever the plan can (the
/// knobs' measurement, tools/choose_sk_knobs.py); with --tiles, after each step that has a tile menu, the same step
/// once per tile listed, forced, as <step>+MxN (the heuristic's measurement, tools/choose_tile_price.py).
/// `blackwell` picks the kernels; --plan never calls them.
std::vector<hg::Contestant> contestants(const std::vector<hg::StepSpec>& steps, const hg::BenchOptions& args,
                                        bool blackwell) {
  hg::StreamKKnobs forced = args.stream_k;
  forced.min_saving_pct = 0;
  forced.part_cost = 0;
  // The flag's bound. A split of every tile has fewer than (rounds + 1) x workers tiles: no limit below 10 rounds.
  forced.full_split_max_pct = 1000;
  std::vector<hg::Contestant> out;
  const auto add = [&](const hg::StepSpec& step, const std::string& name, const std::string& label,
                       const hg::StreamKKnobs& knobs, hg::TileRequest tile) {
    const hg::PrepareFn prepare = blackwell ? step.prepare_sm100 : step.prepare_sm90;
    const hg::Variant variant{hg::Break::kNone,
                              step.pipe_depths.empty() ? hg::Variant{}.pipe_depth : step.pipe_depths.front(), knobs,
                              tile};
    out.push_back({name, label,
                   [prepare, variant](const hg::GemmArgs& g) {
                     try {
                       return prepare(g, variant);
                     } catch (const std::invalid_argument& e) {  // a forced tile off the menu: pick_tile's words
                       throw hg::UsageError(std::string("--tiles: ") + e.what());
                     }
                   },
                   {}, step.rule});
  };
  for (const hg::StepSpec& step : steps) {
    add(step, step.name, step.label, args.stream_k, {});
    if (args.sk_forced && step.stream_k_knobs)
      add(step, step.name + std::string("+split"), step.label + std::string(", forced"), forced, {});
    if (step.tile_knob)
      for (const hg::TileRequest& t : args.tiles) {
        const std::string tile = (t.m ? std::to_string(t.m) + "x" : std::string()) + std::to_string(t.n);
        add(step, step.name + ("+" + tile), step.label + (", tile " + tile), args.stream_k, t);
      }
  }
  const auto has = [&](bool hg::StepSpec::*knob) {
    return std::any_of(steps.begin(), steps.end(), [&](const hg::StepSpec& s) { return s.*knob; });
  };
  if (args.sk_forced && !has(&hg::StepSpec::stream_k_knobs))
    throw hg::UsageError("--sk-forced: none of the steps timed has the stream-K split; name one in --steps");
  if (!args.tiles.empty() && !has(&hg::StepSpec::tile_knob))
    throw hg::UsageError("--tiles: none of the steps timed has a tile menu; name one in --steps");
  return out;
}

/// The names --steps chooses from: every step of the registry.
std::vector<std::string> step_names() {
  std::vector<std::string> names;
  for (const hg::StepSpec& step : hg::all_steps()) names.push_back(step.name);
  return names;
}

int run(const hg::BenchOptions& args) {
  const std::vector<hg::StepSpec> steps = timed_steps(args);
  // Before looking for a GPU: each --shape must be one that a step timed admits by its own rule (kTiled, kAny, ...).
  hg::check_bench_shapes(args, contestants(steps, args, false));
  if (args.plan) {  // the plan needs no GPU either
    hg::print_bench_plan(args, contestants(steps, args, false));
    return 0;
  }
  hg::Device dev;
  const std::string no_gpu = hg::find_device(hg::ArchChoice::kAuto, dev);
  if (!no_gpu.empty()) {
    std::printf("hgemm_bench SKIP: %s\n", no_gpu.c_str());
    return 77;
  }
  hg::prepare_bench_run(args);

  const bool blackwell = dev.arch == hg::ArchChoice::kSm100;
  const double peak = hg::dense_fp16_peak(dev.prop);
  hg::Stream stream;
  hg::CublasHandle blas(stream.s);
  std::vector<hg::BenchRow> rows;
  std::vector<hg::BenchSample> samples;  // every timed launch, for <out>/samples.csv
  const std::vector<hg::Contestant> ladder = contestants(steps, args, blackwell);
  hg::BenchProgress progress{0, int(args.shapes.size() * (ladder.size() + 1))};
  bool all_verified = true;
  const bool sweep = !args.sweep.empty();
  for (size_t i = 0; i < args.shapes.size(); ++i) {
    const size_t first = rows.size();
    const bool verified = hg::bench_shape(args.shapes[i], ladder, args, dev, blas.h, stream.s, progress, rows, samples);
    all_verified = all_verified && verified;
    if (sweep)  // the sweep's columns: where the shape comes from, and why a step skipped it
      for (size_t r = first; r < rows.size(); ++r)
        rows[r].extra = {args.sweep[i].model, args.sweep[i].layer, args.sweep[i].source, rows[r].skipped};
  }

  const hg::RunInfo info = hg::collect_run_info(dev);
  hg::print_run_header(dev, info, args);
  hg::print_bench_tables(rows, args, "step", "what it adds");

  // --- CSV and JSON -----------------------------------------------------------------------------------------
  const std::string run_name = sweep ? "sweep_run" : "ladder";
  const std::string csv_path = args.out + "/" + run_name + ".csv", json_path = args.out + "/" + run_name + ".json";
  const bool csv = sweep ? hg::write_bench_csv(csv_path, rows, "step", {"model", "layer", "source", "skipped"})
                         : hg::write_bench_csv(csv_path, rows, "step");
  const std::string samples_path = args.out + (sweep ? "/sweep_samples.csv" : "/samples.csv");
  const bool raw = hg::write_samples_csv(samples_path, samples, "step");
  std::string step_list;
  for (const hg::StepSpec& step : steps)
    step_list += std::string(step_list.empty() ? "" : ", ") + "\"" + step.name + "\"";
  std::string tile_list;  // --tiles, as given
  for (const hg::TileRequest& t : args.tiles)
    tile_list += std::string(tile_list.empty() ? "\"" : ", \"") + (t.m ? std::to_string(t.m) + "x" : "") +
                 std::to_string(t.n) + "\"";
  std::ofstream json(json_path);
  json << "{\n  \"gpu\": \"" << json_escape(dev.prop.name) << "\",\n  \"sm_count\": " << dev.prop.multiProcessorCount
       << ",\n  \"compute_capability\": \"" << dev.prop.major << "." << dev.prop.minor << "\",\n  \"kernel\": \""
       << (blackwell ? "sm100" : "sm90") << "\",\n  \"sm_clock_max_mhz\": " << info.clock_khz / 1000
       << ",\n  \"mem_clock_max_mhz\": " << info.mem_clock_khz / 1000 << ",\n  \"clocks_at_end\": \""
       << json_escape(info.clocks_now) << "\",\n  \"l2_bytes\": " << dev.prop.l2CacheSize << ",\n  \"driver\": \""
       << json_escape(info.driver) << "\",\n  \"driver_cuda_api\": " << info.driver_api << ",\n  \"cuda_runtime\": \""
       << info.cuda << "\",\n  \"cublas\": \"" << info.cublas << "\",\n  \"date_utc\": \"" << info.date
       << "\",\n  \"iters\": " << args.iters << ",\n  \"rounds\": " << args.rounds
       << ",\n  \"kernel_order\": \"balanced\",\n  \"warmup\": " << args.warmup
       << ",\n  \"methods\": {\"burst\": {\"settle_ms\": 0}, \"sustained\": {\"settle_ms\": " << args.settle_ms
       << "}},\n  \"settle_ms\": " << args.settle_ms
       << ",\n  \"dense_fp16_peak_tflops\": " << peak
       << ",\n  \"stream_k\": {\"min_share\": " << args.stream_k.min_share << ", \"rounds\": " << args.stream_k.rounds
       << ", \"min_saving_pct\": " << args.stream_k.min_saving_pct
       << ", \"part_cost\": " << args.stream_k.part_cost
       << ", \"full_split_max_pct\": " << args.stream_k.full_split_max_pct << "}"
       << ",\n  \"sk_forced\": " << (args.sk_forced ? "true" : "false")
       << ",\n  \"tiles_forced\": [" << tile_list << "]"
       << ",\n  \"tile_part_price\": " << hg::kTilePartPrice  // step 11's heuristic (common/kernel/tile_choice.hpp)
       << ",\n  \"steps\": [" << step_list << "]"
       << (sweep ? ",\n  \"sweep\": \"" + json_escape(args.sweep_file) + "\"" : std::string())
       << ",\n  \"csv\": \"" << run_name << ".csv\"\n}\n";
  if (!csv || !json || !raw)
    throw hg::UsageError("cannot write " + csv_path + ", " + json_path + " or " + samples_path);
  std::printf("\nwrote %s, %s and %s\n", csv_path.c_str(), json_path.c_str(), samples_path.c_str());
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return hg::bench_main(argc, argv, "hgemm_bench", "", run, step_names()); }
