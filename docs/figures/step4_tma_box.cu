// docs/figures/step4_tma_box.cu: step 4's TMA boxes and the byte count of its barrier (docs/step4_tma.md). The
// tile sizes and the byte count are the kernel's constants (this file includes step4_tma's header, so it is
// compiled by nvcc, host code only), the layout in shared memory is hg::swizzle128b_offset, and the barrier's
// counts are replayed by the host model hg::model::Mbarrier; all are checked against each other before drawing.
#include <cstdio>
#include <string>

#include "common/kernel/descriptors.hpp"
#include "common/model/phase_model.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"
#include "step4_tma/hgemm_sm90.cuh"

namespace hg::figures {

namespace {

namespace k4 = step4::sm90;

const char* const kBarColor = "#38761d";  // what the barrier counts
const char* const kInkLine = "#1f2328";

/// A matrix in global memory, row-major, with the box of one TMA copy marked; `name` and its rows.
void gmem_matrix(Svg& svg, double x, double y, const std::string& name, const std::string& rows, int box_rows) {
  const double w = 230, h = 120, bw = 46, bh = 60;  // schematic: a few boxes across K, two down
  svg.rect(x, y, w, h, "#f6f8fa", kGrey, 1);
  for (double bx = x + bw; bx < x + w - 1; bx += bw) svg.line(bx, y, bx, y + h, "#d0d7de", 1);
  svg.line(x, y + bh, x + w, y + bh, "#d0d7de", 1);
  svg.rect(x + 2 * bw, y, bw, bh, "#9ecae1", "#3182bd", 2);
  svg.text(x + 2 * bw + bw / 2, y + bh / 2 - 2, "box", 10, "middle", kBold);
  svg.text(x + 2 * bw + bw / 2, y + bh / 2 + 11, "K tile i", 9, "middle");
  svg.text(x, y - 8, name + ": " + rows + " x K fp16, row-major (K contiguous)", 11, "start", kBold);
  svg.text(x + w + 6, y + bh / 2 + 4, str(box_rows) + " rows", 9, "start", "", kGrey);
  svg.text(x + 2 * bw + bw / 2, y + h + 14, str(k4::BLK_K) + " K = " + str(k4::BLK_K * 2) + " bytes", 9, "middle", "",
           kGrey);
}

/// A tile in shared memory: rows of eight 16-byte chunks, each chunk colored by the K chunk (8 fp16 of K) that
/// the 128B swizzle puts there (hg::swizzle128b_offset). Its first two 1024-byte atoms (8 rows each) are drawn
/// row by row; the others repeat them.
void smem_tile(Svg& svg, double x, double y, const std::string& name, int rows) {
  constexpr double kCw = 15, kRh = 6;
  constexpr int kShown = 16;
  for (int r = 0; r < kShown; ++r)
    for (int c = 0; c < 8; ++c) {
      const uint32_t at = (hg::swizzle128b_offset(uint32_t(r), uint32_t(c * 8)) % hg::kSwizzleRowBytes) / 16;
      svg.rect(x + at * kCw, y + r * kRh, kCw, kRh, kChunkColors[c], "#ffffff", 0.3);
    }
  const int atoms = rows * hg::kSwizzleRowBytes / int(hg::kSwizzleAtomBytes);
  svg.line(x, y + 8 * kRh, x + 8 * kCw, y + 8 * kRh, kInkLine, 1.2);
  svg.rect(x, y + kShown * kRh, 8 * kCw, 44, "#eaeef2", kGrey, 1, "stroke-dasharray=\"3 2\"");
  svg.text(x + 4 * kCw, y + kShown * kRh + 18, "atoms 2-" + str(atoms - 1) + ",", 9, "middle", "", kGrey);
  svg.text(x + 4 * kCw, y + kShown * kRh + 31, "the same pattern", 9, "middle", "", kGrey);
  svg.rect(x, y, 8 * kCw, kShown * kRh + 44, "none", kGrey, 1);
  svg.text(x + 8 * kCw + 4, y + 4 * kRh + 3, "atom 0", 8, "start", "", kGrey);
  svg.text(x + 8 * kCw + 4, y + 12 * kRh + 3, "atom 1", 8, "start", "", kGrey);
  svg.text(x + 4 * kCw, y - 20, name, 11, "middle", kBold);
  svg.text(x + 4 * kCw, y - 7, str(rows) + " rows x 128 B = " + str(rows * hg::kSwizzleRowBytes / 1024) + " KiB, " +
                                   str(atoms) + " atoms", 9, "middle", "", kGrey);
}

}  // namespace

bool draw_step4_tma_box(Svg& svg) {
  const int a_bytes = int(sizeof(k4::Smem::A)), b_bytes = int(sizeof(k4::Smem::B));
  const int tx = int(k4::kTmaBytes);
  struct Check {
    bool ok;
    const char* what;
  } checks[] = {
      {k4::BLK_K * 2 == hg::kSwizzleRowBytes, "a box row (BLK_K fp16) is the 128B swizzle's 128 bytes"},
      {a_bytes == k4::BLK_M * k4::BLK_K * 2 && b_bytes == k4::BLK_N * k4::BLK_K * 2, "smem.A and smem.B hold one box"},
      {tx == (k4::BLK_M + k4::BLK_N) * k4::BLK_K * 2 && tx == a_bytes + b_bytes,
       "expect_tx's bytes (kTmaBytes) are both boxes: (BLK_M + BLK_N) * BLK_K * 2"},
      {a_bytes % int(hg::kSwizzleAtomBytes) == 0 && b_bytes % int(hg::kSwizzleAtomBytes) == 0,
       "each tile is whole 1024-byte swizzle atoms"},
  };
  for (const Check& c : checks)
    if (!c.ok) {
      std::fprintf(stderr, "step 4 TMA figure: %s does not hold\n", c.what);
      return false;
    }
  // The barrier over one K tile, as the kernel runs it: thread 0 issues both copies, then arrive.expect_tx(bytes);
  // the copies land. Replayed by the model: after each event, its tx-count, pending arrivals and completed phases.
  hg::model::Mbarrier bar(1);  // mbarrier.init(&tma_bar, 1)
  struct Event {
    std::string what;
    int tx, pending, completed;
  } ev[4];
  ev[0] = {"thread 0 issues both copies", bar.tx_count(), bar.pending_arrivals(), bar.completed_phases()};
  bar.expect_tx(tx);
  bar.arrive();
  ev[1] = {"arrive.expect_tx(" + str(tx) + ")", bar.tx_count(), bar.pending_arrivals(), bar.completed_phases()};
  bar.complete_tx(a_bytes);
  ev[2] = {"A lands: complete_tx " + str(a_bytes), bar.tx_count(), bar.pending_arrivals(), bar.completed_phases()};
  bar.complete_tx(b_bytes);
  ev[3] = {"B lands: complete_tx " + str(b_bytes), bar.tx_count(), bar.pending_arrivals(), bar.completed_phases()};
  if (ev[1].tx != tx || ev[1].completed != 0 || ev[2].completed != 0 || ev[3].completed != 1 ||
      !bar.try_wait_parity(0) || bar.try_wait_parity(1)) {
    std::fprintf(stderr, "step 4 TMA figure: the model's tma_bar does not complete phase 0 exactly at the last "
                         "byte\n");
    return false;
  }

  svg.text(16, 24, "Step 4: one K tile, two TMA boxes into shared memory, and the bytes tma_bar waits for", 15,
           "start", kBold);
  // --- The boxes --------------------------------------------------------------------------------------------
  const double ya = 70, yb = 230;
  gmem_matrix(svg, 16, ya, "A", "M", k4::BLK_M);
  gmem_matrix(svg, 16, yb, "B", "N", k4::BLK_N);
  const double xs = 560, ys = 74;
  smem_tile(svg, xs, ys, "smem.A", k4::BLK_M);
  smem_tile(svg, xs + 190, ys, "smem.B", k4::BLK_N);
  arrow(svg, 16 + 2 * 46 + 46, ya + 30, xs - 6, ys + 40, "#3182bd");
  arrow(svg, 16 + 2 * 46 + 46, yb + 30, xs + 190 - 6, ys + 120, "#3182bd");
  svg.text(290, 138, "cp.async.bulk.tensor (thread 0)", 10, "start", kMono, "#3182bd");
  svg.text(290, 152, str(a_bytes) + " bytes; complete_tx on tma_bar", 10, "start", "", "#3182bd");
  svg.text(290, 290, "B: the same, " + str(b_bytes) + " bytes", 10, "start", "", "#3182bd");
  const double yl = ys + 16 * 6 + 44 + 20;
  svg.text(xs, yl, "Rows of 128 bytes = 8 chunks of 16 bytes (8 fp16 of K), colored by K chunk:", 10);
  svg.text(xs, yl + 14, "the 128B swizzle puts chunk c of row r at position c ^ (r % 8) (hg::swizzle128b_offset).", 10);
  for (int c = 0; c < 8; ++c) {
    svg.rect(xs + c * 44, yl + 22, 14, 12, kChunkColors[c], kGrey, 0.5);
    svg.text(xs + c * 44 + 18, yl + 32, "k" + str(8 * c) + "+", 9);
  }

  // --- The tx-count over time ---------------------------------------------------------------------------------
  const double y0 = 430, hh = 110, x0 = 200, dx = 190;
  svg.text(16, y0 - 26, "tma_bar during K tile i (phase parity phase_tma = 0), replayed by hg::model::Mbarrier", 13,
           "start", kBold);
  svg.text(x0 - 10, y0 + 4, str(tx), 9, "end", "", kGrey);
  svg.text(x0 - 10, y0 + hh / 2 + 4, str(tx / 2), 9, "end", "", kGrey);
  svg.text(x0 - 10, y0 + hh + 4, "0", 9, "end", "", kGrey);
  svg.text(x0 - 52, y0 + hh / 2 - 10, "tx-count", 11, "end", kBold, kBarColor);
  svg.line(x0, y0 + hh, x0 + 4 * dx, y0 + hh, kGrey, 1);
  svg.line(x0, y0, x0, y0 + hh, kGrey, 1);
  for (int i = 0; i < 4; ++i) {
    const double x = x0 + i * dx, yt = y0 + hh - hh * ev[i].tx / tx;
    svg.rect(x + 2, yt, dx - 4, y0 + hh - yt, "#d9ead3", kBarColor, ev[i].tx ? 1.2 : 0);
    svg.text(x + dx / 2, yt - 6, str(ev[i].tx) + " bytes", 10, "middle", kBold, kBarColor);
    svg.line(x, y0 - 8, x, y0 + hh + 70, "#d0d7de", 1, "stroke-dasharray=\"3 3\"");
    svg.text(x + 4, y0 + hh + 16, ev[i].what, 10, "start", kMono);
    svg.text(x + 4, y0 + hh + 32, "pending arrivals " + str(ev[i].pending) + (ev[i].completed ? " (phase 1's)" : ""),
             10, "start", "", kGrey);
    const bool done = ev[i].completed > 0;
    svg.rect(x + 2, y0 + hh + 40, dx - 4, 20, kParityFill[done], kParityEdge[done], 1);
    svg.text(x + dx / 2, y0 + hh + 54, done ? "phase 0 complete: parity 1 in progress" : "phase 0 in progress", 10,
             "middle");
  }
  const double yn = y0 + hh + 90;
  svg.text(16, yn, "Every thread waits with mbarrier.try_wait.parity(tma_bar, phase_tma): it passes once the arrival "
                   "is in and the tx-count is back at 0, i.e. at the last byte;", 11);
  svg.text(16, yn + 16, "then phase_tma flips. The copies are issued before the expect_tx; bytes that land first take "
                        "the count below 0, and the pending arrival still holds the phase.", 11);
  svg.text(16, yn + 34, "Sizes: the kernel's BLK_M = " + str(k4::BLK_M) + ", BLK_N = " + str(k4::BLK_N) +
                            ", BLK_K = " + str(k4::BLK_K) + " and kTmaBytes = (BLK_M + BLK_N) x BLK_K x 2 = " +
                            str(tx) + "; events in order, not to scale.",
           11, "start", "", kGrey);
  svg.size(x0 + 4 * dx + 30, yn + 50);
  return true;
}

}  // namespace hg::figures
