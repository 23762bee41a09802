// common/kernel/gemm.hpp: what a step kernel shares with the code that runs it.
//
// The problem (Shape, GemmArgs), which instance of a kernel to build (Variant: the real one or a broken
// one, and the ring depth), and what building it returns (a Launcher that only enqueues the kernel).
// A step's kernel header includes this and whichever other headers of common/kernel/ it needs (device helpers,
// the TMA builder, the pair launch, the stream-K plan); nothing of the command line, cuBLAS, the verifier or the
// runner (tests/check_kernel_includes.py checks that). The step's spec, which CMake generates from steps.json, is
// where kernel and harness meet (common/harness/runner.hpp).
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime_api.h>  // cudaStream_t

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/kernel/stream_k.hpp"  // StreamKKnobs

#include "common/kernel/hd.hpp"

namespace hg {

/// GEMM problem size: D (M x N) = A (M x K) * B (N x K)^T.
struct Shape {
  int64_t m = 0, n = 0, k = 0;
};

/// The unit of the shape rules: 128 x 128 outputs, 64 of K per load (64 fp16 = one 128-byte swizzle row). A
/// kernel computes tiles of this size or larger tiles made of them (each kernel names its own).
inline constexpr int64_t kBlkM = 128, kBlkN = 128, kBlkK = 64;

/// Threads of a warpgroup: four contiguous warps (PTX ISA, "Warpgroup"), the unit that issues a wgmma and whose
/// threads own the 128 TMEM lanes, one each, in a Blackwell epilogue.
inline constexpr int kWarpgroupThreads = 128;

/// a / b rounded up, for a count of tiles that may end in a partial one (a >= 0, b > 0).
HG_HD constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// The most shared memory one CTA may use on sm_90 and sm_100: 227 KiB (cudaDevAttrMaxSharedMemoryPerBlockOptin;
/// CUDA C++ Programming Guide, "Technical Specifications per Compute Capability"). Each kernel's shared-memory
/// struct is checked against it, at every ring depth it offers, with the 1024 bytes of alignment slack.
inline constexpr int kMaxSmemBytes = 227 * 1024;

/// One GEMM problem on the device: D (M x N) = A (M x K) * B (N x K)^T, all row-major.
struct GemmArgs {
  const __half* A = nullptr;
  const __half* B = nullptr;
  __half* D = nullptr;
  int m = 0, n = 0, k = 0;
};

/// Contract switches (--break NAME, common/harness/breaks.hpp has their names and descriptions). Each step kernel is
/// a template on Break; a switch sits at the very line of the contract it breaks, as
/// `if constexpr (BREAK != hg::Break::kX) <the line>` (or a constant condition inside an expression). It
/// is added in the step that introduces the contract and carried unchanged while the contract stands. The
/// real kernel is the instance with Break::kNone, in which every switch is compiled out. The values are explicit
/// because they appear in the kernels' mangled names, which the SASS tests read (tests/kernel_code.py). A switch's
/// --break name is its enumerator in kebab case (kNoCtaSync: no-cta-sync); CMake relies on that.
enum class Break : int {
  kNone = 0,
  kNoCtaSync = 1,           ///< step 1: no __syncthreads() between the thread copies and the MMA issue
  kNoPhaseFlip = 2,         ///< step 2, Blackwell: phase_mma is never flipped
  kNoWgmmaWait = 3,         ///< step 2, Hopper: no wgmma.wait_group before the next copy (or TMA load)
  kSwapTileOffsets = 4,     ///< step 3: the tile is written at the transposed tile position
  kShortExpectTx = 5,       ///< step 4: expect_tx announces 2 KiB fewer bytes than the two loads bring
  kNoStoreWait = 6,         ///< step 4: the TMA store's bulk group is not waited for
  kNoTmaPhaseFlip = 7,      ///< step 5: phase_tma never flips when the ring wraps
  kResetPhasePerTile = 8,   ///< step 6: the pipeline state is reset at every tile instead of running on
  kNoEmptyWait = 9,         ///< step 7: the TMA producer does not wait for a stage's "empty" barrier
  kNoAccEmptyWait = 10,     ///< step 7, Blackwell: the MMA does not wait for the epilogue to free an accumulator
  kOneHalfBytes = 11,       ///< step 8: a stage's barrier expects this CTA's own bytes only, not the peer's half
  kNoExitClusterSync = 12,  ///< step 8: no cluster barrier before exit (Blackwell: before freeing TMEM)
  kShortEmptyCount = 13,    ///< step 9: a stage's "empty" barrier keeps step 8's count, one consumer per CTA
  kNoPartWait = 14,         ///< step 10: a split tile's owner reads the parts without waiting for their flags
};

/// The switches that only one architecture's kernel has (every other switch is in both). Declared here once:
/// `--break list`, the verify binary's refusal of the other kernel's switch, the dispatch CMake generates from
/// steps.json and CMake's check that a step's kernels have the switches its entry names all follow these two
/// lists (CMakeLists.txt reads them; keep each on one line).
inline constexpr Break kHopperOnlyBreaks[] = {Break::kNoWgmmaWait};
inline constexpr Break kBlackwellOnlyBreaks[] = {Break::kNoPhaseFlip, Break::kNoAccEmptyWait};

/// The two kernels of a step.
enum class KernelArch { kSm90, kSm100 };

/// Whether the `arch` kernel of a step has the switch `brk` (if the step offers it at all).
constexpr bool has_break(KernelArch arch, Break brk) {
  if (arch == KernelArch::kSm90) {
    for (Break blackwell_only : kBlackwellOnlyBreaks)
      if (blackwell_only == brk) return false;
  } else {
    for (Break hopper_only : kHopperOnlyBreaks)
      if (hopper_only == brk) return false;
  }
  return true;
}

/// The pair tile a run asks for (--tile MxN, the steps whose steps.json entry has the knob "tile"): its rows and
/// columns; m = 0 (--tile N) asks for the menu's tile N columns wide, whatever its rows (they differ between the
/// architectures); 0 x 0 (--tile auto) lets the step's host code choose from the problem (step 11).
struct TileRequest {
  int m = 0, n = 0;
};

/// Which instance of a step's kernel to build, and the run-time knobs of the steps that have them.
struct Variant {
  Break brk = Break::kNone;  ///< the real kernel, or one with a contract switched off
  int pipe_depth = 2;        ///< stages of the shared-memory ring (--pipe-depth); kernels without a ring ignore it
  StreamKKnobs stream_k;     ///< the split of step 10's last round (--sk-*); its steps.json entry says "knobs"
  TileRequest tile;          ///< the tile (--tile); the steps with the knob "tile"
  /// Where a step's host code writes what it chose for this problem (step 11 on Hopper:
  /// "tile=256x192 tile_choice=auto stages=4"), which the result line prints; null: nobody asks.
  std::string* chosen = nullptr;
};

/// Enqueues one launch of a prepared kernel on a stream. Preparing (shared-memory size, grid, tensor maps)
/// happens once, outside any timed region; the launcher only launches.
using Launcher = std::function<void(cudaStream_t)>;

/// Builds the launcher of one instance of a step's kernel for one problem.
using PrepareFn = Launcher (*)(const GemmArgs&, const Variant&);

/// From a run-time --break to a template instance: calls make(std::integral_constant<Break, B>{}) for the B of
/// BREAKS that equals `brk`, so that one kernel is instantiated per switch (make reads the switch as the static
/// member value of its argument's type). The step's dispatch, which CMake generates from its steps.json entry,
/// calls it with the entry's switches. Throws for a switch that is not among them.
template <Break... BREAKS, typename Make>
Launcher dispatch_break(Break brk, Make&& make) {
  Launcher out;
  const bool found = ((brk == BREAKS && (out = make(std::integral_constant<Break, BREAKS>{}), true)) || ...);
  if (!found) throw std::invalid_argument("this kernel has no instance for that --break switch");
  return out;
}

/// The same for the ring depth (--pipe-depth): one instance per depth of DEPTHS.
template <int... DEPTHS, typename Make>
Launcher dispatch_depth(int depth, Make&& make) {
  Launcher out;
  const bool found = ((depth == DEPTHS && (out = make(std::integral_constant<int, DEPTHS>{}), true)) || ...);
  if (!found) {
    std::string offered;
    ((offered += (offered.empty() ? "" : ", ") + std::to_string(DEPTHS)), ...);
    throw std::invalid_argument("PIPE_DEPTH must be one of " + offered + ", got " + std::to_string(depth));
  }
  return out;
}

}  // namespace hg
