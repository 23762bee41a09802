// docs/figures/step9_ownership.cu: which rows and columns of step 9's Hopper pair tile each CTA, each consumer
// warpgroup and each warp own (docs/step9_multi_consumer.md). Every size is the kernel's constant (this file
// includes step9_multi_consumer's header, so it is compiled by nvcc, host code only), and the warps' rows are the
// wgmma fragment's (hg::wgmma_m64nNk16_acc_owner); the figure checks them against each other before it draws.
#include <cstdio>
#include <string>
#include <vector>

#include "common/model/ownership.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"
#include "step9_multi_consumer/hgemm_sm90.cuh"

namespace hg::figures {

namespace {

namespace k9 = step9::sm90;

// CTA r, consumer c: a light and a darker shade of CTA r's color.
const char* const kOwnFill[2][2] = {{"#c6dbef", "#9ecae1"}, {"#fdd0a2", "#fdae6b"}};
const char* const kCtaLine[2] = {"#3182bd", "#e6550d"};

}  // namespace

bool draw_step9_ownership(Svg& svg) {
  constexpr int kCtas = 2;  // the cluster's pair, along M
  const int chunks = k9::BLK_N / k9::kDBoxCols;
  struct Check {
    bool ok;
    const char* what;
  } checks[] = {
      {k9::kConsumers * k9::WGMMA_M == k9::BLK_M, "the consumers' 64-row slabs make the CTA's tile"},
      {kCtas * k9::B_ROWS == k9::BLK_N, "the two CTAs' halves of B make the tile's columns"},
      {int(k9::kEmptyArrivals) == kCtas * k9::kConsumers, "empty_bar counts every consumer of both CTAs"},
      {k9::BLK_N % k9::kDBoxCols == 0 && k9::kDBoxes == 2, "a slab is written in 64-column chunks through 2 boxes"},
      {k9::kAccFloats * hg::kWarpgroupThreads == k9::WGMMA_M * k9::BLK_N, "a consumer's registers hold its slab"},
  };
  for (const Check& c : checks)
    if (!c.ok) {
      std::fprintf(stderr, "step 9 ownership figure: %s does not hold\n", c.what);
      return false;
    }
  // The warps of a consumer: every element of its 64 x BLK_N slab held once, and warp w holds rows 16w..16w+15.
  std::vector<int> held(size_t(k9::WGMMA_M * k9::BLK_N), 0);
  for (int t = 0; t < hg::kWarpgroupThreads; ++t)
    for (int reg = 0; reg < k9::kAccFloats; ++reg) {
      const hg::AccCoord at = hg::wgmma_m64nNk16_acc_owner(t, reg);
      if (at.row / 16 != t / 32 || at.row >= k9::WGMMA_M || at.col >= k9::BLK_N) {
        std::fprintf(stderr, "step 9 ownership figure: thread %d's register %d is row %d, column %d: not warp %d's "
                             "16 rows of the slab\n", t, reg, at.row, at.col, t / 32);
        return false;
      }
      ++held[size_t(at.row * k9::BLK_N + at.col)];
    }
  for (int h : held)
    if (h != 1) {
      std::fprintf(stderr, "step 9 ownership figure: an element of a consumer's slab is held %d times\n", h);
      return false;
    }

  const double px = 1.5, x0 = 250, y0 = 110;  // one element: 1.5 px
  const int pair_rows = kCtas * k9::BLK_M;
  svg.text(16, 24, "Step 9, Hopper: the " + str(pair_rows) + " x " + str(k9::BLK_N) +
                       " pair tile, by CTA, consumer warpgroup, warp and epilogue chunk",
           15, "start", kBold);
  // --- The columns: B's rows, half from each CTA ------------------------------------------------------------
  for (int r = 0; r < kCtas; ++r) {
    const double x = x0 + r * k9::B_ROWS * px, w = k9::B_ROWS * px;
    svg.rect(x, y0 - 34, w, 18, kOwnFill[r][1], kCtaLine[r], 1);
    svg.text(x + w / 2, y0 - 21, "B rows " + str(r * k9::B_ROWS) + "-" + str((r + 1) * k9::B_ROWS - 1) +
                                     ": CTA " + str(r) + " loads, multicast",
             9, "middle");
  }
  svg.text(x0 - 8, y0 - 21, "columns of D:", 10, "end", "", kGrey);
  // --- The rows: CTA, consumer, warp; the chunks across ------------------------------------------------------
  for (int r = 0; r < kCtas; ++r)
    for (int c = 0; c < k9::kConsumers; ++c) {
      const int row0 = r * k9::BLK_M + c * k9::WGMMA_M;
      const double y = y0 + row0 * px, h = k9::WGMMA_M * px;
      for (int ch = 0; ch < chunks; ++ch) {
        const double x = x0 + ch * k9::kDBoxCols * px, w = k9::kDBoxCols * px;
        svg.rect(x, y, w, h, kOwnFill[r][c], "#ffffff", 1.5);
        svg.text(x + w / 2, y + h / 2 - 2, "chunk " + str(ch), 10, "middle", kBold);
        svg.text(x + w / 2, y + h / 2 + 12, "box " + str(ch % k9::kDBoxes), 9, "middle", "", kGrey);
      }
      for (int w = 1; w < hg::kWarpgroupThreads / 32; ++w)  // the warps' 16-row stripes
        svg.line(x0, y + w * 16 * px, x0 + k9::BLK_N * px, y + w * 16 * px, "#ffffff", 0.8, "stroke-dasharray=\"2 2\"");
      svg.text(x0 - 8, y + h / 2 - 2, "consumer " + str(c) + " (warpgroup " + str(c) + ")", 10, "end", kBold);
      svg.text(x0 - 8, y + h / 2 + 12, "pair rows " + str(row0) + "-" + str(row0 + k9::WGMMA_M - 1), 9, "end", "",
               kGrey);
    }
  for (int r = 0; r < kCtas; ++r) {
    const double y = y0 + r * k9::BLK_M * px, h = k9::BLK_M * px;
    svg.rect(x0, y, k9::BLK_N * px, h, "none", kCtaLine[r], 2.2);
    svg.line(x0 - 200, y + 1, x0 - 200, y + h - 1, kCtaLine[r], 3);
    svg.text(x0 - 194, y + 14, "CTA " + str(r) + " (rank " + str(r) + ")", 11, "start", kBold, kCtaLine[r]);
    svg.text(x0 - 194, y + 28, "A rows: its own " + str(k9::BLK_M), 9, "start", "", kGrey);
  }
  const double xr = x0 + k9::BLK_N * px + 12;
  const double yw = y0;  // the warps of CTA 0's consumer 0, named
  for (int w = 0; w < hg::kWarpgroupThreads / 32; ++w)
    svg.text(xr, yw + (w * 16 + 10) * px, "warp " + str(w) + ": rows " + str(16 * w) + "-" + str(16 * w + 15), 9,
             "start", "", kGrey);
  svg.text(xr, yw + k9::WGMMA_M * px + 14, "(in every consumer: warp w,", 9, "start", "", kGrey);
  svg.text(xr, yw + k9::WGMMA_M * px + 26, "rows 16w..16w+15 of its slab)", 9, "start", "", kGrey);
  const double yb = y0 + pair_rows * px + 28;
  svg.text(16, yb, "Each CTA computes its own " + str(k9::BLK_M) + " rows against all " + str(k9::BLK_N) +
                       " columns; consumer c of each CTA holds rows " + str(k9::WGMMA_M) + "c.." + str(k9::WGMMA_M) +
                       "c+" + str(k9::WGMMA_M - 1) + " x " + str(k9::BLK_N) + " in registers (wgmma m64n256k16),",
           11);
  svg.text(16, yb + 16, "and writes them back as " + str(chunks) + " chunks of " + str(k9::kDBoxCols) +
                            " columns, chunk c through staging box c % " + str(k9::kDBoxes) +
                            ". A stage is free after " + str(int(k9::kEmptyArrivals)) +
                            " arrivals: both consumers of both CTAs.",
           11);
  svg.text(16, yb + 34, "Sizes: the kernel's BLK_M, BLK_N, WGMMA_M, kConsumers, B_ROWS, kDBoxCols and kDBoxes; the "
                        "warps' rows: hg::wgmma_m64nNk16_acc_owner.", 11, "start", "", kGrey);
  svg.size(820, yb + 50);
  return true;
}

}  // namespace hg::figures
