// common/harness/cli.hpp: the command line shared by every step's verify binary.
//
// Parsing is pure host code: it never touches the GPU, so a bad argument is reported (exit code 2)
// before any CUDA call, and the CPU tests can exercise every rule.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/kernel/gemm.hpp"

namespace hg {

/// Thrown for every bad input; `what()` is the one-line reason shown to the user (exit code 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// `random`: fp16 samples of a standard normal distribution (what the benchmarks time).
/// `int`: integers in [-2, 2]; every product and partial sum is exact in fp32, so the check is bit-exact.
enum class InitMode { kRandom, kInt };

/// Which kernel to run. `auto` follows the GPU's compute capability; the others only restrict it.
enum class ArchChoice { kAuto, kSm90, kSm100 };

/// Which shapes a step accepts; every step refuses the others before any GPU work (exit code 2).
enum class ShapeRule {
  kSingleTile,        ///< exactly 128 x 128 x 64 (step 1)
  kSingleOutputTile,  ///< M = N = 128, K a multiple of 64 (step 2)
  kTiled,             ///< M, N multiples of 128 and K a multiple of 64 (steps.json: the tiled steps)
  kAny,               ///< any M, N >= 1; K >= 8 and a multiple of 8, as TMA needs A's and B's rows of 16 bytes
                      ///< (step 11; D's rows need not be: for N not a multiple of 8, its threads store D)
};

/// Largest accepted dimension. Bigger sizes cannot fit in any GPU's memory; the bound also keeps every
/// element count far below 2^63 so that size arithmetic cannot overflow.
inline constexpr int64_t kMaxDim = int64_t(1) << 20;

struct Options {
  Shape shape;                           ///< defaults to the step's natural shape
  uint64_t seed = 1;                     ///< --seed: inputs are a pure function of (seed, mode, index)
  InitMode init = InitMode::kRandom;     ///< --init random|int
  bool init_both = false;                ///< --init both: int, then random, in one process
  ArchChoice arch = ArchChoice::kAuto;   ///< --arch auto|sm90|sm100
  bool bench = false;                    ///< --bench: time the kernel and cuBLAS after verifying
  int warmup = 10;                       ///< --warmup N (>= 0), launches before timing
  int iters = 100;                       ///< --iters N (>= 1), timed launches
  int settle_ms = 0;                     ///< --settle-ms T: untimed launches before each timed turn (0: burst)
  std::string save_dir;                  ///< --save DIR: write A.npy, B.npy, D.npy there
  std::string break_name;                ///< --break NAME: a contract switch (common/harness/breaks.hpp), or "list"
  int pipe_depth = 0;                    ///< --pipe-depth N: stages of the ring (steps with one); 0: default,
                                         ///< kAllDepths: every depth the step offers (--pipe-depth all)
  int repeat = 0;                        ///< --repeat N: N more launches must reproduce the first's bits
  int graph = 0;                         ///< --graph N: one launch captured in a CUDA graph, replayed N times, the same
  int hog_sms = 0;                       ///< --hog-sms N: another kernel holds N SMs during the verified launch
  StreamKKnobs stream_k;                 ///< --sk-min-share, --sk-rounds, --sk-min-saving (steps with the knob)
  bool stream_k_given = false;           ///< whether any --sk-* flag was given
  TileRequest tile;                      ///< --tile auto|MxN (steps with the knob); 0 x 0: auto
  bool tile_given = false;               ///< whether --tile was given
  bool help = false;                     ///< --help: print usage, exit 0
};

/// Largest --hog-sms: the most SMs of any GPU here (an H200 has 132), with room to spare.
inline constexpr int kMaxHogSms = 1024;

/// Parses argv (argv[0] is the program name). Accepts `--flag value` and `--flag=value`.
/// Throws UsageError for unknown flags, missing values, non-numbers, zero, negative or too large sizes,
/// and unknown --init / --arch words. Shape rules of the step are checked separately (check_shape).
Options parse_cli(const std::vector<std::string>& args, const Shape& defaults);

/// An integer flag value bounded to [lo, hi]; throws UsageError naming the flag ("--iters must be between
/// 1 and 100000, got 0", or "--m expects a positive integer, got 'x'"). Shared by every command line here.
int64_t parse_bounded(const std::string& flag, const std::string& text, int64_t lo, int64_t hi);

/// Options::pipe_depth for `--pipe-depth all`.
inline constexpr int kAllDepths = -1;

/// The ring depths to run for --pipe-depth: every one of `offered` for kAllDepths, else the one
/// resolve_pipe_depth gives. Throws UsageError as it does.
std::vector<int> resolve_pipe_depths(int requested, const std::vector<int>& offered, const std::string& step_name);

/// The ring depth to build from --pipe-depth (0: not given): one of `offered` (the step's depths, default
/// first), or the default. A step without a ring (`offered` empty) refuses the flag and gets Variant's
/// default, which its kernels ignore. Throws UsageError naming the choices.
int resolve_pipe_depth(int requested, const std::vector<int>& offered, const std::string& step_name);

/// Returns "" when the step accepts the shape, else the one-line reason naming the rule it breaks.
std::string check_shape(const Shape& shape, ShapeRule rule, const std::string& step_name);

/// The fewest SMs --hog-sms leaves free: two CTA pairs, the least a step's grid needs to make progress (step 10's
/// workers wait for each other's parts; its arrival tickets need two resident pairs).
inline constexpr int kHogFreeSms = 4;

/// Returns "" when --hog-sms `hog_sms` leaves at least kHogFreeSms of the GPU's `sm_count` SMs free, else the
/// one-line reason naming the SM count (exit 2).
std::string check_hog_sms(int hog_sms, int sm_count);

/// Makes sure --save DIR exists (creating it if needed) and is a writable directory; throws UsageError.
void prepare_save_dir(const std::string& dir);

/// The --help text of a step. `pipe_depths`: the ring depths it accepts, default first (empty: no ring, and
/// no --pipe-depth line).
std::string usage(const std::string& step_name, const std::string& what_it_adds, const Shape& defaults,
                  const std::vector<int>& pipe_depths = {}, bool stream_k_knobs = false, bool tile_knob = false);

/// Largest --tile side: far above any tile a kernel offers; the step checks its own menu.
inline constexpr int kMaxTileSide = 1024;

/// --tile's value: "auto" (0 x 0) or MxN with both from 1 to kMaxTileSide. Throws UsageError naming the flag and
/// the form expected.
TileRequest parse_tile(const std::string& text);

/// Parses one --sk-* flag into `knobs` (true), or returns false for another flag. Throws UsageError for a value
/// out of range. Shared by the verify binaries and the benchmark.
bool parse_stream_k_flag(const std::string& flag, const std::string& value, StreamKKnobs& knobs);

/// The --sk-* lines of a --help text.
std::string stream_k_usage();

/// "sk_min_share=4 sk_rounds=1 sk_min_saving=10": the knobs as the result lines print them.
std::string stream_k_text(const StreamKKnobs& knobs);

const char* to_string(InitMode mode);
const char* to_string(ArchChoice arch);

}  // namespace hg
