// The other way out for a staged box of D: the threads copy it to global memory, for a D that TMA cannot address.
//
// A tensor map's row stride must be a multiple of 16 bytes (CUDA Driver API, cuTensorMapEncodeTiled:
// globalStrides), so TMA can store D only when N is a multiple of 8 fp16. For any other N (a 50257-word
// vocabulary) step 11 stages each chunk exactly as for the TMA store, then calls store_box_by_threads instead.
#pragma once

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>

#include "common/kernel/descriptors.hpp"

namespace hg {

/// Copies a staged box of ROWS x 64 fp16 (128B-swizzled, the layout a TMA store reads) to D[m0 + r][n0 + c],
/// using THREADS threads numbered `tid` = 0..THREADS-1, and skips every element outside the M x N matrix D
/// (row-major, N elements a row), as a TMA store clips its box. Each warp writes 32 consecutive columns of one row
/// per step (64 bytes, whatever N is); the row's 128 swizzled bytes sit in eight different 16-byte bank groups, so
/// the warp's shared-memory read is conflict-free. Only 2-byte alignment is assumed: with N odd, a row of D starts
/// at an odd element.
template <int ROWS, int THREADS>
__device__ __forceinline__ void store_box_by_threads(const uint8_t* box, __half* D, int M, int N, int m0, int n0,
                                                     int tid) {
  constexpr int kBoxCols = 64;                      // one 128-byte swizzled row
  constexpr int kRowsPerStep = THREADS / kBoxCols;  // 2 with 128 threads
  static_assert(THREADS % kBoxCols == 0 && ROWS % kRowsPerStep == 0, "whole rows per step");
  const int col = tid % kBoxCols;
  if (n0 + col >= N) return;  // a column past N: nothing of it is stored
  const int rows = min(ROWS, M - m0);  // the box's rows inside D
  int r = tid / kBoxCols;
  // An element offset, not a pointer: after the last row it runs past D, which only an integer may do.
  size_t at = size_t(m0 + r) * size_t(N) + size_t(n0 + col);
#pragma unroll 1  // one element in flight per thread: the caller's accumulators hold nearly every register
  for (; r < rows; r += kRowsPerStep, at += size_t(kRowsPerStep) * N)
    D[at] = *reinterpret_cast<const __half*>(box + swizzle128b_offset(r, col));
}

}  // namespace hg
