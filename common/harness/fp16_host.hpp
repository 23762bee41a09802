// common/harness/fp16_host.hpp: IEEE binary16 <-> float on the host, without the GPU's intrinsics.
//
// Host code keeps fp16 data as raw uint16_t bit patterns (what .npy files and cudaMemcpy carry).
#pragma once

#include <cstdint>

namespace hg {

/// Exact conversion of a binary16 bit pattern to float (subnormals, infinities and NaNs included).
float half_bits_to_float(uint16_t h);

/// Round-to-nearest-even conversion of a float to binary16 bits, as __float2half_rn does on the GPU.
uint16_t float_to_half_bits(float f);

/// The poison written into D before every launch: a quiet NaN, so an element the kernel never writes
/// fails verification.
inline constexpr uint16_t kHalfPoison = 0x7E00;

}  // namespace hg
