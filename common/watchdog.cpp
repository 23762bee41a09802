// common/watchdog.cpp: formatting of a watchdog report (see watchdog.hpp).
#include "common/watchdog.hpp"

#include <cstdio>

namespace hg {

std::string barrier_name(uint32_t smem_offset) {
  if (smem_offset == 8) return "mma_bar";
  if (smem_offset >= 16 && smem_offset < 1024 && smem_offset % 8 == 0)
    return "tma_bar[" + std::to_string((smem_offset - 16) / 8) + "]";
  return "the mbarrier";
}

std::string describe_deadlock(const WatchdogReport& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "deadlock: block (%u, %u) thread %u waited %.1f s for %s (shared offset %u) to complete its "
                "phase of parity %u; the watchdog stopped the kernel",
                r.block_x, r.block_y, r.thread, double(r.waited_ns) * 1e-9, barrier_name(r.smem_offset).c_str(),
                r.smem_offset, r.phase);
  return buf;
}

}  // namespace hg
