// CPU tests of the --break argument handling (common/harness/breaks.hpp) and the watchdog's report formatting
// (common/kernel/watchdog.cuh).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "common/harness/breaks.hpp"
#include "common/harness/cli.hpp"
#include "common/kernel/watchdog.cuh"

using hg::Break;

TEST_CASE("every contract switch has a unique name, a kernel and a description") {
  std::set<std::string> names;
  for (const auto& b : hg::all_breaks()) {
    CHECK(names.insert(b.name).second);
    CHECK(std::string(b.what).size() > 20);
    CHECK(&hg::break_info(b.id) == &b);
    CHECK((hg::has_break(hg::KernelArch::kSm90, b.id) || hg::has_break(hg::KernelArch::kSm100, b.id)));
  }
  CHECK(names.size() == 14);  // one per enumerator of hg::Break after kNone
  CHECK(std::string(hg::break_arch(Break::kNoPhaseFlip)) == "sm100");
  CHECK(std::string(hg::break_arch(Break::kNoAccEmptyWait)) == "sm100");  // Hopper has no TMEM accumulator
  CHECK(std::string(hg::break_arch(Break::kNoWgmmaWait)) == "sm90");
  CHECK(std::string(hg::break_arch(Break::kNoStoreWait)) == "both");
  CHECK_FALSE(hg::has_break(hg::KernelArch::kSm90, Break::kNoAccEmptyWait));
  CHECK_FALSE(hg::has_break(hg::KernelArch::kSm100, Break::kNoWgmmaWait));
}

TEST_CASE("resolve_break: empty means the real kernel, a known name its switch") {
  const std::vector<Break> step2 = {Break::kNoPhaseFlip, Break::kNoWgmmaWait};
  CHECK(hg::resolve_break("", step2, "step2_kloop") == Break::kNone);
  CHECK(hg::resolve_break("no-phase-flip", step2, "step2_kloop") == Break::kNoPhaseFlip);
  CHECK(hg::resolve_break("no-wgmma-wait", step2, "step2_kloop") == Break::kNoWgmmaWait);
}

TEST_CASE("resolve_break: an unknown name, or another step's switch, is a usage error naming the choices") {
  const std::vector<Break> step4 = {Break::kShortExpectTx, Break::kNoStoreWait};
  try {
    hg::resolve_break("no-cta-sync", step4, "step4_tma");  // step 1's switch: its contract is gone in step 4
    FAIL("expected a UsageError");
  } catch (const hg::UsageError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("step4_tma has no --break 'no-cta-sync'") != std::string::npos);
    CHECK(msg.find("short-expect-tx, no-store-wait") != std::string::npos);
    CHECK(msg.find("\n") == std::string::npos);
  }
  CHECK_THROWS_AS(hg::resolve_break("bogus", step4, "step4_tma"), hg::UsageError);
  CHECK_THROWS_AS(hg::resolve_break("list ", step4, "step4_tma"), hg::UsageError);
}

TEST_CASE("break_list: one line per offered switch, with its kernel") {
  const std::string text = hg::break_list({Break::kNoPhaseFlip, Break::kNoWgmmaWait}, {}, "step2_kloop");
  CHECK(text.find("step2_kloop: contract switches") == 0);
  CHECK(text.find("  no-phase-flip         sm100  never flip phase_mma") != std::string::npos);
  CHECK(text.find("  no-wgmma-wait         sm90   drop the K-loop's wgmma.wait_group 0") != std::string::npos);
  CHECK(text.find("no-cta-sync") == std::string::npos);
  CHECK(text.find("expected to pass on Hopper") == std::string::npos);
}

TEST_CASE("break_list: the switches a step's registry entry says an H200 tolerates are labelled, only those") {
  // step 2: no-wgmma-wait passes on Hopper (the label is right under it); no-phase-flip is Blackwell's.
  const std::string step2 =
      hg::break_list({Break::kNoPhaseFlip, Break::kNoWgmmaWait}, {Break::kNoWgmmaWait}, "step2_kloop");
  CHECK(step2.find("no-wgmma-wait         sm90   drop the K-loop's wgmma.wait_group 0") != std::string::npos);
  CHECK(step2.find("(expected to pass on Hopper: the next K tile's copy reads global memory first") !=
        std::string::npos);
  CHECK(step2.find("expected to pass on Hopper") == step2.rfind("expected to pass on Hopper"));  // once
  // step 4 offers the same switch, and there it fails on the H200: its entry does not list it, so no label.
  const std::string step4 =
      hg::break_list({Break::kNoWgmmaWait, Break::kNoStoreWait}, {Break::kNoStoreWait}, "step4_tma");
  CHECK(step4.find("(expected to pass on Hopper: nothing overwrote a staging tile") != std::string::npos);
  CHECK(step4.find("global memory first") == std::string::npos);
  CHECK(hg::hopper_label(hg::break_info(Break::kNoStoreWait), {Break::kNoStoreWait}).find("expected to pass") == 0);
  CHECK(hg::hopper_label(hg::break_info(Break::kNoStoreWait), {Break::kNoCtaSync}).empty());
  CHECK(hg::hopper_label(hg::break_info(Break::kShortExpectTx), {}).empty());
  CHECK(hg::hopper_label(hg::break_info(Break::kNoCtaSync), {Break::kNoCtaSync}).find("wgmma waited for the other warps") !=
        std::string::npos);
}

// A kernel's barrier table, as a ring kernel's prepare function hands it to arm_watchdog.
constexpr hg::BarrierName kRing[] = {{8, 1, "mma_bar"}, {16, 3, "tma_bar"}};

TEST_CASE("watchdog report: barriers are named from the table of the kernel that owns them") {
  CHECK(hg::barrier_name(8, kRing, 2) == "mma_bar");
  CHECK(hg::barrier_name(16, kRing, 2) == "tma_bar[0]");
  CHECK(hg::barrier_name(32, kRing, 2) == "tma_bar[2]");
  CHECK(hg::barrier_name(40, kRing, 2) == "an unnamed mbarrier");  // past the 3 stages of this ring
  CHECK(hg::barrier_name(0, kRing, 2) == "an unnamed mbarrier");   // the TMEM address slot
  CHECK(hg::barrier_name(12, kRing, 2) == "an unnamed mbarrier");  // not on an 8-byte boundary of a barrier
  CHECK(hg::barrier_name(8, nullptr, 0) == "an unnamed mbarrier");
  // A Hopper kernel has no mma_bar: offset 8 is nothing there.
  constexpr hg::BarrierName kHopper[] = {{16, 2, "tma_bar"}};
  CHECK(hg::barrier_name(8, kHopper, 1) == "an unnamed mbarrier");
  CHECK(hg::barrier_name(24, kHopper, 1) == "tma_bar[1]");
}

TEST_CASE("watchdog report: one line with the block, thread, time, barrier and parity") {
  hg::WatchdogReport r;
  r.fired = 1;
  r.block_x = 3;
  r.block_y = 1;
  r.thread = 17;
  r.smem_offset = 24;
  r.phase = 1;
  r.waited_ns = 5000000123ull;
  CHECK(hg::describe_deadlock(r, kRing, 2) ==
        "deadlock: block (3, 1) thread 17 waited 5.0 s for tma_bar[1] (shared offset 24) to complete its phase "
        "of parity 1; the watchdog stopped the kernel");
  // Without a table (nothing armed) the barrier is still located by its offset.
  hg::watchdog_set_names(nullptr, 0);
  CHECK(hg::describe_deadlock(r).find("for an unnamed mbarrier (shared offset 24)") != std::string::npos);
  // The table of the kernel armed last names it.
  hg::watchdog_set_names(kRing, 2);
  CHECK(hg::describe_deadlock(r).find("for tma_bar[1] (shared offset 24)") != std::string::npos);
  hg::watchdog_set_names(nullptr, 0);
  // A global flag (step 10's parts) is named by its index and the value waited for.
  r.flag = 1;
  r.smem_offset = 9;
  r.phase = 4;
  CHECK(hg::describe_deadlock(r, kRing, 2) ==
        "deadlock: block (3, 1) thread 17 waited 5.0 s for global flag 9 to reach 4 (a part of a split tile that "
        "was never published); the watchdog stopped the kernel");
  CHECK(hg::kWatchdogNs == 5000000000ull);
}
