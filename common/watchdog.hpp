// common/watchdog.hpp: what a timed-out mbarrier wait leaves behind, and how it is reported.
//
// Every mbarrier wait of the step kernels goes through hg::mbarrier_wait_parity (common/ptx.cuh). If a
// wait has not completed after kWatchdogSeconds (read from %globaltimer), the waiting thread fills a
// WatchdogReport in host-mapped memory and traps, so a broken protocol ends the kernel instead of hanging
// the GPU. The trap leaves the CUDA context unusable, but the report lives in host memory and can still be
// read; the verify binary prints describe_deadlock() and exits 3.
#pragma once

#include <cstdint>
#include <string>

namespace hg {

#ifndef HG_WATCHDOG_SECONDS
#define HG_WATCHDOG_SECONDS 5
#endif
/// Longer than any wait of a correct kernel (the longest whole kernel here runs for milliseconds, and
/// even under compute-sanitizer a single wait stays far below this), short enough to stop a hang quickly.
inline constexpr uint64_t kWatchdogNs = uint64_t(HG_WATCHDOG_SECONDS) * 1000000000ull;

struct WatchdogReport {
  uint32_t fired = 0;        ///< set (once) by the first thread that times out
  uint32_t block_x = 0, block_y = 0;
  uint32_t thread = 0;       ///< threadIdx.x of that thread
  uint32_t smem_offset = 0;  ///< the barrier's offset from the 1024-aligned shared-memory base
  uint32_t phase = 0;        ///< the parity it waited for
  uint64_t waited_ns = 0;
};

/// The report, in host memory mapped into the device's address space (allocated on first use; defined in
/// common/harness.cu). The kernels get the device address through hg::arm_watchdog (common/ptx.cuh).
WatchdogReport* watchdog_device_report();
/// The same report seen from the host, or nullptr if it was never allocated.
const volatile WatchdogReport* watchdog_host_report();

/// Name of the barrier at a shared-memory offset, from the map every step uses (hgemm_*.cuh):
/// 8 -> "mma_bar", 16 + 8s -> "tma_bar[s]".
std::string barrier_name(uint32_t smem_offset);

/// "deadlock: block (3, 0) thread 0 waited 5.0 s for mma_bar (shared offset 8) to complete its phase of
/// parity 1; the watchdog stopped the kernel"
std::string describe_deadlock(const WatchdogReport& r);

}  // namespace hg
