// common/breaks.hpp: contract switches. `--break NAME` runs a deliberately broken variant of a step's
// kernel, to watch a contract fail (DESIGN section 5, rule 7).
//
// Each step kernel is a template on hg::Break. A switch sits at the very line of the contract it breaks,
// as `if constexpr (BREAK != hg::Break::kX) <the line>` (or a constant condition inside an expression), is
// added in the step that introduces the contract and is carried unchanged while the contract stands. The
// normal kernel is the instance with hg::Break::kNone, in which every switch is compiled out.
#pragma once

#include <string>
#include <vector>

namespace hg {

enum class Break : int {
  kNone = 0,
  kNoCtaSync,          ///< step 1: no __syncthreads() between the thread copies and the MMA issue
  kNoPhaseFlip,        ///< step 2, Blackwell: phase_mma is never flipped
  kNoWgmmaWait,        ///< step 2, Hopper: no wgmma.wait_group before the next copy (or the epilogue)
  kSwapTileOffsets,    ///< step 3: the tile is written at the transposed tile position
  kShortExpectTx,      ///< step 4: expect_tx announces 2 KiB fewer bytes than the two loads bring
  kNoStoreWait,        ///< step 4: the TMA store's bulk group is not waited for
  kNoTmaPhaseFlip,     ///< step 5: phase_tma never flips when the ring wraps
  kResetPhasePerTile,  ///< step 6: the original tutorial's per-tile reset of the pipeline state
};

struct BreakInfo {
  Break id;
  const char* name;  ///< the --break argument
  const char* arch;  ///< "sm90", "sm100" or "both": which kernel has the switch
  const char* what;  ///< one line for --break list
};

/// Every switch, in ladder order.
const std::vector<BreakInfo>& all_breaks();

/// The entry of a break (throws std::out_of_range for an id that has none).
const BreakInfo& break_info(Break id);

/// Resolves a --break argument against the switches a step offers. "" gives kNone. Throws UsageError
/// (common/cli.hpp) naming the step's choices when the name is unknown or belongs to another step.
Break resolve_break(const std::string& name, const std::vector<Break>& offered, const std::string& step_name);

/// The text of --break list for a step: one line per switch with its kernel and what it does.
std::string break_list(const std::vector<Break>& offered, const std::string& step_name);

}  // namespace hg
