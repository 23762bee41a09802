// common/kernel/watchdog.cuh: the mbarrier wait every step kernel uses, and its watchdog, device and host side.
//
// Device side: ptx::mbarrier_wait_parity loops on mbarrier.try_wait.parity. If a wait has not completed
// after HG_WATCHDOG_SECONDS (read from %globaltimer), the waiting thread fills a WatchdogReport in
// host-mapped memory and traps, so a broken protocol ends the kernel instead of hanging the GPU.
// Host side: a kernel's prepare function arms the watchdog with the names of its mbarriers (their offsets in
// its shared-memory map); when a launch fails, check_kernel (common/harness/harness.cuh) reads the report, which
// survives the trap in host memory, and throws DeadlockError with a one-line description naming the barrier:
//   deadlock: block (3, 0) thread 0 waited 5.0 s for mma_bar (shared offset 8) to complete its phase of
//   parity 1; the watchdog stopped the kernel
// The device part compiles only under nvcc (__CUDACC__); host code and the CPU tests see the host part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/kernel/check.cuh"

namespace hg {

#ifndef HG_WATCHDOG_SECONDS
#define HG_WATCHDOG_SECONDS 5
#endif
/// Longer than any wait of a correct kernel (the longest whole kernel here runs for milliseconds, and
/// even under compute-sanitizer a single wait stays far below this), short enough to stop a hang quickly.
inline constexpr uint64_t kWatchdogNs = uint64_t(HG_WATCHDOG_SECONDS) * 1000000000ull;

/// A report records a barrier's address modulo this: its offset in the first KiB of the 1024-aligned map, where
/// every kernel keeps its barriers (each asserts offsetof(Smem, A) == kBarrierWindow: the tiles start after it).
inline constexpr uint32_t kBarrierWindow = 1024;

struct WatchdogReport {
  uint32_t fired = 0;        ///< set (once) by the first thread that times out
  uint32_t block_x = 0, block_y = 0;
  uint32_t thread = 0;       ///< threadIdx.x of that thread
  uint32_t smem_offset = 0;  ///< the barrier's offset from the 1024-aligned shared-memory base
  uint32_t phase = 0;        ///< the parity it waited for (a flag: the value it waited for)
  uint64_t waited_ns = 0;
  uint32_t flag = 0;         ///< 1: a wait for a global flag (step 10), whose index is in smem_offset
};

/// One mbarrier of a kernel's shared-memory map, or an array of `count` of them (8 bytes apart), by name: its
/// offset is offsetof(Smem, the barrier), inside the first kBarrierWindow bytes of the map.
struct BarrierName {
  uint32_t offset;   ///< bytes from the 1024-aligned base
  uint32_t count;    ///< 1: a single barrier, "name"; more: an array, "name[i]"
  const char* name;  ///< as in the kernel: "mma_bar", "tma_bar"
};

/// A kernel stopped by the watchdog; what() is the "deadlock: ..." line.
struct DeadlockError : CudaError {
  using CudaError::CudaError;
};

// --- Host side (common/kernel/watchdog.cpp) ----------------------------------------------------------------------

/// The report, in host memory mapped into the device's address space (allocated on first use); the device
/// address is what arm_watchdog hands to the kernels.
WatchdogReport* watchdog_device_report();
/// After a failed launch: the one-line description of the report if a wait timed out ("deadlock: ..."),
/// else "". The report lives in host memory, so it can be read although the trap ended the context.
std::string fired_watchdog_report();

/// Remembers the barrier names of the kernel armed last (a table with static storage duration).
void watchdog_set_names(const BarrierName* names, size_t count);

/// The name of the barrier at `smem_offset` in `names` ("tma_bar[1]"), or "an unnamed mbarrier".
std::string barrier_name(uint32_t smem_offset, const BarrierName* names, size_t count);

/// One line: who waited how long for which barrier and parity. Names come from the table given, or else
/// from the table of the kernel armed last.
std::string describe_deadlock(const WatchdogReport& r, const BarrierName* names, size_t count);
std::string describe_deadlock(const WatchdogReport& r);

}  // namespace hg

#if defined(__CUDACC__)
#include <cuda/ptx>

#include "common/kernel/ptx.cuh"  // ld_acquire_gpu, for the flag wait

namespace hg {

/// Where this translation unit's kernels report a timed-out wait (each translation unit has its own copy;
/// arm_watchdog sets it). Null: a timed-out wait traps without a report.
static __device__ WatchdogReport* g_watchdog_report = nullptr;

/// The cold path of a wait that never completed: record who waited for what, then stop the kernel.
static __device__ __noinline__ void watchdog_fire(const uint64_t* bar, uint32_t phase, uint64_t waited_ns) {
  WatchdogReport* r = g_watchdog_report;
  if (r != nullptr && atomicCAS(&r->fired, 0u, 1u) == 0u) {  // the first thread to time out reports
    volatile WatchdogReport* v = r;
    v->block_x = blockIdx.x;
    v->block_y = blockIdx.y;
    v->thread = threadIdx.x;
    v->smem_offset = static_cast<uint32_t>(__cvta_generic_to_shared(bar)) % kBarrierWindow;  // offset in the map
    v->phase = phase;
    v->waited_ns = waited_ns;
    __threadfence_system();  // the report reaches host memory before the trap ends the kernel
  }
  cuda::ptx::trap();
}

/// The same for a global flag that never reached its value (step 10's parts).
static __device__ __noinline__ void watchdog_fire_flag(uint32_t index, uint32_t value, uint64_t waited_ns) {
  WatchdogReport* r = g_watchdog_report;
  if (r != nullptr && atomicCAS(&r->fired, 0u, 1u) == 0u) {
    volatile WatchdogReport* v = r;
    v->block_x = blockIdx.x;
    v->block_y = blockIdx.y;
    v->thread = threadIdx.x;
    v->smem_offset = index;
    v->phase = value;
    v->waited_ns = waited_ns;
    v->flag = 1;
    __threadfence_system();
  }
  cuda::ptx::trap();
}

/// Points this translation unit's kernels at the host-mapped report, and names the barriers of the kernel
/// being prepared (its shared-memory map). Called by every prepare function of a kernel that waits on an
/// mbarrier.
template <size_t N>
static inline void arm_watchdog(const BarrierName (&names)[N]) {
  static bool armed = false;
  if (!armed) {
    WatchdogReport* report = watchdog_device_report();
    HG_CUDA_CHECK(cudaMemcpyToSymbol(g_watchdog_report, &report, sizeof report));
    armed = true;
  }
  watchdog_set_names(names, N);
}

}  // namespace hg

namespace hg::ptx {

/// Waits until the phase with parity `phase` of `bar` has completed: mbarrier.try_wait.parity (PTX ISA
/// "Parallel Synchronization and Communication Instructions: mbarrier.test_wait / mbarrier.try_wait") in a
/// loop; try_wait, unlike test_wait, lets the hardware suspend the thread for a while. It returns once the
/// barrier has LEFT phase `phase`: it can tell the current phase only from the one before it. A wait that
/// succeeds at once reads no clock; one still pending after kWatchdogNs of %globaltimer is reported and
/// trapped.
__device__ __forceinline__ void mbarrier_wait_parity(uint64_t* bar, uint32_t phase) {
  if (cuda::ptx::mbarrier_try_wait_parity(bar, phase)) return;
  const uint64_t start = cuda::ptx::get_sreg_globaltimer();  // ns, common to the whole GPU
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, phase)) {
    const uint64_t waited = cuda::ptx::get_sreg_globaltimer() - start;
    if (waited > kWatchdogNs) watchdog_fire(bar, phase, waited);
  }
}

/// Waits until the global flag `flags[index]` holds `value` (step 10: a part of a split tile is published):
/// ld.acquire.gpu in a loop (PTX ISA "ld", .acquire), with the same watchdog as the mbarrier wait. The acquire
/// makes the writes that the flag's release published visible to this thread.
__device__ __forceinline__ void wait_flag(const uint32_t* flags, uint32_t index, uint32_t value) {
  if (ld_acquire_gpu(flags + index) == value) return;
  const uint64_t start = cuda::ptx::get_sreg_globaltimer();
  while (ld_acquire_gpu(flags + index) != value) {
    const uint64_t waited = cuda::ptx::get_sreg_globaltimer() - start;
    if (waited > kWatchdogNs) watchdog_fire_flag(index, value, waited);
  }
}

}  // namespace hg::ptx
#endif  // __CUDACC__
