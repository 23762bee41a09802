// tests/npy_reader.hpp: reads a 2-D fp16 .npy file, as common/harness/npy.hpp writes it (or NumPy does), so the
// tests can check the writer and the files of --save. Test-only code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hg {

struct NpyF16 {
  int64_t rows = 0, cols = 0;
  std::vector<uint16_t> bits;  ///< row-major fp16 bit patterns
};

/// Reads a 2-D '<f2', C-order .npy file written by write_npy_f16 (or by NumPy).
/// Throws std::runtime_error with the reason when the file is missing or not such an array.
NpyF16 read_npy_f16(const std::string& path);

}  // namespace hg
