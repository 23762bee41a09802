// common/npy.cpp: NumPy .npy files of fp16 matrices (see npy.hpp for the format).
#include "common/npy.hpp"

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

[[noreturn]] void bad_file(const std::string& path, const std::string& why) {
  throw std::runtime_error("'" + path + "' is not a 2-D fp16 .npy file: " + why);
}

void skip_spaces(const std::string& s, size_t& pos) {
  while (pos < s.size() && s[pos] == ' ') ++pos;
}

// The text right after "'key':" in the header dict, or npos when the key is missing.
size_t value_of(const std::string& header, const std::string& key) {
  const std::string quoted = "'" + key + "'";
  size_t pos = header.find(quoted);
  if (pos == std::string::npos) return pos;
  pos += quoted.size();
  skip_spaces(header, pos);
  if (pos >= header.size() || header[pos] != ':') return std::string::npos;
  ++pos;
  skip_spaces(header, pos);
  return pos;
}

// Parses "(rows, cols)" (NumPy writes exactly this; a trailing comma is tolerated).
bool parse_shape(const std::string& header, size_t pos, int64_t& rows, int64_t& cols) {
  if (pos == std::string::npos || pos >= header.size() || header[pos] != '(') return false;
  const size_t close = header.find(')', pos);
  if (close == std::string::npos) return false;
  const std::string inner = header.substr(pos + 1, close - pos - 1);
  int64_t dims[2] = {0, 0};
  int count = 0;
  size_t i = 0;
  while (i < inner.size()) {
    skip_spaces(inner, i);
    if (i >= inner.size()) break;
    if (inner[i] < '0' || inner[i] > '9' || count == 2) return false;
    int64_t v = 0;
    while (i < inner.size() && inner[i] >= '0' && inner[i] <= '9') {
      if (v > (int64_t(1) << 40)) return false;  // far beyond any matrix this project writes
      v = v * 10 + (inner[i++] - '0');
    }
    dims[count++] = v;
    skip_spaces(inner, i);
    if (i < inner.size()) {
      if (inner[i] != ',') return false;
      ++i;
    }
  }
  if (count != 2) return false;
  rows = dims[0];
  cols = dims[1];
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

NpyF16 read_npy_f16(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    const int err = errno;
    throw std::runtime_error("cannot read '" + path + "': " + std::strerror(err));
  }

  unsigned char pre[8];
  if (std::fread(pre, 1, sizeof(pre), f.get()) != sizeof(pre) || std::memcmp(pre, kMagic, kMagicLen) != 0)
    bad_file(path, "bad magic (expected \\x93NUMPY)");
  // Version 1.0 has a 2-byte header length, 2.0 a 4-byte one; the dict is the same.
  size_t len_bytes = 0;
  if (pre[6] == 1 && pre[7] == 0) len_bytes = 2;
  else if (pre[6] == 2 && pre[7] == 0) len_bytes = 4;
  else bad_file(path, "unsupported format version " + std::to_string(pre[6]) + "." + std::to_string(pre[7]));
  unsigned char len_le[4] = {0, 0, 0, 0};
  if (std::fread(len_le, 1, len_bytes, f.get()) != len_bytes) bad_file(path, "truncated header");
  size_t header_len = 0;
  for (size_t i = len_bytes; i-- > 0;) header_len = header_len << 8 | len_le[i];
  if (header_len > (size_t(1) << 20)) bad_file(path, "header length " + std::to_string(header_len) + " is implausible");

  std::string header(header_len, '\0');
  if (std::fread(header.data(), 1, header_len, f.get()) != header_len) bad_file(path, "truncated header");
  if (header.empty() || header.back() != '\n') bad_file(path, "header does not end with a newline");

  const size_t descr = value_of(header, "descr");
  if (descr == std::string::npos || header.compare(descr, 5, "'<f2'") != 0)
    bad_file(path, "descr is not '<f2' (little-endian float16)");
  const size_t order = value_of(header, "fortran_order");
  if (order == std::string::npos || header.compare(order, 5, "False") != 0)
    bad_file(path, "fortran_order is not False (only C-order arrays are read)");
  NpyF16 out;
  if (!parse_shape(header, value_of(header, "shape"), out.rows, out.cols))
    bad_file(path, "shape is not a 2-D tuple (rows, cols)");

  // The data must be exactly rows * cols values: no more (wrong shape), no less (truncated file).
  const size_t data_start = kMagicLen + 2 + len_bytes + header_len;
  if (std::fseek(f.get(), 0, SEEK_END) != 0) bad_file(path, "cannot seek");
  const long end = std::ftell(f.get());
  const size_t count = size_t(out.rows) * size_t(out.cols);
  if (end < 0 || size_t(end) != data_start + 2 * count)
    bad_file(path, "expected " + std::to_string(2 * count) + " data bytes for shape (" + std::to_string(out.rows) +
                       ", " + std::to_string(out.cols) + "), file has " +
                       std::to_string(end < 0 ? 0 : (long long)(end) - (long long)(data_start)));
  if (std::fseek(f.get(), long(data_start), SEEK_SET) != 0) bad_file(path, "cannot seek");

  std::vector<unsigned char> raw(2 * count);
  if (std::fread(raw.data(), 1, raw.size(), f.get()) != raw.size()) bad_file(path, "truncated data");
  out.bits.resize(count);
  for (size_t i = 0; i < count; ++i) out.bits[i] = uint16_t(raw[2 * i] | raw[2 * i + 1] << 8);
  return out;
}

}  // namespace hg
