// common/harness/npy.hpp: a minimal writer of NumPy's .npy format for fp16 matrices (--save). The tests read the
// files back with tests/npy_reader.hpp.
//
// Format version 1.0: magic "\x93NUMPY", version bytes 1 0, a little-endian uint16 header length, then an
// ASCII dict {'descr': '<f2', 'fortran_order': False, 'shape': (rows, cols), } padded with spaces and a
// final '\n' so that the data starts on a 64-byte boundary, then rows*cols little-endian fp16 values.
// numpy.load / torch.from_numpy read it as float16.
#pragma once

#include <cstdint>
#include <string>

namespace hg {

/// Writes a row-major rows x cols fp16 matrix given as raw IEEE half bit patterns.
/// Throws std::runtime_error naming the path and the OS error when the file cannot be written.
void write_npy_f16(const std::string& path, const uint16_t* bits, int64_t rows, int64_t cols);

}  // namespace hg
