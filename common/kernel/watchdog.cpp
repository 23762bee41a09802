// common/kernel/watchdog.cpp: the host side of the mbarrier watchdog (see watchdog.cuh).
#include "common/kernel/watchdog.cuh"

#include <cuda_runtime_api.h>

#include <cstdio>

namespace hg {
namespace {

WatchdogReport* g_report = nullptr;  // page-locked and mapped: readable even after a trap
const BarrierName* g_names = nullptr;
size_t g_name_count = 0;

}  // namespace

WatchdogReport* watchdog_device_report() {
  if (g_report == nullptr) {
    HG_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&g_report), sizeof(WatchdogReport), cudaHostAllocMapped));
    *g_report = WatchdogReport{};
  }
  WatchdogReport* dev = nullptr;
  HG_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev), g_report, 0));
  return dev;
}


void watchdog_set_names(const BarrierName* names, size_t count) {
  g_names = names;
  g_name_count = count;
}

std::string barrier_name(uint32_t smem_offset, const BarrierName* names, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const BarrierName& b = names[i];
    if (smem_offset < b.offset || smem_offset >= b.offset + 8 * b.count || (smem_offset - b.offset) % 8 != 0)
      continue;
    if (b.count == 1) return b.name;
    return std::string(b.name) + "[" + std::to_string((smem_offset - b.offset) / 8) + "]";
  }
  return "an unnamed mbarrier";
}

std::string describe_deadlock(const WatchdogReport& r, const BarrierName* names, size_t count) {
  char buf[256];
  if (r.flag) {
    std::snprintf(buf, sizeof buf,
                  "deadlock: block (%u, %u) thread %u waited %.1f s for global flag %u to reach %u (a part of a "
                  "split tile that was never published); the watchdog stopped the kernel",
                  r.block_x, r.block_y, r.thread, double(r.waited_ns) * 1e-9, r.smem_offset, r.phase);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "deadlock: block (%u, %u) thread %u waited %.1f s for %s (shared offset %u) to complete its "
                "phase of parity %u; the watchdog stopped the kernel",
                r.block_x, r.block_y, r.thread, double(r.waited_ns) * 1e-9,
                barrier_name(r.smem_offset, names, count).c_str(), r.smem_offset, r.phase);
  return buf;
}

std::string describe_deadlock(const WatchdogReport& r) { return describe_deadlock(r, g_names, g_name_count); }

std::string fired_watchdog_report() {
  const volatile WatchdogReport* r = g_report;  // written by the device: read every field through volatile
  if (r == nullptr || !r->fired) return "";
  WatchdogReport copy;
  copy.fired = r->fired;
  copy.block_x = r->block_x;
  copy.block_y = r->block_y;
  copy.thread = r->thread;
  copy.smem_offset = r->smem_offset;
  copy.phase = r->phase;
  copy.waited_ns = r->waited_ns;
  copy.flag = r->flag;
  return describe_deadlock(copy);
}

}  // namespace hg
