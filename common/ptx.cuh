// common/ptx.cuh: the few PTX instructions CCCL's cuda::ptx does not wrap, plus two tiny address helpers.
//
// The step kernels call cuda::ptx (#include <cuda/ptx>) for everything it covers: tcgen05 alloc / mma /
// commit / ld / wait / fence / dealloc, mbarrier init / arrive / try_wait, fences, cp.async.bulk(.tensor).
// What is left is written here as inline asm, each function wrapping ONE instruction (DESIGN section 5,
// rule 3), with the PTX ISA section it implements:
//   elect.sync                       PTX ISA "Parallel Synchronization and Communication: elect.sync"
//   wgmma.fence / commit_group / wait_group / mma_async
//                                    PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"
#pragma once

#include <cuda/ptx>

#include <cstdint>

#include "common/check.cuh"
#include "common/watchdog.hpp"

namespace hg {

/// Shared-state-space address of a generic pointer into shared memory (what descriptors and mbarrier
/// operands take).
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// Rounds the dynamic shared-memory base up to the 1024-byte swizzle period (the launch reserves the
/// slack). Same role as the seed's pool.move_base_to(1024).
__device__ __forceinline__ uint8_t* align_smem_1024(uint8_t* p) {
  const uint32_t addr = smem_u32(p);
  return p + (((addr + 1023u) & ~1023u) - addr);
}

/// elect.sync: exactly one active lane of the warp gets true (sm_90+). Used where the seed calls
/// T.ptx.elect_sync(): the issuer of the Blackwell MMA.
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t elected = 0;
  asm volatile(
      "{\n\t.reg .pred P;\n\t"
      "elect.sync _|P, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(elected));
  return elected != 0;
}

// ------------------------------------------------------------------------------------------------------
// mbarrier wait with a watchdog (common/watchdog.hpp)
// ------------------------------------------------------------------------------------------------------

/// Where this translation unit's kernels report a timed-out wait (each translation unit has its own copy;
/// arm_watchdog sets it). Null: a timed-out wait traps without a report.
static __device__ WatchdogReport* g_watchdog_report = nullptr;

/// %globaltimer: a nanosecond clock common to the whole GPU (PTX ISA, "Special Registers: %globaltimer").
__device__ __forceinline__ uint64_t globaltimer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// The cold path of a wait that never completed: record who waited for what, then stop the kernel.
static __device__ __noinline__ void watchdog_fire(const uint64_t* bar, uint32_t phase, uint64_t waited_ns) {
  WatchdogReport* r = g_watchdog_report;
  if (r != nullptr && atomicCAS(&r->fired, 0u, 1u) == 0u) {  // the first thread to time out reports
    volatile WatchdogReport* v = r;
    v->block_x = blockIdx.x;
    v->block_y = blockIdx.y;
    v->thread = threadIdx.x;
    v->smem_offset = smem_u32(bar) & 1023u;  // offset from the 1024-aligned base of the step's SMEM map
    v->phase = phase;
    v->waited_ns = waited_ns;
    __threadfence_system();  // the report reaches host memory before the trap ends the kernel
  }
  __trap();
}

/// Waits until the phase with parity `phase` of `bar` has completed: mbarrier.try_wait.parity in a loop
/// (try_wait, unlike test_wait, lets the hardware suspend the thread for a while). This is the seed's
/// T.ptx.mbarrier.try_wait(bar, phase): it returns once the barrier has LEFT phase `phase`. A wait that
/// succeeds at once reads no clock; one still pending after kWatchdogNs is reported and trapped.
__device__ __forceinline__ void mbarrier_wait_parity(uint64_t* bar, uint32_t phase) {
  if (cuda::ptx::mbarrier_try_wait_parity(bar, phase)) return;
  const uint64_t start = globaltimer_ns();
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, phase)) {
    const uint64_t waited = globaltimer_ns() - start;
    if (waited > kWatchdogNs) watchdog_fire(bar, phase, waited);
  }
}

/// Points this translation unit's kernels at the host-mapped watchdog report. Called by every step's
/// prepare(); does its work once.
static inline void arm_watchdog() {
  static bool armed = false;
  if (armed) return;
  WatchdogReport* report = watchdog_device_report();
  HG_CUDA_CHECK(cudaMemcpyToSymbol(g_watchdog_report, &report, sizeof report));
  armed = true;
}

// ------------------------------------------------------------------------------------------------------
// wgmma (sm_90a only). The instructions exist only in the sm_90a target; these wrappers are called only
// from kernel bodies guarded by __CUDA_ARCH_FEAT_SM90_ALL.
// ------------------------------------------------------------------------------------------------------

/// wgmma.fence.sync.aligned: orders earlier register and shared-memory accesses of the warpgroup before
/// the wgmma.mma_async that follow (required before the first wgmma, and whenever the accumulator
/// registers were touched by other instructions).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

/// wgmma.commit_group.sync.aligned: closes all wgmma.mma_async issued so far into one group.
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// wgmma.wait_group.sync.aligned N: waits until at most N groups are still pending. With N = 0 every
/// committed wgmma has finished, so its accumulator registers may be read and its SMEM overwritten.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16: D(64x128, fp32 registers) (+)= A(64x16) * B(16x128)
/// with A and B read from shared memory through descriptors, both K-major (transpose immediates 0).
/// scale_d = 0 overwrites D, 1 accumulates into it. Register fragment (PTX ISA, wgmma "Matrix fragments
/// for .m64nNk16", accumulator D): thread t of the warpgroup holds, for j = 0..15,
///   d[4j+0], d[4j+1] -> row 16*(t/32) + (t%32)/4,     columns 8j + 2*(t%4) + {0, 1}
///   d[4j+2], d[4j+3] -> the same columns, 8 rows further down.
__device__ __forceinline__ void wgmma_m64n128k16_f16(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                                     uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %66, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
      "%64, %65, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]),
        "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
        "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
        "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
        "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]),
        "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]),
        "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d)
      : "memory");
}

}  // namespace hg
