// tests/test_cli.cpp: the command line every verify binary shares (common/harness/cli.hpp).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/temp_dir.hpp"
#include "common/harness/cli.hpp"

namespace fs = std::filesystem;

namespace {

const hg::Shape kDefaults{256, 384, 512};  // deliberately not the library's own defaults

hg::Options parse(std::vector<std::string> args, const hg::Shape& defaults = kDefaults) {
  args.insert(args.begin(), "step_test");
  return hg::parse_cli(args, defaults);
}

// The UsageError message for `args`, or a marker that makes every substring check fail.
std::string usage_error(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const hg::UsageError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<wrong exception type: ") + e.what() + ">";
  }
  return "<no exception>";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Checks that `args` is refused with a one-line message containing every part.
void check_refused(const std::vector<std::string>& args, const std::vector<std::string>& parts) {
  const std::string msg = usage_error(args);
  INFO("message: ", msg);
  CHECK(!contains(msg, "<no exception>"));
  CHECK(!contains(msg, "<wrong exception type"));
  CHECK(!contains(msg, "\n"));
  for (const std::string& part : parts) CHECK_MESSAGE(contains(msg, part), "missing '", part, "'");
}

using TempDir = hg_test::TempDir;

}  // namespace

TEST_CASE("parse_cli: no flags gives the step's default shape and the documented defaults") {
  const hg::Options o = parse({});
  CHECK(o.shape.m == 256);
  CHECK(o.shape.n == 384);
  CHECK(o.shape.k == 512);
  CHECK(o.seed == 1);
  CHECK(o.init == hg::InitMode::kRandom);
  CHECK(o.arch == hg::ArchChoice::kAuto);
  CHECK(o.bench == false);
  CHECK(o.warmup == 10);
  CHECK(o.iters == 100);
  CHECK(o.save_dir.empty());
  CHECK(o.help == false);

  const hg::Options other = parse({}, hg::Shape{128, 128, 64});
  CHECK(other.shape.m == 128);
  CHECK(other.shape.n == 128);
  CHECK(other.shape.k == 64);
}

TEST_CASE("parse_cli: every flag works as '--flag value' and as '--flag=value'") {
  const std::vector<std::string> spaced = {"--m",    "1024",  "--n",    "2048", "--k",     "4096", "--seed",
                                           "12345",  "--init", "int",   "--arch", "sm90",  "--bench",
                                           "--warmup", "0",    "--iters", "7",   "--save", "out/dir"};
  const std::vector<std::string> joined = {"--m=1024",  "--n=2048",    "--k=4096",  "--seed=12345",  "--init=int",
                                           "--arch=sm90", "--bench",   "--warmup=0", "--iters=7", "--save=out/dir"};
  for (const auto& args : {spaced, joined}) {
    const hg::Options o = parse(args);
    CHECK(o.shape.m == 1024);
    CHECK(o.shape.n == 2048);
    CHECK(o.shape.k == 4096);
    CHECK(o.seed == 12345);
    CHECK(o.init == hg::InitMode::kInt);
    CHECK(o.arch == hg::ArchChoice::kSm90);
    CHECK(o.bench);
    CHECK(o.warmup == 0);
    CHECK(o.iters == 7);
    CHECK(o.save_dir == "out/dir");
    CHECK(!o.help);
  }
}

TEST_CASE("parse_cli: accepted values of --init, --arch, the bounds and the full --seed range") {
  CHECK(parse({"--init", "random"}).init == hg::InitMode::kRandom);
  CHECK(parse({"--arch", "auto"}).arch == hg::ArchChoice::kAuto);
  CHECK(parse({"--arch", "sm100"}).arch == hg::ArchChoice::kSm100);
  CHECK(parse({"--arch=sm90"}).arch == hg::ArchChoice::kSm90);

  CHECK(parse({"--m", "1"}).shape.m == 1);
  CHECK(parse({"--n", "1048576"}).shape.n == hg::kMaxDim);
  CHECK(parse({"--k=1048576"}).shape.k == hg::kMaxDim);
  CHECK(parse({"--warmup", "100000"}).warmup == 100000);
  CHECK(parse({"--iters", "1"}).iters == 1);
  CHECK(parse({"--iters", "100000"}).iters == 100000);
  CHECK(parse({}).settle_ms == 0);  // burst unless asked
  CHECK(parse({"--settle-ms", "50"}).settle_ms == 50);
  CHECK(parse({"--settle-ms=0"}).settle_ms == 0);
  CHECK_THROWS_AS(parse({"--settle-ms", "-1"}), hg::UsageError);
  CHECK_THROWS_AS(parse({"--settle-ms", "10001"}), hg::UsageError);
  CHECK(parse({}).repeat == 0);
  CHECK(parse({"--repeat", "2"}).repeat == 2);
  CHECK_THROWS_AS(parse({"--repeat", "-1"}), hg::UsageError);
  CHECK_THROWS_AS(parse({"--repeat", "1001"}), hg::UsageError);
  CHECK(parse({"--seed", "0"}).seed == 0);
  CHECK(parse({"--seed", "18446744073709551615"}).seed == 18446744073709551615ull);
  CHECK(parse({"--m", "0128"}).shape.m == 128);  // leading zeros are still decimal
  // Only the named fields change; the rest keep their defaults.
  const hg::Options o = parse({"--n", "640"});
  CHECK(o.shape.m == 256);
  CHECK(o.shape.n == 640);
  CHECK(o.shape.k == 512);
  // A repeated flag: the last one wins, as in most tools.
  CHECK(parse({"--m", "128", "--m=512"}).shape.m == 512);
}

TEST_CASE("parse_cli: sizes that are not numbers, zero, negative or too large are refused") {
  for (const std::string flag : {"--m", "--n", "--k"}) {
    CAPTURE(flag);
    check_refused({flag, "abc"}, {flag, "expects a positive integer", "'abc'"});
    check_refused({flag + "=abc"}, {flag, "expects a positive integer", "'abc'"});
    check_refused({flag, "12x"}, {flag, "'12x'"});
    check_refused({flag, "1.5"}, {flag, "'1.5'"});
    check_refused({flag, "+5"}, {flag, "'+5'"});
    check_refused({flag, " 5"}, {flag, "' 5'"});
    check_refused({flag, "0x80"}, {flag, "'0x80'"});
    check_refused({flag, "0"}, {flag, "must be between 1 and 1048576", "got 0"});
    check_refused({flag, "-5"}, {flag, "must be between 1 and 1048576", "got -5"});
    check_refused({flag + "=-1"}, {flag, "must be between 1 and 1048576", "got -1"});
    check_refused({flag, "1048577"}, {flag, "must be between 1 and 1048576", "got 1048577"});
    // Beyond uint64: reported as out of range, not as a parse failure and never a crash.
    check_refused({flag, "99999999999999999999999"}, {flag, "must be between", "99999999999999999999999"});
    check_refused({flag, "-99999999999999999999999"}, {flag, "must be between", "-99999999999999999999999"});
  }
}

TEST_CASE("parse_cli: bad --seed, --warmup, --iters values are refused") {
  check_refused({"--seed", "x1"}, {"--seed", "'x1'"});
  check_refused({"--seed", "-1"}, {"--seed", "got -1"});
  check_refused({"--seed", "18446744073709551616"}, {"--seed", "18446744073709551616"});  // 2^64
  check_refused({"--seed=1e3"}, {"--seed", "'1e3'"});

  check_refused({"--warmup", "-1"}, {"--warmup", "must be between 0 and 100000", "got -1"});
  check_refused({"--warmup", "100001"}, {"--warmup", "must be between 0 and 100000", "got 100001"});
  check_refused({"--warmup", "ten"}, {"--warmup", "'ten'"});
  check_refused({"--iters", "0"}, {"--iters", "must be between 1 and 100000", "got 0"});
  check_refused({"--iters=100001"}, {"--iters", "must be between 1 and 100000", "got 100001"});
  check_refused({"--iters", "many"}, {"--iters", "'many'"});
}

TEST_CASE("parse_cli: bad --init and --arch words are refused with the allowed words") {
  check_refused({"--init", "x"}, {"--init must be 'random', 'int' or 'both', got 'x'"});
  check_refused({"--init=Random"}, {"--init", "'Random'"});
  check_refused({"--arch", "sm80"}, {"--arch", "'sm80'", "sm90", "sm100", "auto"});
  check_refused({"--arch=SM90"}, {"--arch", "'SM90'"});
}

TEST_CASE("parse_cli: missing values, values on switches, unknown options and stray arguments are refused") {
  for (const std::string flag : {"--m", "--n", "--k", "--seed", "--init", "--arch", "--warmup", "--iters", "--save"}) {
    CAPTURE(flag);
    check_refused({flag}, {flag + " needs a value"});
    check_refused({flag + "="}, {flag + " needs a value"});
    check_refused({flag, "--bench"}, {flag + " needs a value"});  // the next flag is not a value
  }
  check_refused({"--bench=1"}, {"--bench takes no value"});
  check_refused({"--bench=", "--m", "128"}, {"--bench takes no value"});
  check_refused({"--help=yes"}, {"--help takes no value"});
  check_refused({"--foo"}, {"unknown option '--foo' (run with --help for the list)"});
  check_refused({"--foo=3"}, {"unknown option '--foo'"});
  check_refused({"-m", "128"}, {"unknown option '-m'"});
  check_refused({"--M", "128"}, {"unknown option '--M'"});
  check_refused({"x"}, {"unexpected argument 'x'"});
  check_refused({"--m", "128", "256"}, {"unexpected argument '256'"});
  check_refused({"-"}, {"unexpected argument '-'"});
  check_refused({""}, {"unexpected argument ''"});
}

TEST_CASE("parse_cli: --help and -h return at once, before any other argument is checked") {
  CHECK(parse({"--help"}).help);
  CHECK(parse({"-h"}).help);
  CHECK(parse({"--m", "abc", "--help"}).help);
  CHECK(parse({"--bogus", "-h", "--init", "x"}).help);
  CHECK(parse({"--m", "--help"}).help);  // "--m" alone would be refused
}

TEST_CASE("to_string names the --init and --arch words") {
  CHECK(std::string(hg::to_string(hg::InitMode::kRandom)) == "random");
  CHECK(std::string(hg::to_string(hg::InitMode::kInt)) == "int");
  CHECK(std::string(hg::to_string(hg::ArchChoice::kAuto)) == "auto");
  CHECK(std::string(hg::to_string(hg::ArchChoice::kSm90)) == "sm90");
  CHECK(std::string(hg::to_string(hg::ArchChoice::kSm100)) == "sm100");
}

TEST_CASE("check_shape: kSingleTile takes exactly 128 x 128 x 64") {
  CHECK(hg::check_shape({128, 128, 64}, hg::ShapeRule::kSingleTile, "step1_single_tile").empty());
  CHECK(hg::check_shape({256, 128, 64}, hg::ShapeRule::kSingleTile, "step1_single_tile") ==
        "step1_single_tile computes exactly one 128 x 128 x 64 tile, got M=256 N=128 K=64 "
        "(later steps take other shapes)");
  for (const hg::Shape s : {hg::Shape{128, 256, 64}, hg::Shape{128, 128, 128}, hg::Shape{64, 128, 64}}) {
    const std::string msg = hg::check_shape(s, hg::ShapeRule::kSingleTile, "step1_single_tile");
    CHECK(contains(msg, "exactly one 128 x 128 x 64 tile"));
    CHECK(contains(msg, "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k)));
  }
}

TEST_CASE("check_shape: kSingleOutputTile takes M = N = 128 and K a multiple of 64") {
  const auto rule = hg::ShapeRule::kSingleOutputTile;
  for (int64_t k : {64, 128, 192, 4096}) CHECK(hg::check_shape({128, 128, k}, rule, "step2_k_loop").empty());

  const std::string m_bad = hg::check_shape({256, 128, 64}, rule, "step2_k_loop");
  CHECK(contains(m_bad, "step2_k_loop computes one 128 x 128 output tile: M and N must be 128, got M=256 N=128"));
  const std::string n_bad = hg::check_shape({128, 64, 64}, rule, "step2_k_loop");
  CHECK(contains(n_bad, "M and N must be 128, got M=128 N=64"));
  const std::string k_bad = hg::check_shape({128, 128, 100}, rule, "step2_k_loop");
  CHECK(contains(k_bad, "K must be a multiple of 64"));
  CHECK(contains(k_bad, "K=100"));
  // M is reported before K when both are wrong.
  CHECK(contains(hg::check_shape({64, 128, 100}, rule, "s"), "M and N must be 128"));
}

TEST_CASE("check_shape: kTiled takes M, N multiples of 128 and K a multiple of 64, first broken rule reported") {
  const auto rule = hg::ShapeRule::kTiled;
  for (const hg::Shape s : {hg::Shape{128, 128, 64}, hg::Shape{256, 384, 192}, hg::Shape{8192, 1024, 4096}})
    CHECK(hg::check_shape(s, rule, "step3_tiled").empty());

  CHECK(contains(hg::check_shape({100, 128, 64}, rule, "step3_tiled"),
                 "M must be a multiple of 128 (BLK_M), got M=100"));
  CHECK(contains(hg::check_shape({128, 200, 64}, rule, "step3_tiled"),
                 "N must be a multiple of 128 (BLK_N), got N=200"));
  CHECK(contains(hg::check_shape({128, 128, 96}, rule, "step3_tiled"), "K must be a multiple of 64 (BLK_K), got K=96"));
  CHECK(contains(hg::check_shape({64, 128, 64}, rule, "step3_tiled"), "got M=64"));
  // Order: M, then N, then K.
  CHECK(contains(hg::check_shape({100, 200, 96}, rule, "step3_tiled"), "got M=100"));
  CHECK(contains(hg::check_shape({128, 200, 96}, rule, "step3_tiled"), "got N=200"));
  // Zero is not a multiple a kernel can run (parse_cli refuses it too, but check_shape stands alone).
  CHECK(!hg::check_shape({0, 128, 64}, rule, "step3_tiled").empty());
  CHECK(!hg::check_shape({128, 128, 0}, rule, "step3_tiled").empty());
  // The message is one line; the verify binary puts the step's name in front of it.
  const std::string msg = hg::check_shape({100, 128, 64}, rule, "step3_tiled");
  CHECK(!contains(msg, "\n"));
}

TEST_CASE("check_shape: kAny takes any M and N, and K a multiple of 8 (rows of A and B of 16 bytes for TMA)") {
  const auto rule = hg::ShapeRule::kAny;
  for (const hg::Shape s : {hg::Shape{1, 8, 8}, hg::Shape{100, 136, 8}, hg::Shape{4097, 16, 2056}, hg::Shape{1, 1, 8},
                            hg::Shape{512, 50257, 1600}, hg::Shape{hg::kMaxDim, hg::kMaxDim, hg::kMaxDim}})
    CHECK(hg::check_shape(s, rule, "step11_fitted_tile").empty());
  CHECK(hg::check_shape({128, 128, 100}, rule, "step11_fitted_tile") ==
        "K must be a multiple of 8 and at least 8 (TMA: each row of A and B must be a multiple of 16 bytes), "
        "got K=100");
  CHECK(contains(hg::check_shape({128, 128, 4}, rule, "s"), "got K=4"));
  CHECK(contains(hg::check_shape({128, 128, 0}, rule, "s"), "got K=0"));
  // M and N stand alone too (parse_cli refuses zero already).
  CHECK(hg::check_shape({0, 128, 64}, rule, "s") == "M must be at least 1, got M=0");
  CHECK(hg::check_shape({128, 0, 64}, rule, "s") == "N must be at least 1, got N=0");
  // D's rows need no 16 bytes: an N that is not a multiple of 8 is stored by the threads, not refused.
  CHECK(hg::check_shape({128, 129, 64}, rule, "s").empty());
  // Every shape the tiled rule takes, kAny takes.
  for (const hg::Shape s : {hg::Shape{128, 128, 64}, hg::Shape{256, 384, 192}})
    CHECK(hg::check_shape(s, rule, "s").empty());
}

TEST_CASE("--tile auto|MxN: the tile a step with a menu builds; the step checks its menu") {
  const hg::Options d = parse({});
  CHECK_FALSE(d.tile_given);
  CHECK(d.tile.m == 0);
  CHECK(d.tile.n == 0);
  const hg::Options a = parse({"--tile", "auto"});
  CHECK(a.tile_given);
  CHECK(a.tile.m == 0);
  CHECK(a.tile.n == 0);
  const hg::Options t = parse({"--tile=256x192"});
  CHECK(t.tile_given);
  CHECK(t.tile.m == 256);
  CHECK(t.tile.n == 192);
  const hg::Options edge = parse({"--tile", "1x1024"});
  CHECK(edge.tile.m == 1);
  CHECK(edge.tile.n == 1024);
  const hg::Options w = parse({"--tile", "192"});  // the width alone: the menu's tile of that width
  CHECK(w.tile.m == 0);
  CHECK(w.tile.n == 192);
  for (const char* bad : {"0", "1025", "256x", "x192", "0x192", "256x0", "1025x64", "256x192x64", "-256x192", "256 x 192",
                          "AUTO", "256X192", "99999999999999999999x1"})
    check_refused({"--tile", bad}, {"--tile expects auto, MxN or N with M and N from 1 to 1024", std::string("'") + bad});
  check_refused({"--tile"}, {"--tile needs a value"});
  const std::string menu = hg::usage("step11_demo", "tiles", hg::Shape{128, 128, 64}, {4}, true, true);
  CHECK(contains(menu, "--tile auto|MxN|N"));
  CHECK(contains(menu, "(default auto)"));
  CHECK(!contains(hg::usage("step10_demo", "one tile", hg::Shape{128, 128, 64}, {4}, true), "--tile"));
}

TEST_CASE("prepare_save_dir creates nested directories and accepts an existing one") {
  TempDir tmp("hg_test_cli_");
  const fs::path nested = tmp.path / "a" / "b" / "c";
  REQUIRE(!fs::exists(nested));
  hg::prepare_save_dir(nested.string());
  CHECK(fs::is_directory(nested));
  CHECK(fs::is_empty(nested));  // the write probe is removed again
  hg::prepare_save_dir(nested.string());  // existing directory: fine
  CHECK(fs::is_directory(nested));
}

TEST_CASE("prepare_save_dir refuses a regular file, a path below a file and an empty name") {
  TempDir tmp("hg_test_cli_");
  const fs::path file = tmp.path / "not_a_dir";
  std::ofstream(file) << "x";
  REQUIRE(fs::is_regular_file(file));

  try {
    hg::prepare_save_dir(file.string());
    FAIL("a regular file was accepted as --save directory");
  } catch (const hg::UsageError& e) {
    CHECK(std::string(e.what()) == "--save: '" + file.string() + "' exists and is not a directory");
  }
  CHECK_THROWS_AS(hg::prepare_save_dir((file / "sub").string()), hg::UsageError);
  CHECK_THROWS_WITH_AS(hg::prepare_save_dir(""), doctest::Contains("--save"), hg::UsageError);
}

TEST_CASE("usage() lists every flag, the defaults and the exit codes") {
  const std::string text = hg::usage("step9_demo", "adds nothing", hg::Shape{384, 640, 192});
  for (const char* part : {"step9_demo", "adds nothing", "--m", "--n", "--k", "--seed", "--init", "random|int",
                           "--arch", "auto|sm90|sm100", "--bench", "--warmup", "--iters", "--save", "--help", "-h",
                           "384", "640", "192", "(default 10)", "(default 100)", "(default 1)"})
    CHECK_MESSAGE(contains(text, part), "usage text lacks '", part, "'");
  for (const char* code : {"0 verified", "1 verification failed", "2 bad usage or unsupported shape", "3 CUDA error",
                           "77 no supported GPU"})
    CHECK_MESSAGE(contains(text, code), "usage text lacks exit code '", code, "'");
}

TEST_CASE("usage() names --pipe-depth and its choices only for a step with a ring") {
  const std::string ring = hg::usage("step5_demo", "a ring", hg::Shape{128, 128, 64}, {2, 3, 4});
  CHECK(contains(ring, "--pipe-depth N"));
  CHECK(contains(ring, "2, 3, 4 (default 2)"));
  CHECK(!contains(hg::usage("step4_demo", "no ring", hg::Shape{128, 128, 64}), "--pipe-depth"));
}

TEST_CASE("--sk-*: the stream-K knobs, their defaults from one place, bounds refused by name") {
  const hg::Options d = parse({});
  CHECK(d.stream_k.min_share == hg::StreamKKnobs{}.min_share);
  CHECK(d.stream_k.rounds == hg::StreamKKnobs{}.rounds);
  CHECK(d.stream_k.min_saving_pct == hg::StreamKKnobs{}.min_saving_pct);
  CHECK(d.stream_k.part_cost == hg::StreamKKnobs{}.part_cost);
  CHECK_FALSE(d.stream_k_given);
  const hg::Options o = parse({"--sk-min-share", "100000", "--sk-rounds=0", "--sk-min-saving", "25", "--sk-part-cost", "7"});
  CHECK(o.stream_k_given);
  CHECK(o.stream_k.min_share == 100000);
  CHECK(o.stream_k.rounds == 0);
  CHECK(o.stream_k.min_saving_pct == 25);
  CHECK(o.stream_k.part_cost == 7);
  CHECK(hg::stream_k_text(o.stream_k) == "sk_min_share=100000 sk_rounds=0 sk_min_saving=25 sk_part_cost=7 sk_full_split_max=60");
  check_refused({"--sk-min-share", "0"}, {"--sk-min-share must be between 1 and 1000000, got 0"});
  check_refused({"--sk-rounds", "-1"}, {"--sk-rounds"});
  check_refused({"--sk-min-saving", "101"}, {"--sk-min-saving must be between 0 and 100"});
  check_refused({"--sk-part-cost", "-1"}, {"--sk-part-cost must be between 0 and 1000"});
  CHECK(contains(hg::usage("step10_demo", "split", hg::Shape{128, 128, 64}, {4}, true), "--sk-min-share N"));
  CHECK(!contains(hg::usage("step9_demo", "no split", hg::Shape{128, 128, 64}, {4}), "--sk-"));
}

TEST_CASE("--graph N: replays of a captured launch, bounded like --repeat") {
  CHECK(parse({}).graph == 0);
  CHECK(parse({"--graph", "3"}).graph == 3);
  check_refused({"--graph", "1001"}, {"--graph must be between 0 and 1000"});
  CHECK(contains(hg::usage("s", "x", hg::Shape{128, 128, 64}), "--graph N"));
}

TEST_CASE("--hog-sms N: another kernel holds N SMs; the GPU must keep two CTA pairs free") {
  CHECK(parse({}).hog_sms == 0);  // off
  CHECK(parse({"--hog-sms", "120"}).hog_sms == 120);
  CHECK(parse({"--hog-sms=1024"}).hog_sms == hg::kMaxHogSms);
  check_refused({"--hog-sms", "1025"}, {"--hog-sms must be between 0 and 1024, got 1025"});
  check_refused({"--hog-sms", "-1"}, {"--hog-sms must be between 0 and 1024"});
  check_refused({"--hog-sms", "all"}, {"--hog-sms expects a non-negative integer, got 'all'"});
  CHECK(contains(hg::usage("s", "x", hg::Shape{128, 128, 64}), "--hog-sms N"));
  // Against the GPU's SM count (an H200 has 132): 0 and up to 128 pass, more leave fewer than 4 SMs.
  CHECK(hg::check_hog_sms(0, 132).empty());
  CHECK(hg::check_hog_sms(128, 132).empty());
  CHECK(hg::check_hog_sms(129, 132) ==
        "--hog-sms 129 leaves 3 of this GPU's 132 SMs free; the step needs at least 4 (two CTA pairs): give at most "
        "--hog-sms 128");
  CHECK(contains(hg::check_hog_sms(1024, 132), "leaves 0 of this GPU's 132 SMs free"));
}

TEST_CASE("--init both and --pipe-depth all: several variants in one process") {
  CHECK(parse({"--init", "both"}).init_both);
  CHECK_FALSE(parse({"--init", "both", "--init", "int"}).init_both);  // the last one counts
  CHECK(parse({"--init", "int", "--init=both"}).init_both);
  CHECK(parse({"--pipe-depth", "all"}).pipe_depth == hg::kAllDepths);
  CHECK(hg::resolve_pipe_depths(hg::kAllDepths, {4, 2, 3}, "s") == std::vector<int>{4, 2, 3});  // default first
  CHECK(hg::resolve_pipe_depths(3, {4, 2, 3}, "s") == std::vector<int>{3});
  CHECK(hg::resolve_pipe_depths(0, {4, 2, 3}, "s") == std::vector<int>{4});
  CHECK_THROWS_AS(hg::resolve_pipe_depths(hg::kAllDepths, {}, "step4_tma"), hg::UsageError);
  CHECK_THROWS_AS(hg::resolve_pipe_depths(5, {4, 2, 3}, "s"), hg::UsageError);
  check_refused({"--pipe-depth", "every"}, {"--pipe-depth", "'every'"});
}

TEST_CASE("parse_cli: --pipe-depth takes a small positive integer; the step checks which it offers") {
  CHECK(parse({}).pipe_depth == 0);  // 0: the step's default
  CHECK(parse({"--pipe-depth", "3"}).pipe_depth == 3);
  CHECK(parse({"--pipe-depth=4"}).pipe_depth == 4);
  check_refused({"--pipe-depth", "0"}, {"--pipe-depth", "must be between 1 and 16", "got 0"});
  check_refused({"--pipe-depth", "two"}, {"--pipe-depth", "'two'"});
  check_refused({"--pipe-depth"}, {"--pipe-depth needs a value"});
}

TEST_CASE("resolve_pipe_depth: the step's default, one it offers, or a usage error naming the choices") {
  const std::vector<int> ring = {2, 3, 4};
  CHECK(hg::resolve_pipe_depth(0, ring, "step5_demo") == 2);
  CHECK(hg::resolve_pipe_depth(4, ring, "step5_demo") == 4);
  CHECK(hg::resolve_pipe_depth(0, {3, 2}, "step7_demo") == 3);  // the first offered is the default
  CHECK_THROWS_WITH_AS(hg::resolve_pipe_depth(5, ring, "step5_demo"),
                       "--pipe-depth must be one of 2, 3, 4 for step5_demo, got 5", hg::UsageError);
  // No ring: the flag is refused; without it the kernels get Variant's default and ignore it.
  CHECK(hg::resolve_pipe_depth(0, {}, "step4_demo") == hg::Variant{}.pipe_depth);
  CHECK_THROWS_WITH_AS(hg::resolve_pipe_depth(2, {}, "step4_demo"),
                       "step4_demo has no shared-memory ring: --pipe-depth is for the steps that have one",
                       hg::UsageError);
}
