// common/npy.hpp: a minimal writer (and reader, for the tests) of NumPy's .npy format for fp16 matrices.
//
// Format version 1.0: magic "\x93NUMPY", version bytes 1 0, a little-endian uint16 header length, then an
// ASCII dict {'descr': '<f2', 'fortran_order': False, 'shape': (rows, cols), } padded with spaces and a
// final '\n' so that the data starts on a 64-byte boundary, then rows*cols little-endian fp16 values.
// numpy.load / torch.from_numpy read it as float16.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hg {

/// Writes a row-major rows x cols fp16 matrix given as raw IEEE half bit patterns.
/// Throws std::runtime_error naming the path and the OS error when the file cannot be written.
void write_npy_f16(const std::string& path, const uint16_t* bits, int64_t rows, int64_t cols);

struct NpyF16 {
  int64_t rows = 0, cols = 0;
  std::vector<uint16_t> bits;  ///< row-major fp16 bit patterns
};

/// Reads a 2-D '<f2', C-order .npy file written by write_npy_f16 (or by NumPy).
/// Throws std::runtime_error with the reason when the file is missing or not such an array.
NpyF16 read_npy_f16(const std::string& path);

}  // namespace hg
