// tests/test_npy.cpp: the .npy writer (common/harness/npy.hpp) and the tests' reader (tests/npy_reader.hpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/harness/npy.hpp"
#include "tests/npy_reader.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

using TempDir = hg_test::TempDir;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The reader's error message for `p`, or a marker no check expects.
std::string read_error(const fs::path& p) {
  try {
    hg::read_npy_f16(p.string());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "<no exception>";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// 3 x 5, row-major, with every special pattern the format must carry untouched.
const std::vector<uint16_t> kBits = {
    0x3C00, 0xC000, 0x7BFF, 0xFBFF, 0x0001,  // 1, -2, 65504, -65504, smallest subnormal
    0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01,  // inf, -inf, quiet NaN, signalling NaN, negative NaN
    0x8000, 0x0000, 0x3555, 0x0400, 0x1234,  // -0, +0, ~1/3, smallest normal, arbitrary
};

}  // namespace

TEST_CASE("npy: a 3 x 5 fp16 matrix round-trips bit for bit, NaN, inf and -0 included") {
  TempDir tmp("hg_test_npy_");
  const fs::path file = tmp.path / "D.npy";
  hg::write_npy_f16(file.string(), kBits.data(), 3, 5);
  const hg::NpyF16 back = hg::read_npy_f16(file.string());
  CHECK(back.rows == 3);
  CHECK(back.cols == 5);
  REQUIRE(back.bits.size() == kBits.size());
  for (size_t i = 0; i < kBits.size(); ++i) {
    CAPTURE(i);
    CHECK(back.bits[i] == kBits[i]);
  }

  // The transposed shape is a different file: rows and cols are not swapped on the way.
  hg::write_npy_f16(file.string(), kBits.data(), 5, 3);
  const hg::NpyF16 t = hg::read_npy_f16(file.string());
  CHECK(t.rows == 5);
  CHECK(t.cols == 3);
}

TEST_CASE("npy: the header is NumPy's version 1.0 layout and the data starts on a 64-byte boundary") {
  TempDir tmp("hg_test_npy_");
  const fs::path file = tmp.path / "A.npy";
  hg::write_npy_f16(file.string(), kBits.data(), 3, 5);
  const std::string bytes = read_bytes(file);

  REQUIRE(bytes.size() >= 10);
  CHECK(bytes.compare(0, 6, "\x93NUMPY") == 0);
  CHECK(bytes[6] == 1);
  CHECK(bytes[7] == 0);
  const size_t header_len = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;  // little-endian
  const size_t data_start = 10 + header_len;
  CHECK(data_start % 64 == 0);
  CHECK(bytes.size() == data_start + 2 * kBits.size());

  const std::string header = bytes.substr(10, header_len);
  const std::string dict = "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 5), }";
  CHECK(header.compare(0, dict.size(), dict) == 0);
  CHECK(header.back() == '\n');
  CHECK(header.find_first_not_of(' ', dict.size()) == header_len - 1);  // only spaces pad up to the '\n'

  // The data is little-endian: the low byte of 0x3C00 (1.0) comes first.
  CHECK(uint8_t(bytes[data_start]) == 0x00);
  CHECK(uint8_t(bytes[data_start + 1]) == 0x3C);
}

TEST_CASE("npy: a large shape and a header that needs more padding keep the alignment") {
  TempDir tmp("hg_test_npy_");
  const fs::path file = tmp.path / "big.npy";
  const std::vector<uint16_t> bits(size_t(1000) * 70, 0x3C00);
  hg::write_npy_f16(file.string(), bits.data(), 1000, 70);
  const std::string bytes = read_bytes(file);
  const size_t header_len = size_t(uint8_t(bytes[8])) | size_t(uint8_t(bytes[9])) << 8;
  CHECK((10 + header_len) % 64 == 0);
  CHECK(contains(bytes.substr(10, header_len), "'shape': (1000, 70), }"));
  const hg::NpyF16 back = hg::read_npy_f16(file.string());
  CHECK(back.rows == 1000);
  CHECK(back.cols == 70);
  CHECK(back.bits == bits);
}

TEST_CASE("npy: the reader refuses bad magic, a wrong descr, Fortran order, a 1-D shape and truncated data") {
  TempDir tmp("hg_test_npy_");
  const fs::path good = tmp.path / "good.npy";
  hg::write_npy_f16(good.string(), kBits.data(), 3, 5);
  const std::string bytes = read_bytes(good);
  const fs::path bad = tmp.path / "bad.npy";

  std::string b = bytes;
  b[1] = 'X';
  write_bytes(bad, b);
  CHECK(contains(read_error(bad), "magic"));

  b = bytes;
  b.replace(b.find("<f2"), 3, "<f4");
  write_bytes(bad, b);
  CHECK(contains(read_error(bad), "descr"));

  b = bytes;
  b.replace(b.find("False"), 5, "True ");
  write_bytes(bad, b);
  CHECK(contains(read_error(bad), "fortran_order"));

  b = bytes;
  b.replace(b.find("(3, 5)"), 6, "(15,) ");
  write_bytes(bad, b);
  CHECK(contains(read_error(bad), "shape"));

  b = bytes;
  b[6] = 3;  // version 3.0 does not exist for this reader
  write_bytes(bad, b);
  CHECK(contains(read_error(bad), "version"));

  write_bytes(bad, bytes.substr(0, bytes.size() - 2));  // one element short
  const std::string truncated = read_error(bad);
  CHECK(contains(truncated, "expected 30 data bytes"));
  CHECK(contains(truncated, bad.string()));

  write_bytes(bad, bytes + "xx");  // one element too many
  CHECK(contains(read_error(bad), "expected 30 data bytes"));

  write_bytes(bad, bytes.substr(0, 7));  // not even a full prefix
  CHECK(!contains(read_error(bad), "<no exception>"));

  CHECK(contains(read_error(tmp.path / "missing.npy"), "missing.npy"));
}

TEST_CASE("npy: writing into a directory that does not exist names the path and the OS reason") {
  TempDir tmp("hg_test_npy_");
  const std::string path = (tmp.path / "no_such_dir" / "D.npy").string();
  try {
    hg::write_npy_f16(path, kBits.data(), 3, 5);
    FAIL("writing into a missing directory did not throw");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    CHECK(contains(msg, "cannot write '" + path + "'"));
    CHECK(contains(msg, "No such file or directory"));
  }
}
