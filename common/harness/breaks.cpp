// common/harness/breaks.cpp: names and descriptions of the contract switches (see breaks.hpp).
#include "common/harness/breaks.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/harness/cli.hpp"

namespace hg {

const std::vector<BreakInfo>& all_breaks() {
  static const std::vector<BreakInfo> kAll = {
      {Break::kNoCtaSync, "no-cta-sync",
       "drop the __syncthreads() between the thread copies and the MMA: it may read a half-written tile",
       "on the H200 warp 0's wgmma waited for the other warps, so for their copies (seen, not promised by PTX)"},
      {Break::kNoPhaseFlip, "no-phase-flip",
       "never flip phase_mma: from the second K tile on, the MMA wait returns before the MMA is done"},
      {Break::kNoWgmmaWait, "no-wgmma-wait",
       "drop the K-loop's wgmma.wait_group 0: the next copy or TMA load overwrites SMEM the wgmma still reads",
       "the next K tile's copy reads global memory first; presumably the wgmma has read its operands by then"},
      {Break::kSwapTileOffsets, "swap-tile-offsets",
       "write each tile at the transposed tile position (row and column offsets swapped; square grids only)"},
      {Break::kShortExpectTx, "short-expect-tx",
       "announce 2 KiB fewer bytes than the two TMA loads bring: the phase completes before they land"},
      {Break::kNoStoreWait, "no-store-wait",
       "never wait for the TMA store's bulk group: the CTA may exit while the store still reads SMEM",
       "nothing overwrote a staging tile before its store had read it"},
      {Break::kNoTmaPhaseFlip, "no-tma-phase-flip",
       "never flip phase_tma when the ring wraps: the second use of a stage passes before its load lands"},
      {Break::kResetPhasePerTile, "reset-phase-per-tile",
       "reset stage and phases at every tile (the original's way): wrong unless K_TILES % (2*PIPE_DEPTH) == 0"},
      {Break::kNoEmptyWait, "no-empty-wait",
       "the TMA producer never waits on a stage's empty barrier: it refills stages the MMAs still read"},
      {Break::kNoAccEmptyWait, "no-acc-empty-wait",
       "the MMA warp never waits on acc_empty: a tile's MMAs overwrite an accumulator the epilogue still reads"},
      {Break::kOneHalfBytes, "one-half-bytes",
       "the full barrier expects only this CTA's own loads, not the bytes the peer sends: a phase can complete "
       "before the peer's part lands, and those bytes then count towards the next phase"},
      {Break::kNoExitClusterSync, "no-exit-cluster-sync",
       "drop the cluster barrier before exit: a CTA may leave (Blackwell: free its TMEM) while its peer still "
       "sends into its shared memory or arrives on its barriers",
       "the pair finishes together; the few late arrivals found no new owner of the SM's shared memory"},
      {Break::kShortEmptyCount, "short-empty-count",
       "a stage's empty barrier expects one consumer per CTA (step 8's count) while two release it: the surplus "
       "arrivals complete the next phase early, and the producer refills a stage the consumers still read"},
      {Break::kNoPartWait, "no-part-wait",
       "the owner of a split tile adds the other workers' parts without waiting for their flags: it reads a "
       "workspace the parts may not have reached yet (filled with NaN before each launch, so the early reads show)"},
  };
  return kAll;
}

const BreakInfo& break_info(Break id) {
  for (const BreakInfo& b : all_breaks())
    if (b.id == id) return b;
  throw std::out_of_range("no such contract switch");
}

Break resolve_break(const std::string& name, const std::vector<Break>& offered, const std::string& step_name) {
  if (name.empty()) return Break::kNone;
  for (Break id : offered)
    if (break_info(id).name == name) return id;
  std::string choices;
  for (Break id : offered) choices += std::string(choices.empty() ? "" : ", ") + break_info(id).name;
  throw UsageError(step_name + " has no --break '" + name + "'; it offers: " + choices +
                   " (--break list describes them)");
}

const char* break_arch(Break id) {
  const bool sm90 = has_break(KernelArch::kSm90, id), sm100 = has_break(KernelArch::kSm100, id);
  return sm90 && sm100 ? "both" : sm90 ? "sm90" : "sm100";
}

std::string hopper_label(const BreakInfo& b, const std::vector<Break>& tolerated_sm90) {
  if (std::find(tolerated_sm90.begin(), tolerated_sm90.end(), b.id) == tolerated_sm90.end()) return "";
  return std::string("expected to pass on Hopper: ") + b.hopper_why;
}

std::string break_list(const std::vector<Break>& offered, const std::vector<Break>& tolerated_sm90,
                       const std::string& step_name) {
  std::string out = step_name + ": contract switches (--break NAME):\n";
  for (Break id : offered) {
    const BreakInfo& b = break_info(id);
    std::string name = b.name, arch = break_arch(id);
    name.resize(std::max<size_t>(name.size(), 22), ' ');
    arch.resize(7, ' ');
    out += "  " + name + arch + b.what + "\n";
    const std::string label = hopper_label(b, tolerated_sm90);
    if (!label.empty()) out += std::string(31, ' ') + "(" + label + ")\n";
  }
  return out;
}

}  // namespace hg
