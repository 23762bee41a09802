// docs/figures/accumulators.cpp: who owns which accumulator element, TMEM next to wgmma: the figure of
// docs/concept_tmem_vs_registers.md.
#include <cstdio>
#include <string>
#include <vector>

#include "common/model/ownership.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"

namespace hg::figures {

// ------------------------------------------------------------------------------------------------------
// (b) Who owns which accumulator element: TMEM lanes under tcgen05.ld 32x32b (Blackwell) next to the
// register fragment of wgmma m64n128k16 (Hopper).
// ------------------------------------------------------------------------------------------------------

/// Blackwell epilogue: TMEM lane read by thread t (hg::tmem_ld_32x32b_owner, checked against CUTLASS by
/// tests/test_cutlass_oracle.cu).
int tmem_lane_of_thread(int t) { return hg::tmem_ld_32x32b_owner(t, 0).row; }

/// Hopper epilogue: where acc[h][reg] of thread t sits in half h (hg::wgmma_m64nNk16_acc_owner, likewise
/// checked against CUTLASS).
void wgmma_fragment_pos(int t, int reg, int* row, int* col) {
  const hg::AccCoord c = hg::wgmma_m64nNk16_acc_owner(t, reg);
  *row = c.row;
  *col = c.col;
}

bool draw_tmem_vs_wgmma_fragment(Svg& svg) {
  constexpr int kLanes = 128, kShownCols = 16, kHalfRows = 64, kTotalCols = 128, kThreads = 128;
  // Blackwell check: the 128 threads read the 128 lanes, each exactly once, and only inside their warp's
  // 32-lane window.
  int lane_owner[kLanes];
  for (int& o : lane_owner) o = -1;
  for (int t = 0; t < kThreads; ++t) {
    const int lane = tmem_lane_of_thread(t);
    if (lane < 32 * (t / 32) || lane >= 32 * (t / 32) + 32 || lane_owner[lane] != -1) {
      std::fprintf(stderr, "tmem: thread %d reads lane %d outside its window or twice\n", t, lane);
      return false;
    }
    lane_owner[lane] = t;
  }
  // Hopper check: the 128 threads x 64 registers cover the 64 x 128 half exactly once.
  std::vector<int> owner(kHalfRows * kTotalCols, -1), reg_of(kHalfRows * kTotalCols, -1);
  for (int t = 0; t < kThreads; ++t) {
    for (int reg = 0; reg < 64; ++reg) {
      int row = 0, col = 0;
      wgmma_fragment_pos(t, reg, &row, &col);
      if (row < 0 || row >= kHalfRows || col < 0 || col >= kTotalCols || owner[row * kTotalCols + col] != -1) {
        std::fprintf(stderr, "wgmma fragment: thread %d register %d maps to (%d, %d) twice or outside\n", t, reg, row,
                     col);
        return false;
      }
      owner[row * kTotalCols + col] = t;
      reg_of[row * kTotalCols + col] = reg;
    }
  }

  const double top = 98, lh = 5, tmem_x = 150, tcw = 18;  // TMEM panel: 128 lanes x 5 px = 640 px
  const double frag_x = tmem_x + kShownCols * tcw + 150, fcw = 27, frh = 10;  // fragment: 64 rows x 10 px
  const double bottom = top + kLanes * lh;
  svg.size(frag_x + kShownCols * fcw + 24, bottom + 126);
  svg.text(16, 24, "Who owns which accumulator element after the MMA of a 128 x 128 tile (first 16 of 128 columns)",
           15, "start", kBold);

  // --- Blackwell panel ---------------------------------------------------------------------------------
  svg.text(tmem_x + kShownCols * tcw / 2, 50, "Blackwell: TMEM, 128 lanes", 13, "middle", kBold);
  svg.text(tmem_x + kShownCols * tcw / 2, 66, "tcgen05.ld 32x32b: thread t gets lane t", 11, "middle", kMono);
  for (int c = 0; c < kShownCols; c += 4)
    svg.text(tmem_x + c * tcw + tcw / 2, top - 6, "col " + str(c), 9, "middle", "", "#57606a");
  for (int lane = 0; lane < kLanes; ++lane)  // one row of TMEM per lane, colored by the warp that reads it
    svg.rect(tmem_x, top + lane * lh, kShownCols * tcw, lh, kWarpColors[lane_owner[lane] / 32], "#ffffff", 0.4);
  for (int c = 1; c < kShownCols; ++c)  // column separators: one 32-bit column each
    svg.line(tmem_x + c * tcw, top, tmem_x + c * tcw, bottom, "#ffffff", 0.6);
  for (int w = 0; w < 4; ++w) {
    const double y0 = top + 32 * w * lh;
    svg.rect(tmem_x, y0, kShownCols * tcw, 32 * lh, "none", "#1f2328", 1.5);
    svg.text(tmem_x - 10, y0 + 16 * lh - 8, "warp " + str(w), 12, "end", kBold);
    svg.text(tmem_x - 10, y0 + 16 * lh + 7, "lanes " + str(32 * w) + "-" + str(32 * w + 31), 11, "end");
    svg.text(tmem_x - 10, y0 + 16 * lh + 21, "(32-lane window)", 10, "end", "", "#57606a");
    // Thread labels at the first and last lane of each window.
    const int first = 32 * w, last = 32 * w + 31;
    svg.text(tmem_x + kShownCols * tcw + 6, top + first * lh + 8, "t" + str(lane_owner[first]), 9, "start", kMono);
    svg.text(tmem_x + kShownCols * tcw + 6, top + (last + 1) * lh - 1, "t" + str(lane_owner[last]), 9, "start", kMono);
  }
  // Thread 0's row: all 128 columns of lane 0 end up in thread 0's registers acc[0..127].
  svg.rect(tmem_x, top, kShownCols * tcw, lh, "none", "#000000", 1.6);
  svg.text(tmem_x + kShownCols * tcw + 40, top + 8, "acc[0..127] of t0", 9, "start", "", "#57606a");

  // --- Hopper panel ---------------------------------------------------------------------------------------
  svg.text(frag_x + kShownCols * fcw / 2, 50, "Hopper: registers, wgmma m64n128k16 fragment", 13, "middle", kBold);
  svg.text(frag_x + kShownCols * fcw / 2, 66, "one 64 x 128 half (rows 0-63); cell = owning thread", 11, "middle");
  for (int c = 0; c < kShownCols; c += 2)
    svg.text(frag_x + c * fcw + fcw, top - 6, "col " + str(c), 9, "middle", "", "#57606a");
  for (int row = 0; row < kHalfRows; row += 8)
    svg.text(frag_x - 6, top + row * frh + 8, "row " + str(row), 9, "end", "", "#57606a");
  for (int row = 0; row < kHalfRows; ++row)
    for (int c = 0; c < kShownCols; ++c)
      svg.rect(frag_x + c * fcw, top + row * frh, fcw, frh, kWarpColors[owner[row * kTotalCols + c] / 32], "#ffffff",
               0.5);
  svg.begin_group(std::string("font-size=\"7.5\" text-anchor=\"middle\" fill=\"#1f2328\" ") + kMono);
  for (int row = 0; row < kHalfRows; ++row)
    for (int c = 0; c < kShownCols; ++c)
      svg.bare_text(frag_x + c * fcw + fcw / 2, top + row * frh + 7.6, str(owner[row * kTotalCols + c]));
  svg.end_group();
  for (int w = 0; w < 4; ++w)  // each warp owns 16 rows of the half
    svg.rect(frag_x, top + 16 * w * frh, kShownCols * fcw, 16 * frh, "none", "#1f2328", 1.5);
  // Thread 0's cells among the shown columns: registers acc[h][0..3] and acc[h][4..7].
  for (int row = 0; row < kHalfRows; ++row)
    for (int c = 0; c < kShownCols; ++c)
      if (owner[row * kTotalCols + c] == 0)
        svg.rect(frag_x + c * fcw, top + row * frh, fcw, frh, "none", "#000000", 1.6);
  svg.text(frag_x - 6, top + 64 * frh + 16, "rows 64-127 (h = 1): the same pattern in acc[1][...]", 10, "start", "",
           "#57606a");

  // --- Legend and the two rules ----------------------------------------------------------------------------
  const double ly = bottom + 36;
  for (int w = 0; w < 4; ++w) {
    svg.rect(16 + w * 96, ly - 11, 14, 14, kWarpColors[w], "#1f2328", 0.6);
    svg.text(36 + w * 96, ly, "warp " + str(w), 11);
  }
  svg.rect(16 + 4 * 96, ly - 11, 14, 14, "none", "#000000", 1.6);
  svg.text(36 + 4 * 96, ly, "thread 0", 11);
  svg.text(16, ly + 24,
           "Blackwell: warp w reads lanes 32w..32w+31 (hg::tmem_addr lane field 32w); thread t = 32w + l gets lane t, "
           "register i = column i: one whole row per thread.",
           11);
  svg.text(16, ly + 42,
           "Hopper: thread t holds acc[h][4j+0..1] at row 16(t/32) + (t%32)/4, columns 8j + 2(t%4) + {0,1}; "
           "acc[h][4j+2..3] at the same columns, 8 rows down.",
           11);
  // Thread 0's registers in the shown columns, read back from the fragment map.
  std::string t0 = "Hopper, thread 0 in columns 0-15:";
  for (int reg = 0; reg < 8; ++reg) {
    int row = 0, col = 0;
    wgmma_fragment_pos(0, reg, &row, &col);
    t0 += " acc[h][" + str(reg) + "]=(" + str(row) + "," + str(col) + ")";
  }
  svg.text(16, ly + 60, t0 + "  (row, column) inside half h", 11, "start", "", "#57606a");
  return true;
}

}  // namespace hg::figures
