// common/harness/cli.cpp: the command line shared by every step's verify binary (see cli.hpp).
#include "common/harness/cli.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <system_error>

namespace hg {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// Strict unsigned decimal: digits only, no sign, no spaces, no trailing junk. nullopt on overflow.
std::optional<uint64_t> parse_u64(const std::string& s) {
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 10);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

uint64_t parse_seed(const std::string& flag, const std::string& text) {
  const std::string max = std::to_string(std::numeric_limits<uint64_t>::max());
  const bool negative = text.size() > 1 && text[0] == '-' && all_digits(text.substr(1));
  if (negative) throw UsageError(flag + " must be between 0 and " + max + ", got " + text);
  if (!all_digits(text)) throw UsageError(flag + " expects a non-negative integer, got '" + text + "'");
  const std::optional<uint64_t> value = parse_u64(text);
  if (!value) throw UsageError(flag + " must be between 0 and " + max + ", got " + text);
  return *value;
}

InitMode parse_init(const std::string& text) {
  if (text == "random") return InitMode::kRandom;
  if (text == "int") return InitMode::kInt;
  throw UsageError("--init must be 'random', 'int' or 'both', got '" + text + "'");
}

ArchChoice parse_arch(const std::string& text) {
  if (text == "auto") return ArchChoice::kAuto;
  if (text == "sm90") return ArchChoice::kSm90;
  if (text == "sm100") return ArchChoice::kSm100;
  throw UsageError("--arch must be 'auto', 'sm90' or 'sm100', got '" + text + "'");
}

bool is_help(const std::string& arg) { return arg == "--help" || arg == "-h"; }

// "2, 3, 4"
std::string join(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

std::string shape_text(const Shape& s) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(s.k);
}

}  // namespace

// An integer flag bounded to [lo, hi]. A negative number or an out-of-range one gets the "between"
// message (the user typed a number, just not an allowed one); anything else is not a number at all.
int64_t parse_bounded(const std::string& flag, const std::string& text, int64_t lo, int64_t hi) {
  const char* kind = lo >= 1 ? "a positive integer" : "a non-negative integer";
  const bool negative = text.size() > 1 && text[0] == '-' && all_digits(text.substr(1));
  if (!negative && !all_digits(text))
    throw UsageError(flag + " expects " + kind + ", got '" + text + "'");
  const std::string range = flag + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                            ", got " + text;
  if (negative) throw UsageError(range);
  const std::optional<uint64_t> value = parse_u64(text);
  if (!value || *value < uint64_t(lo) || *value > uint64_t(hi)) throw UsageError(range);
  return int64_t(*value);
}

const char* to_string(InitMode mode) { return mode == InitMode::kInt ? "int" : "random"; }

const char* to_string(ArchChoice arch) {
  switch (arch) {
    case ArchChoice::kSm90: return "sm90";
    case ArchChoice::kSm100: return "sm100";
    case ArchChoice::kAuto: break;
  }
  return "auto";
}

Options parse_cli(const std::vector<std::string>& args, const Shape& defaults) {
  Options opt;
  opt.shape = defaults;
  // --help wins wherever it appears, so a user can always read the help, even next to a typo.
  for (size_t i = 1; i < args.size(); ++i) {
    if (is_help(args[i])) {
      opt.help = true;
      return opt;
    }
  }

  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-')
      throw UsageError("unexpected argument '" + arg + "' (run with --help for the list)");

    std::string flag = arg, value;
    bool has_inline_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos && arg.compare(0, 2, "--") == 0) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_inline_value = true;
    }

    const bool takes_value = flag == "--m" || flag == "--n" || flag == "--k" || flag == "--seed" ||
                             flag == "--init" || flag == "--arch" || flag == "--warmup" || flag == "--iters" ||
                             flag == "--save" || flag == "--break" || flag == "--pipe-depth" ||
                             flag == "--settle-ms" || flag == "--repeat" || flag == "--graph" || flag == "--hog-sms" ||
                             flag == "--sk-min-share" || flag == "--sk-rounds" || flag == "--sk-min-saving" ||
                             flag == "--sk-part-cost" || flag == "--sk-full-split-max" || flag == "--tile";
    const bool is_switch = flag == "--bench" || flag == "--help";
    if (!takes_value && !is_switch) throw UsageError("unknown option '" + flag + "' (run with --help for the list)");

    if (is_switch) {
      if (has_inline_value) throw UsageError(flag + " takes no value");
      if (flag == "--bench") opt.bench = true;  // --help returned before this loop
      continue;
    }

    if (!has_inline_value) {
      // A following "--word" is the next flag, not this flag's value ("--m --n 256").
      if (i + 1 >= args.size() || args[i + 1].compare(0, 2, "--") == 0) throw UsageError(flag + " needs a value");
      value = args[++i];
    }
    if (value.empty()) throw UsageError(flag + " needs a value");

    if (flag == "--m") opt.shape.m = parse_bounded(flag, value, 1, kMaxDim);
    else if (flag == "--n") opt.shape.n = parse_bounded(flag, value, 1, kMaxDim);
    else if (flag == "--k") opt.shape.k = parse_bounded(flag, value, 1, kMaxDim);
    else if (flag == "--seed") opt.seed = parse_seed(flag, value);
    else if (flag == "--init") {
      opt.init_both = value == "both";
      if (!opt.init_both) opt.init = parse_init(value);
    }
    else if (flag == "--arch") opt.arch = parse_arch(value);
    else if (flag == "--warmup") opt.warmup = int(parse_bounded(flag, value, 0, 100000));
    else if (flag == "--iters") opt.iters = int(parse_bounded(flag, value, 1, 100000));
    else if (flag == "--settle-ms") opt.settle_ms = int(parse_bounded(flag, value, 0, 10000));
    else if (flag == "--repeat") opt.repeat = int(parse_bounded(flag, value, 0, 1000));
    else if (flag == "--graph") opt.graph = int(parse_bounded(flag, value, 0, 1000));
    else if (flag == "--hog-sms") opt.hog_sms = int(parse_bounded(flag, value, 0, kMaxHogSms));  // run() checks the GPU
    else if (flag == "--break") opt.break_name = value;  // checked against the step's switches (breaks.hpp)
    else if (parse_stream_k_flag(flag, value, opt.stream_k)) opt.stream_k_given = true;  // the step checks it has them
    else if (flag == "--tile") {  // the step checks it has the knob, and its menu
      opt.tile = parse_tile(value);
      opt.tile_given = true;
    }
    else if (flag == "--pipe-depth" && value == "all") opt.pipe_depth = kAllDepths;
    else if (flag == "--pipe-depth") opt.pipe_depth = int(parse_bounded(flag, value, 1, 16));  // the step checks it
    else opt.save_dir = value;  // --save
  }
  return opt;
}

bool parse_stream_k_flag(const std::string& flag, const std::string& value, StreamKKnobs& knobs) {
  if (flag == "--sk-min-share") knobs.min_share = int(parse_bounded(flag, value, 1, 1000000));
  else if (flag == "--sk-rounds") knobs.rounds = int(parse_bounded(flag, value, 0, 1000));
  else if (flag == "--sk-min-saving") knobs.min_saving_pct = int(parse_bounded(flag, value, 0, 100));
  else if (flag == "--sk-part-cost") knobs.part_cost = int(parse_bounded(flag, value, 0, 1000));
  else if (flag == "--sk-full-split-max") knobs.full_split_max_pct = int(parse_bounded(flag, value, 0, 1000));
  else return false;
  return true;
}

std::string stream_k_usage() {
  const StreamKKnobs d;
  std::ostringstream out;
  out << "  --sk-min-share N        stream-K: the shortest share of a worker, in K tiles, 1 to 1000000; larger\n"
      << "                          than any tile's K tiles turns the split off (default " << d.min_share << ")\n"
      << "  --sk-rounds N           stream-K: whole rounds of tiles added to the split region, 0 to 1000\n"
      << "                          (default " << d.rounds << ")\n"
      << "  --sk-min-saving P       stream-K: split only if the longest worker gets P% shorter, 0 to 100\n"
      << "                          (default " << d.min_saving_pct << ")\n"
      << "  --sk-part-cost N        stream-K: a part written or read costs its worker N K tiles in the plan,\n"
      << "                          0 to 1000 (default " << d.part_cost << ")\n"
      << "  --sk-full-split-max P   stream-K: split every tile only if the tiles are at most P% of the workers,\n"
      << "                          0 to 1000 (default " << d.full_split_max_pct << ")\n";
  return out.str();
}

TileRequest parse_tile(const std::string& text) {
  if (text == "auto") return {};
  const std::string expected = "--tile expects auto, MxN or N with M and N from 1 to " +
                               std::to_string(kMaxTileSide) + " (e.g. 256x192, or 192: the menu's tile 192 wide), got '" +
                               text + "'";
  const auto in_range = [](const std::optional<uint64_t>& v) { return v && *v >= 1 && *v <= uint64_t(kMaxTileSide); };
  const size_t x = text.find('x');
  if (x == std::string::npos) {  // N alone: the width, whatever the architecture's tile height
    const std::optional<uint64_t> cols = all_digits(text) ? parse_u64(text) : std::nullopt;
    if (!in_range(cols)) throw UsageError(expected);
    return {0, int(*cols)};
  }
  const std::string m = text.substr(0, x), n = text.substr(x + 1);
  if (!all_digits(m) || !all_digits(n)) throw UsageError(expected);
  const std::optional<uint64_t> rows = parse_u64(m), cols = parse_u64(n);
  if (!in_range(rows) || !in_range(cols)) throw UsageError(expected);
  return {int(*rows), int(*cols)};
}

std::string stream_k_text(const StreamKKnobs& knobs) {
  return "sk_min_share=" + std::to_string(knobs.min_share) + " sk_rounds=" + std::to_string(knobs.rounds) +
         " sk_min_saving=" + std::to_string(knobs.min_saving_pct) + " sk_part_cost=" + std::to_string(knobs.part_cost) +
         " sk_full_split_max=" + std::to_string(knobs.full_split_max_pct);
}

std::vector<int> resolve_pipe_depths(int requested, const std::vector<int>& offered, const std::string& step_name) {
  if (requested != kAllDepths) return {resolve_pipe_depth(requested, offered, step_name)};
  if (offered.empty())
    throw UsageError(step_name + " has no shared-memory ring: --pipe-depth is for the steps that have one");
  return offered;
}

int resolve_pipe_depth(int requested, const std::vector<int>& offered, const std::string& step_name) {
  if (offered.empty()) {
    if (requested != 0)
      throw UsageError(step_name + " has no shared-memory ring: --pipe-depth is for the steps that have one");
    return Variant{}.pipe_depth;
  }
  if (requested == 0) return offered.front();
  for (int d : offered)
    if (d == requested) return d;
  throw UsageError("--pipe-depth must be one of " + join(offered) + " for " + step_name + ", got " +
                   std::to_string(requested));
}

std::string check_shape(const Shape& s, ShapeRule rule, const std::string& step_name) {
  const auto multiple = [](int64_t v, int64_t of) { return v > 0 && v % of == 0; };
  switch (rule) {
    case ShapeRule::kSingleTile:
      if (s.m != kBlkM || s.n != kBlkN || s.k != kBlkK)
        return step_name + " computes exactly one 128 x 128 x 64 tile, got " + shape_text(s) +
               " (later steps take other shapes)";
      return "";
    case ShapeRule::kSingleOutputTile:
      if (s.m != kBlkM || s.n != kBlkN)
        return step_name + " computes one 128 x 128 output tile: M and N must be 128, got M=" + std::to_string(s.m) +
               " N=" + std::to_string(s.n) + " (later steps take other shapes)";
      if (!multiple(s.k, kBlkK))
        return "K must be a multiple of 64 (BLK_K), got K=" + std::to_string(s.k);
      return "";
    case ShapeRule::kTiled:
      if (!multiple(s.m, kBlkM))
        return "M must be a multiple of 128 (BLK_M), got M=" + std::to_string(s.m);
      if (!multiple(s.n, kBlkN))
        return "N must be a multiple of 128 (BLK_N), got N=" + std::to_string(s.n);
      if (!multiple(s.k, kBlkK))
        return "K must be a multiple of 64 (BLK_K), got K=" + std::to_string(s.k);
      return "";
    case ShapeRule::kAny:
      if (s.m < 1) return "M must be at least 1, got M=" + std::to_string(s.m);
      if (s.n < 1) return "N must be at least 1, got N=" + std::to_string(s.n);
      if (!multiple(s.k, 8))
        return "K must be a multiple of 8 and at least 8 (TMA: each row of A and B must be a multiple of 16 bytes), "
               "got K=" + std::to_string(s.k);
      return "";
  }
  return step_name + ": unknown shape rule (this is a bug in the step)";
}

std::string check_hog_sms(int hog_sms, int sm_count) {
  if (hog_sms <= sm_count - kHogFreeSms) return "";
  return "--hog-sms " + std::to_string(hog_sms) + " leaves " + std::to_string(std::max(sm_count - hog_sms, 0)) +
         " of this GPU's " + std::to_string(sm_count) + " SMs free; the step needs at least " +
         std::to_string(kHogFreeSms) + " (two CTA pairs): give at most --hog-sms " +
         std::to_string(std::max(sm_count - kHogFreeSms, 0));
}

void prepare_save_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) throw UsageError("--save needs a directory name");
  const fs::path path(dir);
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) throw UsageError("--save: '" + dir + "' exists and is not a directory");
  } else if (!fs::create_directories(path, ec) && ec) {
    throw UsageError("--save: cannot create directory '" + dir + "': " + ec.message() + " (choose another directory)");
  }

  // Only an actual write tells whether the directory is writable (permissions, read-only mounts, quotas).
  const fs::path probe = path / ".hg_write_probe";
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (!f) {
    const int err = errno;
    throw UsageError("--save: cannot write into '" + dir + "': " + std::strerror(err) +
                     " (choose a writable directory)");
  }
  std::fclose(f);
  fs::remove(probe, ec);
}

std::string usage(const std::string& step_name, const std::string& what_it_adds, const Shape& defaults,
                  const std::vector<int>& pipe_depths, bool stream_k_knobs, bool tile_knob) {
  const Options d;  // the defaults of everything but the shape
  std::ostringstream out;
  out << step_name << ": " << what_it_adds << "\n"
      << "Computes D (M x N, fp16) = A (M x K, fp16) * B (N x K, fp16)^T with fp32 accumulation,\n"
      << "checks it against a reference GEMM and prints one summary line.\n"
      << "\n"
      << "usage: " << step_name << " [options]   (each option as '--flag value' or '--flag=value')\n"
      << "  --m M                   rows of A and D (default " << defaults.m << ")\n"
      << "  --n N                   rows of B, columns of D (default " << defaults.n << ")\n"
      << "  --k K                   columns of A and B (default " << defaults.k << ")\n"
      << "  --seed S                seed of the inputs, 0 to 2^64-1 (default " << d.seed << ")\n"
      << "  --init random|int|both  inputs: standard normal samples, or integers in [-2, 2] whose result\n"
      << "                          is checked bit for bit; both: int, then random (default "
      << to_string(d.init) << ")\n"
      << "  --arch auto|sm90|sm100  kernel to run; auto follows the GPU (default " << to_string(d.arch) << ")\n"
      << "  --bench                 after verifying, time the kernel and cuBLAS (default off)\n"
      << "  --warmup N              untimed launches before timing, 0 to 100000 (default " << d.warmup << ")\n"
      << "  --iters N               timed launches, 1 to 100000 (default " << d.iters << ")\n"
      << "  --settle-ms T           with --bench: T ms of untimed launches before each timed turn, 0 to\n"
      << "                          10000; 0 times a burst, more the clock a long job holds (default "
      << d.settle_ms << ")\n"
      << "  --repeat N              after verifying, launch N more times, 0 to 1000: every output bit must\n"
      << "                          equal the first launch's (default 0)\n"
      << "  --graph N               after verifying, capture one launch into a CUDA graph and replay it N\n"
      << "                          times, 0 to 1000: every output bit must equal the first launch's (default 0)\n"
      << "  --hog-sms N             another kernel holds N SMs, 0 to " << kMaxHogSms << ", while the verified launch\n"
      << "                          runs: it must finish on the SMs left, at least " << kHogFreeSms
      << " (default 0: off)\n"
      << "  --save DIR              write A.npy, B.npy and D.npy (fp16) into DIR (default: no files)\n"
      << "  --break NAME            run a deliberately broken variant of the kernel; --break list names them\n";
  if (!pipe_depths.empty())
    out << "  --pipe-depth N|all      stages of the shared-memory ring: " << join(pipe_depths) << " (default "
        << pipe_depths.front() << "); all: each in turn\n";
  if (stream_k_knobs) out << stream_k_usage();
  if (tile_knob)
    out << "  --tile auto|MxN|N       the pair tile, M rows by N columns, each 1 to " << kMaxTileSide
        << "; N alone: the menu's\n"
        << "                          tile N wide; the step offers a menu and refuses the others; auto: the step\n"
        << "                          chooses from the problem (default auto)\n";
  out
      << "  --help, -h              print this help and exit\n"
      << "With --init both" << (pipe_depths.empty() ? "" : " or --pipe-depth all")
      << ", each variant runs in turn in this process and prints its\n"
      << "line; the exit code is the worst of them (--bench takes one --init, --save one variant).\n"
      << "Sizes range from 1 to " << kMaxDim << "; the step may accept fewer shapes.\n"
      << "\n"
      << "exit codes: 0 verified, 1 verification failed, 2 bad usage or unsupported shape, 3 CUDA error,\n"
      << "            77 no supported GPU\n";
  return out.str();
}

}  // namespace hg
