// common/kernel/ptx.cuh: one prefix for every instruction a step kernel issues.
//
// A kernel writes `namespace ptx = hg::ptx;` and calls ptx::<instruction> for all of them. hg::ptx re-exports
// CCCL's cuda::ptx (#include <cuda/ptx>: tcgen05 alloc / mma / commit / ld / wait / fence / dealloc, mbarrier
// init / arrive / expect_tx / try_wait, fences, cp.async.bulk(.tensor) and its bulk groups), whose names
// mirror the PTX mnemonics, and adds the few instructions CCCL does not wrap, as inline asm, one instruction
// per function, each with the PTX ISA section it implements:
//   elect_sync                     PTX ISA "Parallel Synchronization and Communication Instructions: elect.sync"
//   wgmma_fence, wgmma_commit_group, wgmma_wait_group, wgmma_m64n{64,128,192,224,256}k16_f16, wgmma_m64nNk16_f16
//                                  PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
//                                  Instructions" (wgmma.fence, wgmma.commit_group, wgmma.wait_group,
//                                  wgmma.mma_async)
//   setmaxnreg_inc, setmaxnreg_dec PTX ISA "Miscellaneous Instructions: setmaxnreg" (sm_90a)
//   mapa_shared_cluster, mbarrier_arrive_remote, tma_load_2d_pair
//                                  PTX ISA "mapa", "mbarrier.arrive" (.shared::cluster), "cp.async.bulk.tensor"
//                                  (.cta_group::2, sm_100a): CTA pairs (step 8). Every barrier of another CTA
//                                  is named by the shared::cluster address mapa_shared_cluster gives.
//   named_barrier_sync, named_barrier_arrive
//                                  PTX ISA "Parallel Synchronization and Communication Instructions: bar,
//                                  barrier" (bar.sync / bar.arrive with a barrier id and a thread count)
//   st_release_gpu, ld_acquire_gpu PTX ISA "st", "ld" with .release / .acquire at .gpu scope: flags in global
//                                  memory between CTAs (step 10)
//   ld_shared_cluster              PTX ISA "ld" (.shared::cluster): a word of the peer CTA's shared memory
//                                  (step 10's arrival ticket)
// One more lives in common/kernel/watchdog.cuh, next to its host side: ptx::mbarrier_wait_parity, the
// mbarrier.try_wait.parity loop every wait of the kernels goes through.
//
// Device code only; the two address helpers at the end are in namespace hg (they are not instructions).
#pragma once

#include <cuda/ptx>

#include <cstdint>

namespace hg::ptx {

using namespace cuda::ptx;  // everything CCCL wraps, under the same names

/// elect.sync: exactly one active lane of the warp gets true (sm_90+). The Blackwell kernels elect the one
/// thread that issues tcgen05.mma for the whole CTA.
__device__ __forceinline__ bool elect_sync() {
  uint32_t elected = 0;
  asm volatile(
      "{\n\t.reg .pred P;\n\t"
      "elect.sync _|P, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(elected));
  return elected != 0;
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

/// wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16: D(64x256, fp32 registers) (+)= A(64x16) * B(16x256),
/// the widest N of the instruction (step 9): the same operands and fragment rule as m64n128k16 above, with
/// j = 0..31, so each thread holds 128 fp32 values.
__device__ __forceinline__ void wgmma_m64n256k16_f16(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                                     uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %130, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, "
      "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, "
      "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, "
      "%59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, "
      "%78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, "
      "%97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, "
      "%113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
      "}, "
      "%128, %129, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]),
        "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),
        "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
        "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d)
      : "memory");
}

/// wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16: D(64x192, fp32 registers) (+)= A(64x16) * B(16x192), for
/// step 11's 256 x 192 pair tile: the same operands and fragment rule as m64n128k16 above, with j = 0..23, so each
/// thread holds 96 fp32 values. (N may be any multiple of 8 up to 256: PTX ISA, "Matrix shape" of wgmma.)
__device__ __forceinline__ void wgmma_m64n192k16_f16(float (&d)[96], uint64_t desc_a, uint64_t desc_b,
                                                     uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %98, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20,"
      "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39,"
      "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58,"
      "%59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77,"
      "%78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
      "}, "
      "%96, %97, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
        "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),
        "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),
        "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]),
        "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d)
      : "memory");
}

/// wgmma.mma_async.sync.aligned.m64n224k16.f32.f16.f16: D(64x224, fp32 registers) (+)= A(64x16) * B(16x224), for
/// step 11's 256 x 224 pair tile: the same operands and fragment rule as m64n128k16 above, with j = 0..27, so each
/// thread holds 112 fp32 values.
__device__ __forceinline__ void wgmma_m64n224k16_f16(float (&d)[112], uint64_t desc_a, uint64_t desc_b,
                                                     uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %114, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n224k16.f32.f16.f16 "
      "{"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21,"
      "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41,"
      "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61,"
      "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81,"
      "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101,"
      "%102, %103, %104, %105, %106, %107, %108, %109, %110, %111"
      "}, "
      "%112, %113, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
        "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
        "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
        "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
        "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
        "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
        "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),
        "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),
        "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]),
        "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]),
        "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),
        "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d)
      : "memory");
}

/// wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16: D(64x64, fp32 registers) (+)= A(64x16) * B(16x64), for
/// step 11's 128 x 128 pair tile, whose two consumers take 64 columns each: the same operands and fragment rule as
/// m64n128k16 above, with j = 0..7, so each thread holds 32 fp32 values.
__device__ __forceinline__ void wgmma_m64n64k16_f16(float (&d)[32], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d) {
  asm volatile(
      "{\n\t.reg .pred p;\n\t"
      "setp.ne.b32 p, %34, 0;\n\t"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, p, 1, 1, 0, 0;\n\t}"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d)
      : "memory");
}

/// The wgmma of a consumer N columns wide (64, 128, 192, 224 or 256): one kernel body for step 11's menu of tiles.
template <int N>
__device__ __forceinline__ void wgmma_m64nNk16_f16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,
                                                   uint32_t scale_d) {
  static_assert(N == 64 || N == 128 || N == 192 || N == 224 || N == 256,
                "the kernels' consumers are 64 to 256 columns wide");
  if constexpr (N == 64) wgmma_m64n64k16_f16(d, desc_a, desc_b, scale_d);
  else if constexpr (N == 128) wgmma_m64n128k16_f16(d, desc_a, desc_b, scale_d);
  else if constexpr (N == 192) wgmma_m64n192k16_f16(d, desc_a, desc_b, scale_d);
  else if constexpr (N == 224) wgmma_m64n224k16_f16(d, desc_a, desc_b, scale_d);
  else wgmma_m64n256k16_f16(d, desc_a, desc_b, scale_d);
}

// ------------------------------------------------------------------------------------------------------
// Warp-specialized kernels (step 7 on): registers moved between warpgroups, and CTA barriers that only some
// warps take part in.
// ------------------------------------------------------------------------------------------------------

/// setmaxnreg.inc.sync.aligned.u32 N: every thread of the executing warpgroup may now use up to N registers;
/// waits until other warpgroups have released enough (sm_90a, sm_100a). N: 24 to 256, a multiple of 8.
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/// setmaxnreg.dec.sync.aligned.u32 N: the executing warpgroup gives back its registers above N per thread.
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg takes 24..256 in steps of 8");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

/// bar.sync id, count: wait until `count` threads (a multiple of 32, whole warps) have arrived at CTA barrier
/// `id` (1..15; 0 is __syncthreads'), counting this warp. Orders shared-memory accesses like __syncthreads.
/// An id the compiler cannot fold to a constant (one per consumer warpgroup: kEpilogueBar + consumer) lives in
/// a register, and ptxas then reserves all 16 barrier ids (`-Xptxas -v`: "used 16 barriers"); harmless at one
/// CTA per SM. Immediate ids chosen per consumer (two predicated bar.sync, or an if/else) were tried: ptxas
/// brackets each predicated barrier with a WARPSYNC, and step 8's Hopper kernel ran measurably slower at short
/// K on the H200, so the kernels keep the register id.
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

/// bar.arrive id, count: count this warp towards barrier `id` without waiting (the producer side of a
/// bar.arrive / bar.sync pair: whoever syncs on `id` waits for it).
__device__ __forceinline__ void named_barrier_arrive(uint32_t id, uint32_t count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// ------------------------------------------------------------------------------------------------------
// CTA pairs (step 8 on): clusters of two CTAs.
// ------------------------------------------------------------------------------------------------------

/// mapa.shared::cluster.u32 (PTX ISA "Data Movement and Conversion Instructions: mapa"): the shared::cluster
/// address of the object at the same shared-memory offset as `local` in CTA `rank` of the cluster. The one
/// way every pair helper below names a barrier of another CTA (or of its own: rank = its own rank).
__device__ __forceinline__ uint32_t mapa_shared_cluster(const void* local, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(local))), "r"(rank));
  return remote;
}

/// mbarrier.arrive on the barrier at the same shared-memory offset as `local` in CTA `rank` of the cluster
/// (mapa_shared_cluster), with the default semantics, .release at .cta scope (PTX ISA "mbarrier.arrive").
/// Why not .release.cluster: on sm_90a that form is compiled to a MEMBAR.ALL.GPU before the arrive, which
/// waits for the warp's outstanding memory operations, in every K tile (docs/step8_cluster.md measures it). The
/// arrive announces that reads (wgmma, tcgen05.ld) are complete; a
/// release at CTA scope to a thread of another CTA is what CUTLASS and DeepGEMM do too, established practice
/// rather than a guarantee of the PTX memory model (docs/step8_cluster.md, "the remote arrive").
__device__ __forceinline__ void mbarrier_arrive_remote(const uint64_t* local, uint32_t rank) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(mapa_shared_cluster(local, rank))
               : "memory");
}

/// <code>cp.async.bulk.tensor.2d.shared\::cluster.global.tile.mbarrier\::complete_tx\::bytes.cta_group\::2</code>
/// (sm_100a): one CTA of a pair loads a box into ITS OWN shared memory (`dst`) and the bytes are counted on
/// the barrier at the offset of `bar` in CTA `bar_rank` of the cluster (the leader's: 0), addressed through
/// mapa_shared_cluster. PTX ISA "cp.async.bulk.tensor", .cta_group.
__device__ __forceinline__ void tma_load_2d_pair(void* dst, const void* tensor_map, const int32_t (&coords)[2],
                                                 const uint64_t* bar, uint32_t bar_rank) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 "
      "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(dst))),
      "l"(tensor_map), "r"(coords[0]), "r"(coords[1]), "r"(mapa_shared_cluster(bar, bar_rank))
      : "memory");
}

// ------------------------------------------------------------------------------------------------------
// Flags in global memory between CTAs (step 10): one CTA publishes data, another waits for it. PTX ISA "Memory
// Consistency Model": a release store and an acquire load of the same location at .gpu scope synchronize, so
// every write the releasing thread has observed (its own, and those of threads it synchronized with through a
// CTA barrier before it: release is cumulative) is visible to the acquiring thread and, through a CTA barrier
// after it, to its CTA.
// ------------------------------------------------------------------------------------------------------

/// st.release.gpu.global.u32 (PTX ISA "Data Movement and Conversion Instructions: st", .release, .gpu): publish.
__device__ __forceinline__ void st_release_gpu(uint32_t* flag, uint32_t value) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(flag), "r"(value) : "memory");
}

/// ld.shared::cluster.u32 (PTX ISA "Data Movement and Conversion Instructions: ld", state space .shared::cluster):
/// a weak load of the word at the same shared-memory offset as `local` in CTA `rank` of the cluster. Written there
/// before a cluster barrier (arrive.release / wait.acquire) that this thread has passed, it is visible.
__device__ __forceinline__ uint32_t ld_shared_cluster(const uint32_t* local, uint32_t rank) {
  uint32_t value;
  asm volatile("ld.shared::cluster.u32 %0, [%1];\n" : "=r"(value) : "r"(mapa_shared_cluster(local, rank)) : "memory");
  return value;
}

/// ld.acquire.gpu.global.u32 (PTX ISA "Data Movement and Conversion Instructions: ld", .acquire, .gpu): observe.
__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t* flag) {
  uint32_t value;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(value) : "l"(flag) : "memory");
  return value;
}

}  // namespace hg::ptx

namespace hg {

/// Shared-state-space address of a generic pointer into shared memory (what descriptors and mbarrier
/// operands take): cvta.to.shared, written by nvcc's intrinsic.
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// Rounds the dynamic shared-memory base up to the 1024-byte period of the 128B swizzle (the launch reserves
/// the slack), so every swizzled tile of the kernel's map starts on a 1024-byte boundary.
__device__ __forceinline__ uint8_t* align_smem_1024(uint8_t* p) {
  const uint32_t addr = smem_u32(p);
  return p + (((addr + 1023u) & ~1023u) - addr);
}

}  // namespace hg
