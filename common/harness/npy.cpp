// common/harness/npy.cpp: writes NumPy .npy files of fp16 matrices (see npy.hpp for the format).
#include "common/harness/npy.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace hg {
namespace {

constexpr char kMagic[] = "\x93NUMPY";  // 6 bytes, without the terminating zero
constexpr size_t kMagicLen = 6;

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

bool host_is_little_endian() {
  const uint16_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

// Writes `count` fp16 values little-endian, in chunks so a big-endian host needs no full copy.
bool write_le16(std::FILE* f, const uint16_t* bits, size_t count) {
  if (host_is_little_endian()) return std::fwrite(bits, sizeof(uint16_t), count, f) == count;
  unsigned char buf[8192];
  for (size_t done = 0; done < count;) {
    const size_t n = std::min(count - done, sizeof(buf) / 2);
    for (size_t i = 0; i < n; ++i) {
      buf[2 * i] = static_cast<unsigned char>(bits[done + i] & 0xFF);
      buf[2 * i + 1] = static_cast<unsigned char>(bits[done + i] >> 8);
    }
    if (std::fwrite(buf, 2, n, f) != n) return false;
    done += n;
  }
  return true;
}

}  // namespace

void write_npy_f16(const std::string& path, const uint16_t* bits, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0) throw std::runtime_error("cannot write '" + path + "': negative matrix shape");

  std::string header = "{'descr': '<f2', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       std::to_string(cols) + "), }";
  // Pad with spaces and end with '\n' so the data starts on a 64-byte boundary (NumPy aligns the same way).
  const size_t prefix = kMagicLen + 2 + 2;  // magic, version, header length
  const size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header.push_back('\n');

  File f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) {
    const int err = errno;
    throw std::runtime_error("cannot write '" + path + "': " + std::strerror(err));
  }
  unsigned char pre[10];
  std::memcpy(pre, kMagic, kMagicLen);
  pre[6] = 1;  // format version 1.0
  pre[7] = 0;
  pre[8] = static_cast<unsigned char>(header.size() & 0xFF);  // uint16 little-endian, whatever the host
  pre[9] = static_cast<unsigned char>(header.size() >> 8);
  const size_t count = size_t(rows) * size_t(cols);
  bool ok = std::fwrite(pre, 1, sizeof(pre), f.get()) == sizeof(pre) &&
            std::fwrite(header.data(), 1, header.size(), f.get()) == header.size() && write_le16(f.get(), bits, count);
  int err = errno;
  // fclose flushes the buffer: a full disk may only show up here.
  std::FILE* raw = f.release();
  if (std::fclose(raw) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(err));
}

}  // namespace hg
