// tests/npy_reader.cpp: reads the .npy files the verify binaries write (see npy_reader.hpp).
#include "tests/npy_reader.hpp"

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
