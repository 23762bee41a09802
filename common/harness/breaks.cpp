// common/harness/breaks.cpp: names and descriptions of the contract switches (see breaks.hpp).
#include "common/harness/breaks.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/harness/cli.hpp"

namespace hg {

const std::vector<BreakInfo>& all_breaks() {
  static const std::vector<BreakInfo> kAll = {
      {Break::kNoCtaSync, "no-cta-sync", "both",
       "drop the __syncthreads() between the thread copies and the MMA: it may read a half-written tile",
       "step1_single_tile", "the four warps issue wgmma together, which holds warp 0 until all have copied"},
      {Break::kNoPhaseFlip, "no-phase-flip", "sm100",
       "never flip phase_mma: from the second K tile on, the MMA wait returns before the MMA is done"},
      {Break::kNoWgmmaWait, "no-wgmma-wait", "sm90",
       "drop the K-loop's wgmma.wait_group 0: the next copy or TMA load overwrites SMEM the wgmma still reads",
       "step2_kloop", "the next K tile's copy reads global memory first; the wgmma has read its operands by then"},
      {Break::kSwapTileOffsets, "swap-tile-offsets", "both",
       "write each tile at the transposed tile position (row and column offsets swapped; square grids only)"},
      {Break::kShortExpectTx, "short-expect-tx", "both",
       "announce 2 KiB fewer bytes than the two TMA loads bring: the phase completes before they land"},
      {Break::kNoStoreWait, "no-store-wait", "both",
       "never wait for the TMA store's bulk group: the CTA may exit while the store still reads SMEM",
       "step4_tma step6_persistent", "nothing overwrote a staging tile before its store had read it"},
      {Break::kNoTmaPhaseFlip, "no-tma-phase-flip", "both",
       "never flip phase_tma when the ring wraps: the second use of a stage passes before its load lands"},
      {Break::kResetPhasePerTile, "reset-phase-per-tile", "both",
       "reset stage and phases at every tile (the original's way): wrong unless K_TILES % (2*PIPE_DEPTH) == 0"},
      {Break::kNoEmptyWait, "no-empty-wait", "both",
       "the TMA producer never waits on a stage's empty barrier: it refills stages the MMAs still read"},
      {Break::kNoAccEmptyWait, "no-acc-empty-wait", "sm100",
       "the MMA warp never waits on acc_empty: a tile's MMAs overwrite an accumulator the epilogue still reads"},
      {Break::kOneHalfBytes, "one-half-bytes", "both",
       "the full barrier expects only this CTA's own loads, not the bytes the peer sends: a phase can complete "
       "before the peer's part lands, and those bytes then count towards the next phase"},
      {Break::kNoExitClusterSync, "no-exit-cluster-sync", "both",
       "drop the cluster barrier before exit: a CTA may leave (Blackwell: free its TMEM) while its peer still "
       "sends into its shared memory or arrives on its barriers",
       "step8_cluster step9_multi_consumer step10_stream_k",
       "the pair finishes together; the few late arrivals found no new owner of the SM's shared memory"},
      {Break::kShortEmptyCount, "short-empty-count", "both",
       "a stage's empty barrier expects one consumer per CTA (step 8's count) while two release it: the surplus "
       "arrivals complete the next phase early, and the producer refills a stage the consumers still read"},
      {Break::kNoPartWait, "no-part-wait", "both",
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

std::string hopper_label(const BreakInfo& b, const std::string& step_name) {
  const std::string steps = std::string(" ") + b.passes_on_hopper_in + " ";
  if (step_name.empty() || steps.find(" " + step_name + " ") == std::string::npos) return "";
  return std::string("expected to pass on Hopper: ") + b.passes_on_hopper_why;
}

std::string break_list(const std::vector<Break>& offered, const std::string& step_name) {
  std::string out = step_name + ": contract switches (--break NAME):\n";
  for (Break id : offered) {
    const BreakInfo& b = break_info(id);
    std::string name = b.name, arch = b.arch;
    name.resize(std::max<size_t>(name.size(), 22), ' ');
    arch.resize(7, ' ');
    out += "  " + name + arch + b.what + "\n";
    const std::string label = hopper_label(b, step_name);
    if (!label.empty()) out += std::string(31, ' ') + "(" + label + ")\n";
  }
  return out;
}

}  // namespace hg
