// docs/figures/step9_ownership.cu: which rows and columns of step 9's pair tile each CTA and each consumer own
// (docs/step9_multi_consumer.md), one figure per architecture: on Hopper also each warp, on Blackwell each CTA's
// A blocks and B part of a stage and each consumer's TMEM columns. Every size is the kernels' constant (this file
// includes step9_multi_consumer's headers, so it is compiled by nvcc, host code only), the Hopper warps' rows are
// the wgmma fragment's (hg::wgmma_m64nNk16_acc_owner) and the Blackwell epilogue's rows the TMEM load's
// (hg::tmem_ld_32x32b_owner); each figure checks them against each other before it draws.
#include <cstdio>
#include <string>
#include <vector>

#include "common/model/ownership.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"
#include "step9_multi_consumer/hgemm_sm100.cuh"
#include "step9_multi_consumer/hgemm_sm90.cuh"

namespace hg::figures {

namespace {

namespace k9 = step9::sm90;
namespace bw = step9::sm100;

constexpr int kCtas = 2;  // the cluster's pair, along M

// CTA r, consumer c: a light and a darker shade of CTA r's color.
const char* const kOwnFill[2][2] = {{"#c6dbef", "#9ecae1"}, {"#fdd0a2", "#fdae6b"}};
const char* const kCtaLine[2] = {"#3182bd", "#e6550d"};

struct Check {
  bool ok;
  const char* what;
};

template <size_t N>
bool all_hold(const Check (&checks)[N], const char* figure) {
  for (const Check& c : checks)
    if (!c.ok) {
      std::fprintf(stderr, "%s: %s does not hold\n", figure, c.what);
      return false;
    }
  return true;
}

std::string span(int first, int count) { return str(first) + "-" + str(first + count - 1); }

}  // namespace

bool draw_step9_ownership(Svg& svg) {
  const int chunks = k9::BLK_N / k9::kDBoxCols;
  const Check checks[] = {
      {k9::kConsumers * k9::WGMMA_M == k9::BLK_M, "the consumers' 64-row slabs make the CTA's tile"},
      {kCtas * k9::B_ROWS == k9::BLK_N, "the two CTAs' halves of B make the tile's columns"},
      {int(k9::kEmptyArrivals) == kCtas * k9::kConsumers, "empty_bar counts every consumer of both CTAs"},
      {k9::BLK_N % k9::kDBoxCols == 0 && k9::kDBoxes == 2, "a slab is written in 64-column chunks through 2 boxes"},
      {k9::kAccFloats * hg::kWarpgroupThreads == k9::WGMMA_M * k9::BLK_N, "a consumer's registers hold its slab"},
  };
  if (!all_hold(checks, "step 9 ownership figure")) return false;
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


Step9Sm100FigureInputs step9_sm100_figure_inputs() {
  return {kCtas,     bw::kConsumers,     bw::BLK_M,  bw::BLK_N,
          bw::MMA_M, bw::CLUSTER_TILE_M, bw::B_ROWS, int(bw::kTmemCols)};
}

bool draw_step9_ownership_sm100(Svg& svg) {
  constexpr int kTmemLanes = 128, kTmemColumns = 512;  // a CTA's TMEM: 128 lanes x 512 columns of 32 bits
  constexpr size_t kStageA = sizeof(bw::Smem<1>::A), kStageB = sizeof(bw::Smem<1>::B);  // one stage's bytes
  const int chunks = bw::BLK_N / bw::kDBoxCols;
  const Check checks[] = {
      {bw::kConsumers * bw::MMA_M == bw::CLUSTER_TILE_M, "the consumers' pair MMAs make the pair's tile"},
      {kCtas * bw::BLK_M == bw::MMA_M, "a pair MMA takes BLK_M of its rows from each CTA"},
      {bw::BLK_M == kTmemLanes, "a CTA's rows of a consumer fill TMEM's 128 lanes"},
      {kCtas * bw::B_ROWS == bw::BLK_N, "the two CTAs' B parts make the tile's columns"},
      {int(bw::kTmemCols) == bw::kConsumers * bw::BLK_N && int(bw::kTmemCols) <= kTmemColumns,
       "one accumulator of BLK_N columns per consumer, within TMEM"},
      {kStageA == size_t(bw::kConsumers) * bw::BLK_M * bw::BLK_K * sizeof(__half), "a stage's A: a block per consumer"},
      {kStageB == size_t(bw::B_ROWS) * bw::BLK_K * sizeof(__half), "a stage's B: this CTA's B_ROWS rows"},
      {bw::kPairTmaBytes == kCtas * (kStageA + kStageB), "the leader's full barrier counts both CTAs' stages"},
      {int(bw::kEmptyArrivals) == bw::kConsumers, "empty_bar counts one commit per consumer"},
      {int(bw::kEpilogueThreads) == bw::BLK_M && bw::BLK_N % bw::kDBoxCols == 0,
       "an epilogue warpgroup has a thread per row and drains whole 64-column chunks"},
  };
  if (!all_hold(checks, "step 9 Blackwell ownership figure")) return false;
  for (int t = 0; t < int(bw::kEpilogueThreads); ++t)  // thread t of an epilogue reads TMEM lane t: its CTA's row t
    if (hg::tmem_ld_32x32b_owner(t, 0).row != t) {
      std::fprintf(stderr, "step 9 Blackwell ownership figure: epilogue thread %d does not read row %d\n", t, t);
      return false;
    }

  const double px = 1.0, x0 = 330, y0 = 86;  // one element: 1 px
  const double tile_w = bw::BLK_N * px;
  svg.text(16, 24, "Step 9, Blackwell: the " + str(bw::CLUSTER_TILE_M) + " x " + str(bw::BLK_N) +
                       " pair tile by consumer and CTA, a stage's blocks, TMEM's columns",
           15, "start", kBold);
  // --- The columns: B's rows, a part from each CTA, read by both consumers ---------------------------------------
  for (int r = 0; r < kCtas; ++r) {
    const double x = x0 + r * bw::B_ROWS * px, w = bw::B_ROWS * px;
    svg.rect(x, y0 - 30, w, 18, "#eaeef2", kCtaLine[r], 1.5);
    svg.text(x + w / 2, y0 - 17, "CTA " + str(r) + ": B rows " + span(r * bw::B_ROWS, bw::B_ROWS), 9, "middle");
  }
  svg.text(x0 - 8, y0 - 17, "columns of D (B part loaded by):", 10, "end", "", kGrey);
  // --- The rows: consumer c's pair MMA, BLK_M rows of it in each CTA (the kernel's c * MMA_M + rank * BLK_M) ----
  for (int c = 0; c < bw::kConsumers; ++c)
    for (int r = 0; r < kCtas; ++r) {
      const int row0 = c * bw::MMA_M + r * bw::BLK_M;
      const double y = y0 + row0 * px, h = bw::BLK_M * px, cy = y + h / 2;
      svg.rect(x0, y, tile_w, h, kOwnFill[r][c], kCtaLine[r], 2.2);
      for (int ch = 1; ch < chunks; ++ch)  // the epilogue's 64-column chunks, under the labels
        svg.line(x0 + ch * bw::kDBoxCols * px, y + 1, x0 + ch * bw::kDBoxCols * px, y + h - 1, "#ffffff", 0.8,
                 "stroke-dasharray=\"2 2\"");
      svg.text(x0 + tile_w / 2, cy - 14, "consumer " + str(c) + " in CTA " + str(r) + ": rows " + span(row0, bw::BLK_M),
               10, "middle", kBold);
      svg.text(x0 + tile_w / 2, cy + 2, "A block " + str(c) + " of CTA " + str(r) + "'s stages", 9, "middle");
      const std::string tmem = "lanes " + span(0, kTmemLanes) + ", columns " + span(c * bw::BLK_N, bw::BLK_N);
      svg.text(x0 + tile_w / 2, cy + 16, "CTA " + str(r) + "'s TMEM: " + tmem, 9, "middle", "", kGrey);
    }
  for (int ch = 0; ch < chunks; ++ch)
    svg.text(x0 + (ch + 0.5) * bw::kDBoxCols * px, y0 + bw::CLUSTER_TILE_M * px + 14, "chunk " + str(ch), 9, "middle",
             "", kGrey);
  for (int c = 0; c < bw::kConsumers; ++c) {  // consumer c: a bracket over its MMA_M rows, and who serves it
    const double y = y0 + c * bw::MMA_M * px, h = bw::MMA_M * px, cy = y + h / 2;
    svg.line(x0 - 14, y + 2, x0 - 14, y + h - 2, "#1f2328", 3);
    const double xt = x0 - 22;
    svg.text(xt, cy - 44, "consumer " + str(c), 12, "end", kBold);
    svg.text(xt, cy - 28, "MMA warp " + str(bw::kMmaWarp + c) + " of the leader (rank 0) issues", 9.5, "end");
    svg.text(xt, cy - 14, "one " + str(bw::MMA_M) + " x " + str(bw::BLK_N) + " pair MMA: M = " + str(bw::MMA_M) + ", " +
                              str(bw::BLK_M) + " rows in each CTA",
             9.5, "end");
    svg.text(xt, cy + 4, "accumulator: TMEM columns " + span(c * bw::BLK_N, bw::BLK_N) + ", both CTAs", 9.5, "end",
             kBold);
    svg.text(xt, cy + 18, "drained by epilogue warpgroup " + str(c) + " of each CTA", 9.5, "end");
  }
  // --- One stage per CTA, and each CTA's TMEM -------------------------------------------------------------------
  const double x1 = x0 + tile_w + 36, box_w = 300;
  svg.text(x1, y0 - 17, "One stage, per CTA: " + str(int((kStageA + kStageB) / 1024)) + " KiB", 11, "start", kBold);
  for (int r = 0; r < kCtas; ++r) {
    const double yr = y0 + r * 96;
    svg.text(x1, yr + 10, "CTA " + str(r) + "'s stage", 10.5, "start", kBold, kCtaLine[r]);
    for (int b = 0; b <= bw::kConsumers; ++b) {  // the A blocks, then the B part
      const double y = yr + 16 + b * 22;
      const bool is_b = b == bw::kConsumers;
      svg.rect(x1, y, box_w, 18, is_b ? "#eaeef2" : kOwnFill[r][b], kCtaLine[r], 1.5);
      svg.text(x1 + 6, y + 13,
               is_b ? "B part: B rows " + span(r * bw::B_ROWS, bw::B_ROWS)
                    : "A block " + str(b) + ": rows " + span(b * bw::MMA_M + r * bw::BLK_M, bw::BLK_M),
               9.5);
      svg.text(x1 + box_w - 6, y + 13, str(int((is_b ? kStageB : kStageA / bw::kConsumers) / 1024)) + " KiB", 9,
               "end", "", kGrey);
    }
  }
  const double yf = y0 + kCtas * 96 + 8;
  svg.text(x1, yf, "The leader's full barrier counts both CTAs': " + str(int(bw::kPairTmaBytes)) + " bytes", 9.5,
           "start", "", kGrey);
  const double yt = yf + 40, col_px = box_w / bw::kTmemCols;
  svg.text(x1, yt, "Each CTA's TMEM: " + str(kTmemLanes) + " lanes x " + str(int(bw::kTmemCols)) + " columns", 11,
           "start", kBold);
  for (int r = 0; r < kCtas; ++r) {
    const double y = yt + 10 + r * 60;
    svg.text(x1, y + 10, "CTA " + str(r) + " (lane t: its row t of each consumer)", 10, "start", kBold, kCtaLine[r]);
    for (int c = 0; c < bw::kConsumers; ++c) {
      const double x = x1 + c * bw::BLK_N * col_px, w = bw::BLK_N * col_px;
      svg.rect(x, y + 16, w, 22, kOwnFill[r][c], kCtaLine[r], 1.5);
      svg.text(x + w / 2, y + 31, "consumer " + str(c) + ": columns " + span(c * bw::BLK_N, bw::BLK_N), 9, "middle");
    }
  }
  const double yb = y0 + bw::CLUSTER_TILE_M * px + 44;
  svg.text(16, yb, "Consumer c's pair MMA computes rows " + str(bw::MMA_M) + "c.." + str(bw::MMA_M) + "c+" +
                       str(bw::MMA_M - 1) + ": the leader's A block c gives the first " + str(bw::BLK_M) +
                       ", the peer's the next " + str(bw::BLK_M) + ";",
           11);
  svg.text(16, yb + 16, "both consumers read the same B, CTA 0's part then CTA 1's. Epilogue warpgroup c of each CTA "
                        "drains its TMEM columns in " + str(chunks) + " chunks of " + str(bw::kDBoxCols) +
                            " (thread t reads lane t).",
           11);
  svg.text(16, yb + 32, "A stage is free after " + str(int(bw::kEmptyArrivals)) +
                            " commits, one per consumer, each multicast to both CTAs.",
           11);
  svg.text(16, yb + 50, "Sizes: the kernel's BLK_M, BLK_N, MMA_M, kConsumers, CLUSTER_TILE_M, B_ROWS, kTmemCols, "
                        "kDBoxCols and Smem; the epilogue's rows: hg::tmem_ld_32x32b_owner.", 11, "start", "", kGrey);
  svg.size(960, yb + 66);
  return true;
}

}  // namespace hg::figures
