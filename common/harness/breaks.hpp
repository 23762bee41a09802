// common/harness/breaks.hpp: the names and descriptions of the contract switches. `--break NAME` runs a
// deliberately broken variant of a step's kernel, to watch a contract fail; the switches themselves
// (hg::Break, and how a kernel template uses it) are in common/kernel/gemm.hpp. Harness code: kernels never
// include this.
#pragma once

#include <string>
#include <vector>

#include "common/kernel/gemm.hpp"

namespace hg {

struct BreakInfo {
  Break id;
  const char* name;  ///< the --break argument: the enumerator in kebab case (kNoCtaSync: no-cta-sync)
  const char* what;  ///< one line for --break list
  /// Why an H200 runs the Hopper kernel correctly with this switch, in the steps whose steps.json entry lists it
  /// under tolerated_sm90 ("" if no step does). These switches remove their contract from the machine code (the
  /// sass_break tests show it), yet the hardware's own ordering hides the missing step there. --break list
  /// labels them "expected to pass on Hopper".
  const char* hopper_why = "";
};

/// Which kernel of a step has the switch: "sm90", "sm100" or "both" (from hg::has_break, common/kernel/gemm.hpp).
const char* break_arch(Break id);

/// The label of a switch in a step whose registry entry says which switches the H200 tolerates:
/// "expected to pass on Hopper: <why>", or "" where it should fail.
std::string hopper_label(const BreakInfo& b, const std::vector<Break>& tolerated_sm90);

/// Every switch, in ladder order.
const std::vector<BreakInfo>& all_breaks();

/// The entry of a break (throws std::out_of_range for an id that has none).
const BreakInfo& break_info(Break id);

/// Resolves a --break argument against the switches a step offers. "" gives kNone. Throws UsageError
/// (common/harness/cli.hpp) naming the step's choices when the name is unknown or belongs to another step.
Break resolve_break(const std::string& name, const std::vector<Break>& offered, const std::string& step_name);

/// The text of --break list for a step: one line per switch with its kernel and what it does, and under each
/// switch the H200 tolerates in that step (tolerated_sm90) the label of hopper_label.
std::string break_list(const std::vector<Break>& offered, const std::vector<Break>& tolerated_sm90,
                       const std::string& step_name);

}  // namespace hg
