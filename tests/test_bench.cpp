// tests/test_bench.cpp: the benchmarks' shared command line and CSV files (common/harness/bench.hpp), which
// hgemm_bench and hg_dips_bench both use (their exit codes on bad input: the cli/ tests).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/harness/bench.hpp"
#include "temp_dir.hpp"

namespace {

hg::BenchOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "tool");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return hg::parse_bench_options(int(argv.size()), argv.data(), "tool");
}

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
  CHECK_THROWS_AS(parse({"--shape", "100x128x64"}), hg::UsageError);
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
