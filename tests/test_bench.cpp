// tests/test_bench.cpp: the benchmarks' shared command line and CSV files (common/harness/bench.hpp), which
// hgemm_bench and hg_dips_bench both use (their exit codes on bad input: the cli/ tests).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/harness/bench.hpp"
#include "temp_dir.hpp"

namespace {

hg::BenchOptions parse(std::vector<std::string> args, const std::vector<std::string>& steps = {}) {
  args.insert(args.begin(), "tool");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return hg::parse_bench_options(int(argv.size()), argv.data(), steps);
}

std::vector<hg::SweepShape> sweep(const std::string& text) {
  std::istringstream in(text);
  return hg::parse_sweep(in, "s.csv");
}

const char* const kHeader = "model,layer,m,n,k,tiled,source\n";

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("parse_bench_options: defaults, repeated --shape, and the reasons for refusing") {
  const hg::BenchOptions d = parse({});
  CHECK(d.iters == 200);
  CHECK(d.rounds == 20);
  CHECK(d.settle_ms == 50);
  CHECK(d.shapes.size() == hg::default_bench_shapes().size());

  const hg::BenchOptions s = parse({"--shape", "256x128x64", "--shape", "128x256x128", "--iters", "100",
                                    "--rounds", "10", "--settle-ms", "5", "--out", "x"});
  REQUIRE(s.shapes.size() == 2);
  CHECK(s.shapes[1].n == 256);
  CHECK(s.shapes[1].k == 128);
  CHECK(s.iters == 100);
  CHECK(s.rounds == 10);
  CHECK(s.settle_ms == 5);
  CHECK(s.out == "x");

  CHECK_THROWS_WITH_AS(parse({"--help"}), "help", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--iters", "150"}), "--iters 150 is not a multiple of --rounds 20", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--shape"}), "--shape needs a value", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--bogus", "1"}), "unknown option '--bogus'", hg::UsageError);
  CHECK_THROWS_AS(parse({"--shape", "4096x4096"}), hg::UsageError);
  CHECK_THROWS_AS(parse({"--shape", "0x128x64"}), hg::UsageError);
  // A ragged shape parses: which kernels take it is check_bench_shapes' question.
  const hg::BenchOptions ragged = parse({"--shape", "100x136x72"});
  REQUIRE(ragged.shapes.size() == 1);
  CHECK(ragged.shapes[0].m == 100);
  CHECK(ragged.shapes[0].n == 136);
  CHECK(ragged.shapes[0].k == 72);
}

TEST_CASE("check_bench_shapes: a --shape needs one kernel whose own rule takes it; a sweep's rows do not") {
  const auto kernel = [](const char* name, hg::ShapeRule rule) { return hg::Contestant{name, "", {}, {}, rule}; };
  const std::vector<hg::Contestant> tiled = {kernel("step9", hg::ShapeRule::kTiled),
                                             kernel("step10", hg::ShapeRule::kTiled)};
  std::vector<hg::Contestant> both = tiled;
  both.push_back(kernel("step11", hg::ShapeRule::kAny));

  CHECK_NOTHROW(hg::check_bench_shapes(parse({}), tiled));  // the default shapes are tiled
  CHECK_NOTHROW(hg::check_bench_shapes(parse({"--shape", "100x136x72"}), both));
  CHECK_THROWS_WITH_AS(hg::check_bench_shapes(parse({"--shape", "100x136x72"}), tiled),
                       "--shape 100x136x72: no kernel timed takes it; skipped by step9 and step10: M must be a "
                       "multiple of 128 (BLK_M), got M=100",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(hg::check_bench_shapes(parse({"--shape", "128x128x64", "--shape", "100x128x100"}), both),
                       "--shape 100x128x100: no kernel timed takes it; skipped by step9 and step10: M must be a "
                       "multiple of 128 (BLK_M), got M=100; skipped by step11: K must be a multiple of 8 and at "
                       "least 8 (TMA: each row of A and B must be a multiple of 16 bytes), got K=100",
                       hg::UsageError);

  hg_test::TempDir dir("hg_bench_shapes_");
  const std::string file = (dir.path / "s.csv").string();
  std::ofstream(file) << kHeader << "M1,qkv,100,128,64,no,src\n";
  CHECK_NOTHROW(hg::check_bench_shapes(parse({"--sweep", file}, {"step9"}), tiled));  // cuBLAS alone times it
}

TEST_CASE("make_out_dir: --out is created with its parents; a path through a file is refused") {
  hg_test::TempDir dir("hg_bench_out_");
  const std::string nested = (dir.path / "build" / "sweep" / "1").string();
  CHECK_NOTHROW(hg::make_out_dir(nested));
  CHECK(std::filesystem::is_directory(nested));
  CHECK_NOTHROW(hg::make_out_dir(nested));  // already there
  const std::string file = (dir.path / "a_file").string();
  std::ofstream(file) << "x";
  CHECK_THROWS_WITH_AS(hg::make_out_dir(file + "/run"), doctest::Contains("--out: cannot create"), hg::UsageError);
  CHECK_THROWS_WITH_AS(hg::make_out_dir(file), doctest::Contains("--out: cannot create"), hg::UsageError);
}

TEST_CASE("bench_usage: the continuation lines line up under the tool's name") {
  const std::string u = hg::bench_usage("hg_dips_bench");
  CHECK(u.rfind("usage: hg_dips_bench [--shape MxNxK]...", 0) == 0);
  CHECK(u.find("\n                     [--rounds R") != std::string::npos);  // 7 + 13 + 1 spaces
}

TEST_CASE("write_bench_csv: ladder.csv's columns, then the tool's own, empty where a row has none") {
  hg_test::TempDir dir("hg_bench_csv_");
  hg::BenchRow r;
  r.shape = {256, 128, 64};
  r.step = "step6_1cta";
  r.what = "132 CTAs (1/SM)";
  r.method = "burst";
  r.verified = true;
  r.t.samples = 3;
  r.t.median_ms = 0.5;
  r.tflops = 1.5;
  r.extra = {"132", "1"};
  hg::BenchRow blas = r;
  blas.step = "cublas";
  blas.extra = {};
  const std::string path = (dir.path / "x.csv").string();
  REQUIRE(hg::write_bench_csv(path, {r, blas}, "variant", {"grid_ctas", "ctas_per_sm"}));
  const std::string csv = read(path);
  CHECK(csv.rfind("m,n,k,variant,what,method,verified,max_abs_err,median_ms,p10_ms,p90_ms,tflops,pct_cublas,"
                  "pct_peak,grid_ctas,ctas_per_sm\n", 0) == 0);
  CHECK(csv.find("256,128,64,step6_1cta,\"132 CTAs (1/SM)\",burst,1,0,0.50000,0.00000,0.00000,1.5,0.0,0.0,132,1\n") !=
        std::string::npos);
  CHECK(csv.find("256,128,64,cublas,\"132 CTAs (1/SM)\",burst,1,0,0.50000,0.00000,0.00000,1.5,0.0,0.0,,\n") !=
        std::string::npos);

  // Without extra columns: exactly ladder.csv's header.
  REQUIRE(hg::write_bench_csv(path, {r}, "step"));
  CHECK(read(path).rfind("m,n,k,step,what,method,verified,max_abs_err,median_ms,p10_ms,p90_ms,tflops,pct_cublas,"
                         "pct_peak\n", 0) == 0);
  CHECK_FALSE(hg::write_bench_csv((dir.path / "missing" / "x.csv").string(), {r}, "step"));
}

TEST_CASE("write_samples_csv: every timed launch with its round, its turn's position and the kernel before it") {
  hg_test::TempDir dir("hg_samples_csv_");
  const std::string path = (dir.path / "samples.csv").string();
  const hg::BenchSample first{{256, 128, 64}, "step6", "burst", 0, 0, "cublas", 0, 0.5};
  const hg::BenchSample later{{256, 128, 64}, "cublas", "sustained", 3, 2, "step7", 31, 0.25};
  REQUIRE(hg::write_samples_csv(path, {first, later}, "variant"));
  CHECK(read(path) ==
        "m,n,k,variant,method,round,position,after,index,ms\n"
        "256,128,64,step6,burst,0,0,cublas,0,0.50000\n"
        "256,128,64,cublas,sustained,3,2,step7,31,0.25000\n");
  CHECK_FALSE(hg::write_samples_csv((dir.path / "missing" / "x.csv").string(), {first}, "step"));
}

TEST_CASE("parse_sweep: the rows, comments and blank lines skipped, columns in any order") {
  const std::vector<hg::SweepShape> rows = sweep(
      "# a comment\n\nsource,model,layer,k,m,n,tiled\n"
      "cfg.json,M1,qkv,4096,512,6144,yes\n"
      "  cfg.json , M1 , ragged , 4096 , 1000 , 6144 , no \r\n"
      "# another\n");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].shape.m == 512);
  CHECK(rows[0].shape.n == 6144);
  CHECK(rows[0].shape.k == 4096);
  CHECK(rows[0].model == "M1");
  CHECK(rows[0].layer == "qkv");
  CHECK(rows[0].source == "cfg.json");
  CHECK(rows[0].line == 4);
  CHECK(rows[1].shape.m == 1000);
  CHECK(rows[1].layer == "ragged");
  CHECK(rows[1].line == 5);
}

TEST_CASE("parse_sweep: bad content is refused with the file, the line and the reason") {
  const std::string row = "M1,qkv,512,6144,4096,yes,cfg.json\n";
  CHECK_THROWS_WITH_AS(sweep("model,layer,m,n,tiled,source\n" + row),
                       "s.csv:1: the header lacks column 'k' (the columns: model, layer, m, n, k, tiled and source)",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep("model,layer,m,n,k,tiled,source,note\n"),
                       "s.csv:1: unknown column 'note' (the columns: model, layer, m, n, k, tiled and source)",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep("model,layer,m,n,k,k,tiled,source\n"), "s.csv:1: column 'k' appears twice",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + row + "M1,qkv,x12,6144,4096,yes,cfg.json\n"),
                       "s.csv:3: m expects a positive integer, got 'x12'", hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + "M1,qkv,512,0,4096,no,cfg.json\n"),
                       "s.csv:2: n must be between 1 and 1048576, got 0", hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + "M1,qkv,512,6144,4096,yes\n"),
                       "s.csv:2: 6 fields, the header names 7 (fields are not quoted and hold no commas: write ';' "
                       "instead)",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + "M1,qkv,512,6144,4096,yes,\n"), "s.csv:2: source is empty",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + "M1,qkv,512,6144,4096,maybe,cfg.json\n"),
                       "s.csv:2: tiled must be yes or no, got 'maybe'", hg::UsageError);
  // The tiled mark must say what the rule does, either way.
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + "M1,qkv,1000,6144,4096,yes,cfg.json\n"),
                       "s.csv:2: tiled says yes, but M must be a multiple of 128 (BLK_M), got M=1000", hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + "M1,qkv,512,6144,4096,no,cfg.json\n"),
                       "s.csv:2: tiled says no, but the tiled rule admits M=512 N=6144 K=4096 (mark it yes)",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(std::string(kHeader) + row + "M2,attn_out,512,6144,4096,yes,other.json\n"),
                       "s.csv:3: 512x6144x4096 is already on line 2 (M1 qkv): list each shape once and name every "
                       "model it serves in that row",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep("# only a comment\n"),
                       "s.csv: no header line (the columns: model, layer, m, n, k, tiled and source)", hg::UsageError);
  CHECK_THROWS_WITH_AS(sweep(kHeader), "s.csv: no shapes below the header", hg::UsageError);
  CHECK_THROWS_WITH_AS(hg::read_sweep_file("/nonexistent/sweep.csv"),
                       "--sweep: cannot read '/nonexistent/sweep.csv': No such file or directory", hg::UsageError);
}

TEST_CASE("parse_bench_options: --sweep, --steps and --plan") {
  hg_test::TempDir dir("hg_bench_sweep_");
  const std::string file = (dir.path / "s.csv").string();
  std::ofstream(file) << kHeader << "M1,qkv,512,6144,4096,yes,cfg.json\nM1,qkv,1000,6144,4096,no,cfg.json\n";
  const std::vector<std::string> ladder = {"step3_grid", "step9_multi_consumer", "step10_stream_k"};

  const hg::BenchOptions a = parse({"--sweep", file, "--steps", "step10_stream_k,step3_grid", "--plan"}, ladder);
  REQUIRE(a.shapes.size() == 2);  // the file's shapes, in its order
  CHECK(a.shapes[1].m == 1000);
  REQUIRE(a.sweep.size() == 2);
  CHECK(a.sweep_file == file);
  CHECK(a.steps == std::vector<std::string>{"step10_stream_k", "step3_grid"});
  CHECK(a.plan);
  CHECK_FALSE(a.sk_forced);
  CHECK_FALSE(parse({}, ladder).plan);
  CHECK(parse({"--sk-forced", "--steps", "step10_stream_k"}, ladder).sk_forced);
  CHECK_THROWS_WITH_AS(parse({"--sk-forced"}), "unknown option '--sk-forced'", hg::UsageError);

  CHECK_THROWS_WITH_AS(parse({"--steps", "step9"}, ladder),
                       "--steps: no step 'step9' to time; the choices: step3_grid, step9_multi_consumer and "
                       "step10_stream_k",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--steps", "step3_grid,,step10_stream_k"}, ladder),
                       "--steps expects step names separated by commas, got 'step3_grid,,step10_stream_k'",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--steps", "step3_grid,"}, ladder),
                       "--steps expects step names separated by commas, got 'step3_grid,'", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--steps", "step3_grid,step3_grid"}, ladder), "--steps names step3_grid twice",
                       hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--steps", "step3_grid", "--steps", "step10_stream_k"}, ladder),
                       "--steps given twice: name every step in one list", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--sweep", file, "--shape", "256x256x64"}, ladder),
                       "--shape and --sweep exclude each other: the sweep file lists the shapes", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--sweep", file, "--sweep", file}, ladder),
                       "--sweep given twice: one file lists the shapes", hg::UsageError);
  // A tool without ladder steps (hg_dips_bench) takes neither --sweep, --steps nor --plan.
  CHECK_THROWS_WITH_AS(parse({"--steps", "step3_grid"}), "unknown option '--steps'", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--plan"}), "unknown option '--plan'", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--sweep", file}), "unknown option '--sweep'", hg::UsageError);
  CHECK_THROWS_WITH_AS(parse({"--steps", ""}, ladder), "--steps expects step names separated by commas, got ''",
                       hg::UsageError);
}

TEST_CASE("bench_usage: --sweep, --steps and --plan only where the tool times steps, with their names") {
  const std::string with = hg::bench_usage("hgemm_bench", {"step3_grid", "step10_stream_k"});
  CHECK(with.find("[--sweep FILE] [--steps NAME,...] [--plan] [--sk-forced]") != std::string::npos);
  CHECK(with.find("--sk-forced: after each step that has the stream-K knobs") != std::string::npos);
  CHECK(with.find("named as in steps.json:\n  step3_grid, step10_stream_k\n") != std::string::npos);
  const std::string without = hg::bench_usage("hg_dips_bench");
  CHECK(without.find("--sweep") == std::string::npos);
  CHECK(without.find("--steps") == std::string::npos);
  CHECK(without.find("--plan") == std::string::npos);
  CHECK(without.find("--sk-forced") == std::string::npos);
}

TEST_CASE("write_bench_csv: an extra value with a comma or a quote is quoted") {
  hg_test::TempDir dir("hg_bench_quote_");
  hg::BenchRow r;
  r.shape = {1000, 128, 64};
  r.step = "step3_grid";
  r.method = "burst";
  r.extra = {"M1", "M must be a multiple of 128 (BLK_M), got M=1000", "say \"hi\""};
  const std::string path = (dir.path / "x.csv").string();
  REQUIRE(hg::write_bench_csv(path, {r}, "step", {"model", "skipped", "note"}));
  CHECK(read(path).find(",M1,\"M must be a multiple of 128 (BLK_M), got M=1000\",\"say \"\"hi\"\"\"\n") !=
        std::string::npos);
}

// The committed sweep file keeps what the benchmark's claims rest on: layers of three or more public models
// at three or more token counts, enough shapes that the tiled steps run, rows they skip, a source on each.
TEST_CASE("tools/sweep_shapes.csv: parses, and covers models, token counts and both kinds of rows") {
  const std::vector<hg::SweepShape> rows = hg::read_sweep_file(HG_SOURCE_DIR "/tools/sweep_shapes.csv");
  std::set<std::string> models, layers;
  std::set<int64_t> tiled_tokens;
  int tiled = 0, refused = 0;
  for (const hg::SweepShape& r : rows) {
    models.insert(r.model);
    layers.insert(r.layer);
    CHECK_MESSAGE(r.source.find("config.json") != std::string::npos, "line ", r.line, ": ", r.source);
    if (hg::check_shape(r.shape, hg::ShapeRule::kTiled, "").empty()) {
      ++tiled;
      tiled_tokens.insert(r.shape.m);
    } else {
      ++refused;
    }
  }
  CHECK(models.size() >= 3);
  CHECK(tiled_tokens.size() >= 3);
  CHECK(tiled >= 24);
  CHECK(refused >= 1);
  for (const char* layer : {"qkv", "attn_out", "mlp_down", "vocab"}) CHECK_MESSAGE(layers.count(layer), layer);
}
