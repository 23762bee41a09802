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
  const char* name;  ///< the --break argument
  const char* arch;  ///< "sm90", "sm100" or "both": which kernel has the switch
  const char* what;  ///< one line for --break list
  /// Steps whose Hopper kernel an H200 ran correctly with this switch ("" if none), and why: these switches
  /// remove their contract from the machine code (the sass_break tests show it), yet the hardware's own
  /// ordering hides the missing step there. --break list labels them "expected to pass on Hopper".
  const char* passes_on_hopper_in = "";
  const char* passes_on_hopper_why = "";
};

/// The label of a switch in a step: "expected to pass on Hopper: <why>", or "" where it should fail.
std::string hopper_label(const BreakInfo& b, const std::string& step_name);

/// Every switch, in ladder order.
const std::vector<BreakInfo>& all_breaks();

/// The entry of a break (throws std::out_of_range for an id that has none).
const BreakInfo& break_info(Break id);

/// Resolves a --break argument against the switches a step offers. "" gives kNone. Throws UsageError
/// (common/harness/cli.hpp) naming the step's choices when the name is unknown or belongs to another step.
Break resolve_break(const std::string& name, const std::vector<Break>& offered, const std::string& step_name);

/// The text of --break list for a step: one line per switch with its kernel and what it does.
std::string break_list(const std::vector<Break>& offered, const std::string& step_name);

}  // namespace hg
