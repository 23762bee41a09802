// CPU tests of the TMA tensor-map geometry builder (common/kernel/tma.hpp).
#include <doctest/doctest.h>

#include <string>

#include "common/kernel/tma.hpp"

using hg::make_tma_tile_2d;
using hg::TmaGeometryError;

TEST_CASE("TMA geometry of the A operand: dimensions innermost first, row stride in bytes, 64 x 128 box") {
  const auto t = make_tma_tile_2d(0x7f0000000000ull, /*rows=*/4096, /*cols=*/1024, /*box_rows=*/128, /*box_cols=*/64);
  CHECK(t.global_dim[0] == 1024);  // K, innermost
  CHECK(t.global_dim[1] == 4096);  // rows
  CHECK(t.global_stride_bytes == 2048);
  CHECK(t.box_dim[0] == 64);
  CHECK(t.box_dim[1] == 128);
  CHECK(t.element_stride[0] == 1);
  CHECK(t.element_stride[1] == 1);
  CHECK(t.swizzle_bytes == 128);
  CHECK(t.box_bytes() == 16384u);  // one A tile; A + B = 32768 = the expect_tx of one K step
}

TEST_CASE("TMA geometry: every broken rule is named") {
  auto message = [](auto&& make) {
    try {
      make();
    } catch (const TmaGeometryError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message([] { make_tma_tile_2d(0x1008, 128, 64, 128, 64); }).find("16-byte aligned") != std::string::npos);
  CHECK(message([] { make_tma_tile_2d(0x1000, 128, 60, 128, 60); }).find("multiple of 16 bytes") != std::string::npos);
  CHECK(message([] { make_tma_tile_2d(0x1000, 0, 64, 128, 64); }).find("between 1 and 2^32") != std::string::npos);
  CHECK(message([] { make_tma_tile_2d(0x1000, 512, 512, 512, 64); }).find("between 1 and 256") != std::string::npos);
  CHECK(message([] { make_tma_tile_2d(0x1000, 512, 512, 128, 128); }).find("at most 128 bytes") != std::string::npos);
  CHECK(message([] { make_tma_tile_2d(0x1000, 512, 512, 128, 4); }).find("inner extent must be a multiple") !=
        std::string::npos);
  CHECK(message([] { make_tma_tile_2d(0x1000, 512, 512, 128, 64); }) == "no error");
}

TEST_CASE("TMA geometry: a box may be larger than a ragged matrix (TMA zero-fills loads and clips stores)") {
  const auto t = make_tma_tile_2d(0x1000, /*rows=*/3, /*cols=*/8, /*box_rows=*/128, /*box_cols=*/64);
  CHECK(t.global_dim[0] == 8);
  CHECK(t.global_dim[1] == 3);
  CHECK(t.global_stride_bytes == 16);  // K = 8: the smallest row TMA takes
  CHECK(t.box_dim[0] == 64);
  CHECK(t.box_dim[1] == 128);
  // K = 100 makes rows of 200 bytes: refused, as the kAny shape rule refuses K = 100 first.
  CHECK_THROWS_AS(make_tma_tile_2d(0x1000, 128, 100, 128, 64), TmaGeometryError);
}

TEST_CASE("TMA geometry: the message carries the offending value") {
  try {
    make_tma_tile_2d(0x1004, 128, 64, 128, 64);
    FAIL("expected a TmaGeometryError");
  } catch (const TmaGeometryError& e) {
    CHECK(std::string(e.what()).find("4100") != std::string::npos);
  }
}
