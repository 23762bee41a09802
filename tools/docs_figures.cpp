// tools/docs_figures.cpp: draws the figures of the documentation as SVG files, and writes its generated
// tables as HTML fragments, all computed from the code.
//
// Built by docs/CMakeLists.txt as a small host program and run by the `docs` target before Doxygen:
//   hg_docs_figures <figures-dir> <fragments-dir>
//                                     writes every figure below into <figures-dir> (Doxygen's IMAGE_PATH)
//                                     and every table into <fragments-dir> (on Doxygen's EXAMPLE_PATH)
//   hg_docs_figures --list            prints the file names, one a line
// Nothing is drawn or typed by hand: each figure and table evaluates the real functions of common/ (the
// swizzle and the TMEM addressing of common/descriptors.hpp, the tile scheduler of common/scheduler.hpp),
// the host models of the protocols that the CPU tests also run (common/model/), or
// the Hopper epilogue's fragment indexing (hg::wgmma_m64nNk16_acc_owner), and checks what it shows before writing it;
// a failed check exits with 1, so a code change that breaks a figure's or a table's claim breaks the docs
// build.
//
// Adding a figure: write a function `bool draw_xxx(Svg& svg)` (return false after printing why if a
// check fails), then add one line to kFigures at the bottom. Pages show it with
// `\image html xxx.svg "caption"`.
// Adding a table: write `bool table_xxx(std::string& html)` (build it with HtmlTable), add one line to
// kFragments. Pages show it with `\htmlinclude xxx.html`.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/descriptors.hpp"
#include "common/scheduler.hpp"
#include "common/model/phase_model.hpp"
#include "common/model/ws_model.hpp"

namespace {

// ------------------------------------------------------------------------------------------------------
// A minimal SVG writer: rectangles, text and lines in absolute pixel coordinates.
// ------------------------------------------------------------------------------------------------------
class Svg {
 public:
  void size(double w, double h) { w_ = w, h_ = h; }

  /// extra: more attributes, e.g. stroke-dasharray="4 3" or rx="3".
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "#ffffff",
            double stroke_width = 1.0, const std::string& extra = "") {
    out_ << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\"" << fill
         << "\" stroke=\"" << stroke << "\" stroke-width=\"" << stroke_width << "\"";
    if (!extra.empty()) out_ << " " << extra;
    out_ << "/>\n";
  }

  /// A closed polygon, e.g. an arrowhead; points as "x1,y1 x2,y2 ...".
  void polygon(const std::string& points, const std::string& fill) {
    out_ << "<polygon points=\"" << points << "\" fill=\"" << fill << "\"/>\n";
  }

  /// anchor: "start", "middle" or "end"; the baseline is at y.
  void text(double x, double y, const std::string& s, double font_size = 12, const std::string& anchor = "start",
            const std::string& style = "", const std::string& fill = "#1f2328") {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << font_size << "\" text-anchor=\"" << anchor
         << "\" fill=\"" << fill << "\"";
    if (!style.empty()) out_ << " " << style;
    out_ << ">" << escape(s) << "</text>\n";
  }

  void line(double x1, double y1, double x2, double y2, const std::string& stroke = "#57606a", double width = 1.0,
            const std::string& extra = "") {
    out_ << "<line x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2 << "\" y2=\"" << y2 << "\" stroke=\""
         << stroke << "\" stroke-width=\"" << width << "\"";
    if (!extra.empty()) out_ << " " << extra;
    out_ << "/>\n";
  }

  /// Text that inherits its font and color from an enclosing group (keeps large figures small).
  void bare_text(double x, double y, const std::string& s) {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\">" << escape(s) << "</text>\n";
  }

  /// Opens and closes a <g> element whose attributes (e.g. font-size="8" text-anchor="middle") apply to
  /// everything drawn in between.
  void begin_group(const std::string& attributes) { out_ << "<g " << attributes << ">\n"; }
  void end_group() { out_ << "</g>\n"; }

  /// The finished document: a white background (figures stay readable on dark themes) and a font stack.
  std::string str() const {
    std::ostringstream doc;
    doc << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w_ << "\" height=\"" << h_ << "\" viewBox=\"0 0 "
        << w_ << " " << h_ << "\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        << "<rect x=\"0\" y=\"0\" width=\"" << w_ << "\" height=\"" << h_ << "\" fill=\"#ffffff\"/>\n"
        << out_.str() << "</svg>\n";
    return doc.str();
  }

 private:
  static std::string escape(const std::string& s) {
    std::string r;
    for (char c : s) {
      if (c == '&') r += "&amp;";
      else if (c == '<') r += "&lt;";
      else if (c == '>') r += "&gt;";
      else r += c;
    }
    return r;
  }

  double w_ = 100, h_ = 100;
  std::ostringstream out_;
};

const char* const kMono = "font-family=\"Menlo, Consolas, 'DejaVu Sans Mono', monospace\"";
const char* const kBold = "font-weight=\"bold\"";

// Eight light, distinct colors (one per 16-byte chunk) and four for the warps of a warpgroup.
const char* const kChunkColors[8] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                     "#80b1d3", "#fdb462", "#b3de69", "#fccde5"};
const char* const kWarpColors[4] = {"#9ecae1", "#fdae6b", "#a1d99b", "#f4a6a6"};

std::string str(int v) { return std::to_string(v); }

// ------------------------------------------------------------------------------------------------------
// (a) The 128B swizzle of one 1024-byte atom, from hg::swizzle128b_offset.
// ------------------------------------------------------------------------------------------------------
bool draw_swizzle128b_atom(Svg& svg) {
  constexpr int kRows = 8, kChunks = 8;  // one atom: 8 rows of 128 bytes = 8 chunks of 16 bytes (8 fp16)
  // holder[r][p]: the logical chunk (K elements 8c..8c+7 of row r) stored at 16-byte position p of row r.
  int holder[kRows][kChunks];
  for (auto& row : holder)
    for (int& h : row) h = -1;
  for (int r = 0; r < kRows; ++r) {
    for (int c = 0; c < kChunks; ++c) {
      for (int e = 0; e < 8; ++e) {  // every element of the chunk must land in one and the same 16-byte slot
        const uint32_t off = hg::swizzle128b_offset(r, c * 8 + e);
        const uint32_t expect_row_base = uint32_t(r) * 128u;
        if (off < expect_row_base || off >= expect_row_base + 128u || off % 2 != 0 ||
            (off - expect_row_base) / 16u != (hg::swizzle128b_offset(r, c * 8) - expect_row_base) / 16u ||
            off % 16u != uint32_t(e) * 2u) {
          std::fprintf(stderr, "swizzle: element (%d, %d) at byte %u breaks the chunk layout\n", r, c * 8 + e, off);
          return false;
        }
      }
      const int p = int((hg::swizzle128b_offset(r, c * 8) - uint32_t(r) * 128u) / 16u);
      if (holder[r][p] != -1) {
        std::fprintf(stderr, "swizzle: row %d, position %d is written twice\n", r, p);
        return false;
      }
      holder[r][p] = c;
    }
  }
  // The property the figure shows: the same logical chunk of the 8 rows covers all 8 positions (bank
  // groups), so a column of the swizzled tile never repeats a color.
  for (int c = 0; c < kChunks; ++c) {
    bool seen[kChunks] = {};
    for (int r = 0; r < kRows; ++r)
      for (int p = 0; p < kChunks; ++p)
        if (holder[r][p] == c) seen[p] = true;
    for (bool s : seen)
      if (!s) {
        std::fprintf(stderr, "swizzle: chunk %d does not visit every 16-byte position\n", c);
        return false;
      }
  }
  if (hg::swizzle128b_offset(kRows, 0) != hg::kSwizzleAtomBytes) {
    std::fprintf(stderr, "swizzle: row 8 does not start the next 1024-byte atom\n");
    return false;
  }

  const double cw = 52, ch = 34, top = 92, left_x = 70, gap = 116, right_x = left_x + kChunks * cw + gap;
  svg.size(right_x + kChunks * cw + 16, top + kRows * ch + 78);
  svg.text(16, 24, "128B swizzle: one 1024-byte atom of a K-major fp16 tile (8 rows x 128 bytes)", 15, "start", kBold);
  svg.text(left_x + kChunks * cw / 2, 52, "logical: row r of the tile in GMEM", 13, "middle", kBold);
  svg.text(right_x + kChunks * cw / 2, 52, "in shared memory: hg::swizzle128b_offset(r, k)", 13, "middle", kBold);
  for (int p = 0; p < kChunks; ++p) {
    svg.text(left_x + p * cw + cw / 2, top - 8, "k " + str(8 * p) + "-" + str(8 * p + 7), 10, "middle");
    svg.text(right_x + p * cw + cw / 2, top - 20, "byte " + str(16 * p), 10, "middle");
    svg.text(right_x + p * cw + cw / 2, top - 8, "bank " + str(4 * p) + "-" + str(4 * p + 3), 8.5, "middle", "",
             "#57606a");
  }
  for (int r = 0; r < kRows; ++r) {
    const double y = top + r * ch;
    svg.text(left_x - 8, y + ch / 2 + 4, "row " + str(r), 12, "end");
    svg.text(right_x - 8, y + ch / 2 + 4, "+" + str(r * 128), 11, "end", kMono, "#57606a");
    for (int c = 0; c < kChunks; ++c) {  // logical view: chunk c at position c
      svg.rect(left_x + c * cw, y, cw, ch, kChunkColors[c], "#ffffff", 2);
      svg.text(left_x + c * cw + cw / 2, y + ch / 2 + 4, "c" + str(c), 12, "middle", kMono);
    }
    for (int p = 0; p < kChunks; ++p) {  // swizzled view: position p holds chunk holder[r][p] = p ^ r
      const int c = holder[r][p];
      svg.rect(right_x + p * cw, y, cw, ch, kChunkColors[c], "#ffffff", 2);
      svg.text(right_x + p * cw + cw / 2, y + ch / 2 + 4, "c" + str(c), 12, "middle", kMono);
    }
  }
  // The arrow between the panels.
  const double ay = top + kRows * ch / 2;
  const double ax0 = left_x + kChunks * cw + 8, ax1 = right_x - 52;
  svg.line(ax0, ay, ax1, ay, "#57606a", 2);
  svg.line(ax1 - 7, ay - 5, ax1, ay, "#57606a", 2);
  svg.line(ax1 - 7, ay + 5, ax1, ay, "#57606a", 2);
  svg.text((ax0 + ax1) / 2, ay - 10, "c ^ (r%8)", 11, "middle", kMono, "#57606a");

  const double fy = top + kRows * ch + 26;
  svg.text(16, fy,
           "cell = 16 bytes = 8 fp16 (logical chunk c holds k = 8c..8c+7); color = logical chunk. Chunk c of row r "
           "goes to position c XOR (r mod 8).",
           11);
  svg.text(16, fy + 18,
           "Every color appears once in each column of the right grid: 8 rows of the same K chunk hit 8 different "
           "bank groups.",
           11);
  svg.text(16, fy + 36, "Row 8 starts the next atom at byte 1024 and the pattern repeats: tiles start 1024-aligned.",
           11);
  return true;
}

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

// ------------------------------------------------------------------------------------------------------
// (c) mbarrier phases over time, replayed by the host model of common/model/phase_model.hpp.
// ------------------------------------------------------------------------------------------------------
const char* const kParityFill[2] = {"#cfe2f3", "#fce5cd"};  // a barrier's phase of parity 0 / parity 1
const char* const kParityEdge[2] = {"#6d9eeb", "#e69138"};
const char* const kRed = "#cf222e";
const char* const kRedFill = "#ffebe9";
const char* const kGrey = "#57606a";

/// One labelled horizontal band whose fill changes at given x positions: segments[i] = {x start, parity,
/// label}; the last segment ends at x_end.
struct Segment {
  double x;
  int parity;
  std::string label;
};

void parity_band(Svg& svg, double y, double h, const std::vector<Segment>& segments, double x_end) {
  for (size_t i = 0; i < segments.size(); ++i) {
    const double x1 = i + 1 < segments.size() ? segments[i + 1].x : x_end;
    const Segment& s = segments[i];
    svg.rect(s.x, y, x1 - s.x, h, kParityFill[s.parity], kParityEdge[s.parity], 1);
    if (x1 - s.x > 5.8 * double(s.label.size()) + 6)  // the label only where it fits
      svg.text((s.x + x1) / 2, y + h / 2 + 4, s.label, 10, "middle");
  }
}

void arrow_down(Svg& svg, double x, double y0, double y1, const std::string& color) {
  svg.line(x, y0, x, y1 - 5, color, 1.4);
  svg.polygon(str(int(x - 4)) + "," + str(int(y1 - 6)) + " " + str(int(x + 4)) + "," + str(int(y1 - 6)) + " " +
                  str(int(x)) + "," + str(int(y1)),
              color);
}

void parity_legend(Svg& svg, double x, double y) {
  for (int p = 0; p < 2; ++p) {
    svg.rect(x + p * 150, y - 11, 16, 14, kParityFill[p], kParityEdge[p], 1);
    svg.text(x + 22 + p * 150, y, "phase of parity " + str(p), 11);
  }
}

/// One panel of the step 2 K-loop timeline: what the threads, the tensor core, mma_bar and the local bit
/// phase_mma do in each K iteration. Returns the y below the panel.
double kloop_panel(Svg& svg, double y, const std::vector<hg::model::KLoopRow>& rows, const std::string& title) {
  const double x0 = 200, W = 258, rh = 24;
  const double x_end = x0 + double(rows.size()) * W;
  svg.text(16, y, title, 13, "start", kBold);
  const double y_hdr = y + 26, y_thr = y_hdr + 10, y_tc = y_thr + rh + 10, y_bar = y_tc + rh + 12,
               y_loc = y_bar + rh + 8;
  svg.text(190, y_thr + 16, "threads", 11, "end");
  svg.text(190, y_tc + 16, "tensor core", 11, "end");
  svg.text(190, y_bar + 16, "mma_bar (barrier)", 11, "end", kMono);
  svg.text(190, y_loc + 16, "phase_mma (each thread)", 11, "end", kMono);
  std::vector<Segment> bar, loc;
  bar.push_back({x0, int(rows[0].barrier_from), "phase 0, parity " + str(int(rows[0].barrier_from))});
  loc.push_back({x0, int(rows[0].phase_before), "phase_mma = " + str(int(rows[0].phase_before))});
  for (const auto& r : rows) {
    const double sx = x0 + r.k * W, issue = sx + 0.25 * W, done = sx + 0.86 * W;
    svg.text(sx + W / 2, y_hdr, "K iteration " + str(r.k), 11, "middle", kBold);
    if (r.k > 0) svg.line(sx, y_hdr + 4, sx, y_loc + rh + 4, "#d0d7de", 1, "stroke-dasharray=\"4 3\"");
    svg.rect(sx + 4, y_thr, 0.22 * W - 6, rh, "#eaeef2", "#8c959f", 1, "rx=\"3\"");
    svg.text(sx + 4 + (0.22 * W - 6) / 2, y_thr + 16, "copy tile " + str(r.k), 10, "middle");
    // The MMA runs from its issue to its completion, whose commit is the arrival on mma_bar.
    svg.rect(issue, y_tc, done - issue, rh, "#d8ecd0", r.returned_early ? kRed : "#6aa84f", r.returned_early ? 2 : 1,
             "rx=\"3\"");
    svg.text((issue + done) / 2, y_tc + 16, "MMA " + str(r.k) + " reads SMEM", 10, "middle");
    arrow_down(svg, done, y_tc + rh, y_bar, "#38761d");
    svg.text(done - 4, y_tc + rh + 10, "commit", 9, "end", "", "#38761d");
    double release = done;
    const std::string call = "try_wait.parity(" + str(int(r.phase_before)) + ")";
    if (!r.returned_early) {
      svg.rect(issue, y_thr, done - issue, rh, "#ffffff", kGrey, 1, "rx=\"3\"");
      svg.text((issue + done) / 2, y_thr + 16, call, 10, "middle", kMono);
    } else {
      release = issue + 6;
      svg.rect(issue, y_thr, done - issue, rh, kRedFill, kRed, 1.5, "rx=\"3\"");
      svg.text((issue + done) / 2, y_thr + 16, call + ": returns at once", 10, "middle", "", kRed);
    }
    bar.push_back({done, int(r.barrier_to), "phase " + str(r.k + 1) + ", parity " + str(int(r.barrier_to))});
    if (int(r.phase_after) != loc.back().parity)
      loc.push_back({release, int(r.phase_after), "phase_mma = " + str(int(r.phase_after))});
  }
  parity_band(svg, y_bar, rh, bar, x_end);
  parity_band(svg, y_loc, rh, loc, x_end);
  return y_loc + rh;
}

bool draw_phase_kloop_timeline(Svg& svg) {
  constexpr int kIters = 4;
  const auto good = hg::model::simulate_kloop(kIters, /*flip_phase=*/true);
  const auto bad = hg::model::simulate_kloop(kIters, /*flip_phase=*/false);
  for (int k = 0; k < kIters; ++k) {
    const auto& g = good[size_t(k)];
    const auto& b = bad[size_t(k)];
    // One commit per iteration: phase k of mma_bar (parity k % 2) runs while MMA k runs.
    if (g.returned_early || g.barrier_from != uint32_t(k & 1) || g.barrier_to != uint32_t((k + 1) & 1) ||
        g.phase_before != uint32_t(k & 1) || g.phase_after != uint32_t((k + 1) & 1)) {
      std::fprintf(stderr, "phase model: step 2 K-loop with the flip, iteration %d is not what the figure says\n", k);
      return false;
    }
    if (b.returned_early != (k % 2 == 1) || b.phase_before != 0) {
      std::fprintf(stderr, "phase model: without the flip, iteration %d should %s\n", k,
                   k % 2 ? "return early" : "wait correctly");
      return false;
    }
  }
  svg.size(200 + kIters * 258 + 20, 500);
  svg.text(16, 24, "Step 2's K-loop on Blackwell: mma_bar's phases and the local parity bit, K iteration by K iteration",
           15, "start", kBold);
  double y = kloop_panel(svg, 56, good, "With the flip (the kernel): phase_mma ^= 1 after every wait");
  y = kloop_panel(svg, y + 40, bad, "Without the flip: phase_mma stays 0");
  y += 26;
  parity_legend(svg, 16, y);
  svg.text(330, y,
           "try_wait.parity(p) returns once the phase of parity p has completed, i.e. while the barrier's band "
           "shows the other parity.",
           11);
  svg.text(16, y + 20,
           "Without the flip, K iterations 1 and 3 wait for parity 0 while mma_bar already runs a phase of parity 1: "
           "the wait returns while the MMA still reads SMEM,",
           11, "start", "", kRed);
  svg.text(16, y + 36,
           "and the threads go on to overwrite it with the next tile (or, after the last iteration, read a partial "
           "accumulator). Drawn from hg::model::simulate_kloop.",
           11, "start", "", kRed);
  svg.size(200 + kIters * 258 + 20, y + 50);
  return true;
}

bool draw_phase_ring_timeline(Svg& svg) {
  constexpr int kDepth = 2, kTiles = 6;
  const auto rows = hg::model::simulate_ring(kTiles, kDepth);
  for (const auto& r : rows) {
    if (r.tma_early || r.mma_early || r.stage != r.k % kDepth || r.phase_tma_before != uint32_t((r.k / kDepth) & 1) ||
        r.phase_mma_before != uint32_t(r.k & 1) || r.refill_tile != (r.k + kDepth < kTiles ? r.k + kDepth : -1)) {
      std::fprintf(stderr, "phase model: step 5 ring, K iteration %d is not what the figure says\n", r.k);
      return false;
    }
  }
  // A schematic clock: one column per K iteration after a prologue column; a TMA load lands a fixed time
  // after it is issued. The barriers' parities are replayed with the model's Mbarrier in time order.
  const double x0 = 200, P = 118, W = 150, rh = 22, L = 0.72 * W;
  const double x_end = x0 + P + kTiles * W;
  auto slot = [&](int k) { return x0 + P + k * W; };
  std::vector<double> issue(kTiles), land(kTiles), mma_start(kTiles), mma_end(kTiles), tma_wait(kTiles),
      tma_pass(kTiles), flip_tma(kTiles, -1);
  for (int j = 0; j < kTiles && j < kDepth; ++j) issue[size_t(j)] = x0 + 8 + 44 * j;  // the prologue
  for (const auto& r : rows)
    if (r.refill_tile >= 0) issue[size_t(r.refill_tile)] = slot(r.k) + 0.80 * W;  // the refill
  for (int k = 0; k < kTiles; ++k) {
    const size_t i = size_t(k);
    land[i] = issue[i] + L;
    tma_wait[i] = slot(k) + 0.03 * W;
    tma_pass[i] = land[i] > tma_wait[i] ? land[i] : tma_wait[i];
    mma_start[i] = (tma_pass[i] + 0.04 * W > slot(k) + 0.10 * W) ? tma_pass[i] + 0.04 * W : slot(k) + 0.10 * W;
    mma_end[i] = slot(k) + 0.72 * W;
    if (rows[i].stage == kDepth - 1) flip_tma[i] = slot(k) + 0.90 * W;
    if (land[i] > mma_start[i] || (k >= kDepth && issue[i] < mma_end[size_t(k - kDepth)])) {
      std::fprintf(stderr, "ring timeline: tile %d is loaded into a stage still in use\n", k);
      return false;
    }
  }
  // Check the drawing against the model: replay the arrivals in time order and ask each wait at the time it
  // starts whether it would pass; it must pass exactly when its tile has landed.
  for (int k = 0; k < kTiles; ++k) {
    std::vector<hg::model::Mbarrier> tma_bar(kDepth, hg::model::Mbarrier(1));
    for (int j = 0; j < kTiles; ++j)
      if (land[size_t(j)] <= tma_wait[size_t(k)]) tma_bar[size_t(j % kDepth)].arrive();
    const bool passes = tma_bar[size_t(k % kDepth)].try_wait_parity(rows[size_t(k)].phase_tma_before);
    if (passes != (land[size_t(k)] <= tma_wait[size_t(k)])) {
      std::fprintf(stderr, "ring timeline: the wait of K iteration %d does not match its tile's landing\n", k);
      return false;
    }
  }

  svg.size(x_end + 20, 520);
  svg.text(16, 24, "Step 5's ring, PIPE_DEPTH = 2: one TMA barrier per stage, one MMA barrier, two parity bits", 15,
           "start", kBold);
  const double y_hdr = 52;
  const double y_issue = y_hdr + 22, y_stage0 = y_issue + rh + 8, y_tbar0 = y_stage0 + 2 * (rh + 6) + 6,
               y_tc = y_tbar0 + 2 * (rh + 6) + 6, y_mbar = y_tc + rh + 12, y_thr = y_mbar + rh + 14,
               y_ptma = y_thr + rh + 8, y_pmma = y_ptma + rh + 6;
  const char* const kStageColors[kDepth] = {"#b4a7d6", "#a2c4c9"};
  const char* const kStageLight[kDepth] = {"#ece8f5", "#e3eff0"};
  svg.text(x0 + P / 2, y_hdr, "prologue", 11, "middle", kBold);
  for (int k = 0; k < kTiles; ++k) {
    svg.text(slot(k) + W / 2, y_hdr - 6, "K iteration " + str(k), 11, "middle", kBold);
    svg.text(slot(k) + W / 2, y_hdr + 8, "stage " + str(rows[size_t(k)].stage), 10, "middle", "", kGrey);
    svg.line(slot(k), y_hdr + 12, slot(k), y_pmma + rh + 4, "#d0d7de", 1, "stroke-dasharray=\"4 3\"");
  }
  svg.text(190, y_issue + 15, "thread 0 issues TMA", 11, "end");
  for (int s = 0; s < kDepth; ++s) {
    svg.text(190, y_stage0 + s * (rh + 6) + 15, "SMEM stage " + str(s), 11, "end");
    svg.text(190, y_tbar0 + s * (rh + 6) + 15, "tma_bar[" + str(s) + "]", 11, "end", kMono);
  }
  svg.text(190, y_tc + 15, "tensor core", 11, "end");
  svg.text(190, y_mbar + 15, "mma_bar", 11, "end", kMono);
  svg.text(190, y_thr + 15, "threads' waits", 11, "end");
  svg.text(190, y_ptma + 15, "phase_tma", 11, "end", kMono);
  svg.text(190, y_pmma + 15, "phase_mma", 11, "end", kMono);

  // Loads: the issue, the stage filling up, the tile held until the MMA that reads it completes.
  for (int j = 0; j < kTiles; ++j) {
    const size_t i = size_t(j);
    const int s = j % kDepth;
    svg.line(issue[i], y_issue + 2, issue[i], y_issue + rh, kStageColors[s], 3);
    svg.text(issue[i] + 4, y_issue + 15, "tile " + str(j), 10, "start", "", kGrey);
    const double ys = y_stage0 + s * (rh + 6);
    svg.rect(issue[i], ys, land[i] - issue[i], rh, kStageLight[s], kStageColors[s], 1, "stroke-dasharray=\"3 2\"");
    svg.text((issue[i] + land[i]) / 2, ys + 15, "loading " + str(j), 10, "middle", "", kGrey);
    svg.rect(land[i], ys, mma_end[i] - land[i], rh, kStageColors[s], "#ffffff", 1);
    svg.text((land[i] + mma_end[i]) / 2, ys + 15, "tile " + str(j), 10, "middle", kBold);
  }
  // Barrier parities, replayed with the model in time order.
  for (int s = 0; s < kDepth; ++s) {
    hg::model::Mbarrier bar(1);
    std::vector<Segment> seg{{x0, int(bar.current_parity()), "parity " + str(int(bar.current_parity()))}};
    for (int j = s; j < kTiles; j += kDepth) {
      bar.arrive();  // the arrive.expect_tx and the 32768 bytes of tile j are in
      seg.push_back({land[size_t(j)], int(bar.current_parity()), "parity " + str(int(bar.current_parity()))});
    }
    parity_band(svg, y_tbar0 + s * (rh + 6), rh, seg, x_end);
  }
  {
    hg::model::Mbarrier bar(1);
    std::vector<Segment> seg{{x0, int(bar.current_parity()), "parity " + str(int(bar.current_parity()))}};
    for (int k = 0; k < kTiles; ++k) {
      bar.arrive();  // the commit of MMA k
      seg.push_back({mma_end[size_t(k)], int(bar.current_parity()), "parity " + str(int(bar.current_parity()))});
    }
    parity_band(svg, y_mbar, rh, seg, x_end);
  }
  std::vector<Segment> ptma{{x0, 0, "phase_tma = 0"}}, pmma{{x0, 0, "phase_mma = 0"}};
  for (const auto& r : rows) {
    const size_t i = size_t(r.k);
    svg.rect(mma_start[i], y_tc, mma_end[i] - mma_start[i], rh, kStageColors[r.stage], "#ffffff", 1, "rx=\"3\"");
    svg.text((mma_start[i] + mma_end[i]) / 2, y_tc + 15, "MMA " + str(r.k), 10, "middle", kBold);
    arrow_down(svg, mma_end[i], y_tc + rh, y_mbar, "#38761d");
    // The two waits of the iteration: tma_bar[stage] with phase_tma, then mma_bar with phase_mma.
    const double tw1 = tma_pass[i] > tma_wait[i] + 6 ? tma_pass[i] : tma_wait[i] + 6;
    svg.rect(tma_wait[i], y_thr, tw1 - tma_wait[i], rh, kStageLight[r.stage], kStageColors[r.stage], 1.2);
    svg.rect(mma_start[i], y_thr, mma_end[i] - mma_start[i], rh, "#ffffff", kGrey, 1, "rx=\"3\"");
    svg.text((mma_start[i] + mma_end[i]) / 2, y_thr + 15, "mma_bar, " + str(int(r.phase_mma_before)), 10, "middle",
             kMono);
    if (r.refill_tile >= 0)
      svg.text(issue[size_t(r.refill_tile)] + 4, y_issue - 3, "refill", 9, "start", "", kGrey);
    pmma.push_back({mma_end[i], int(r.phase_mma_after), "phase_mma = " + str(int(r.phase_mma_after))});
    if (flip_tma[i] >= 0)
      ptma.push_back({flip_tma[i], int(r.phase_tma_after), "phase_tma = " + str(int(r.phase_tma_after))});
  }
  parity_band(svg, y_ptma, rh, ptma, x_end);
  parity_band(svg, y_pmma, rh, pmma, x_end);

  const double ly = y_pmma + rh + 30;
  parity_legend(svg, 16, ly);
  svg.rect(330, ly - 11, 16, 14, kStageLight[0], kStageColors[0], 1.2);
  svg.text(352, ly, "the wait on tma_bar[stage] with phase_tma (it passes at once if the tile has already landed)", 11);
  svg.rect(900, ly - 11, 16, 14, "#ffffff", kGrey, 1);
  svg.text(922, ly, "the wait on mma_bar with phase_mma", 11);
  svg.text(16, ly + 20,
           "tma_bar[s] completes one phase per load into stage s, i.e. once per trip around the ring: phase_tma flips "
           "after the last stage (stage 1), phase_mma after every MMA.",
           11);
  svg.text(16, ly + 36,
           "A stage is refilled only after the MMA that read it has completed (the mma_bar wait). Schematic clock, not "
           "to scale; parities replayed with hg::model::Mbarrier.",
           11);
  svg.size(x_end + 20, ly + 48);
  return true;
}

// ------------------------------------------------------------------------------------------------------
// (d) The L2-grouped tile order of step 6, from hg::grouped_tile and hg::TileScheduler.
// ------------------------------------------------------------------------------------------------------

/// A viridis-like ramp, v in [0, 1].
std::string ramp(double v) {
  static const int stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  v = v < 0 ? 0 : v > 1 ? 1 : v;
  const double f = v * 4;
  const int i = f >= 4 ? 3 : int(f);
  const double t = f - i;
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(stops[i][0] + t * (stops[i + 1][0] - stops[i][0])),
                int(stops[i][1] + t * (stops[i + 1][1] - stops[i][1])),
                int(stops[i][2] + t * (stops[i + 1][2] - stops[i][2])));
  return buf;
}

const char* const kWaveColors[10] = {"#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
                                     "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#d9d9d9"};

bool draw_tile_order(Svg& svg) {
  constexpr int kM = 12, kN = 16, kGroup = 8, kCtas = 20, kTiles = kM * kN;
  std::vector<int> order(kTiles, -1), cta_of(kTiles, -1), wave_of(kTiles, -1);
  for (int t = 0; t < kTiles; ++t) {
    const hg::TileCoord c = hg::grouped_tile(t, kM, kN, kGroup);
    if (c.m < 0 || c.m >= kM || c.n < 0 || c.n >= kN || order[size_t(c.m * kN + c.n)] != -1) {
      std::fprintf(stderr, "tile order: tile %d maps to (%d, %d), outside or twice\n", t, c.m, c.n);
      return false;
    }
    order[size_t(c.m * kN + c.n)] = t;
    // What the figure shows: inside a group, consecutive tiles walk down one column of the group's rows.
    const int g = t / (kGroup * kN), rows = (g + 1) * kGroup <= kM ? kGroup : kM - g * kGroup;
    const int w = t - g * kGroup * kN;
    if (c.m != g * kGroup + w % rows || c.n != w / rows) {
      std::fprintf(stderr, "tile order: tile %d is not at row %d, column %d of its group\n", t, w % rows, w / rows);
      return false;
    }
  }
  int waves = 0;
  for (int cta = 0; cta < kCtas; ++cta) {
    int i = 0;
    for (hg::TileScheduler s(kM, kN, kCtas, cta, kGroup); s.valid(); s.next(), ++i) {
      const hg::TileCoord c = s.current();
      const size_t idx = size_t(c.m * kN + c.n);
      if (cta_of[idx] != -1 || order[idx] != cta + i * kCtas) {
        std::fprintf(stderr, "tile order: CTA %d's tile %d is not linear tile %d\n", cta, i, cta + i * kCtas);
        return false;
      }
      cta_of[idx] = cta;
      wave_of[idx] = i;
      if (i + 1 > waves) waves = i + 1;
    }
  }
  for (int v : cta_of)
    if (v < 0) {
      std::fprintf(stderr, "tile order: a tile is visited by no CTA\n");
      return false;
    }
  if (waves > 10) {
    std::fprintf(stderr, "tile order: more waves than colors\n");
    return false;
  }

  // The tile rows and columns (row bands of A and of B) that the first wave reads, in three orders: grouped,
  // whole columns of tiles (a 2D grid with blockIdx.x over M, launched in order), whole rows.
  auto bands = [&](int group) {
    std::vector<bool> rows(kM, false), cols(kN, false);
    int nr = 0, nc = 0;
    for (int t = 0; t < kCtas; ++t) {
      const hg::TileCoord c = hg::grouped_tile(t, kM, kN, group);
      if (!rows[size_t(c.m)]) rows[size_t(c.m)] = true, ++nr;
      if (!cols[size_t(c.n)]) cols[size_t(c.n)] = true, ++nc;
    }
    return std::pair<int, int>(nr, nc);
  };
  const auto grouped = bands(kGroup), by_columns = bands(kM), by_rows = bands(1);

  const double cw = 31, ch = 24, top = 112, left = 62, gap = 70, right = left + kN * cw + gap;
  svg.size(right + kN * cw + 112, top + kM * ch + 100);
  svg.text(16, 24,
           "Step 6's L2-grouped tile order: a 12 x 16 grid of output tiles, groups of 8 tile rows (the last group has "
           "4)",
           15, "start", kBold);
  svg.text(left + kN * cw / 2, 56, "visiting order: linear tile t = hg::grouped_tile(t, 12, 16, 8)", 12, "middle",
           kBold);
  svg.text(left + kN * cw / 2, 72, "t walks down the 8 rows of a group, then moves one column right", 11, "middle",
           "", kGrey);
  svg.text(right + kN * cw / 2, 56, "who computes it: " + str(kCtas) + " persistent CTAs (hg::TileScheduler)", 12,
           "middle", kBold);
  svg.text(right + kN * cw / 2, 72, "cell = CTA c (tiles c, c + 20, ...); color = wave: tiles in flight together", 11,
           "middle", "", kGrey);
  for (int panel = 0; panel < 2; ++panel) {
    const double px = panel == 0 ? left : right;
    for (int n = 0; n < kN; n += 1)
      svg.text(px + n * cw + cw / 2, top - 8, str(n), 9, "middle", "", kGrey);
    svg.text(px + kN * cw / 2, top - 22, "tile column n (B row band)", 10, "middle", "", kGrey);
    for (int m = 0; m < kM; ++m) svg.text(px - 6, top + m * ch + ch / 2 + 4, "m " + str(m), 9, "end", "", kGrey);
    for (int m = 0; m < kM; ++m)
      for (int n = 0; n < kN; ++n) {
        const size_t idx = size_t(m * kN + n);
        const double x = px + n * cw, y = top + m * ch;
        if (panel == 0) {
          const double v = double(order[idx]) / (kTiles - 1);
          svg.rect(x, y, cw, ch, ramp(v), "#ffffff", 0.8);
          svg.text(x + cw / 2, y + ch / 2 + 4, str(order[idx]), 10, "middle", kMono, v < 0.55 ? "#ffffff" : "#1f2328");
        } else {
          svg.rect(x, y, cw, ch, kWaveColors[wave_of[idx]], "#ffffff", 0.8);
          svg.text(x + cw / 2, y + ch / 2 + 4, str(cta_of[idx]), 10, "middle", kMono);
        }
      }
    for (int g = 0; g * kGroup < kM; ++g) {  // the groups
      const int rows = (g + 1) * kGroup <= kM ? kGroup : kM - g * kGroup;
      svg.rect(px, top + g * kGroup * ch, kN * cw, rows * ch, "none", "#1f2328", 2.5);
      if (panel == 1) {
        svg.text(px + kN * cw + 8, top + (g * kGroup + rows / 2.0) * ch - 3, "group " + str(g), 11, "start", kBold);
        svg.text(px + kN * cw + 8, top + (g * kGroup + rows / 2.0) * ch + 12,
                 str(rows) + " rows" + (rows < kGroup ? " (partial)" : ""), 11, "start");
      }
    }
    if (panel == 1)  // CTA 0's tiles
      for (int m = 0; m < kM; ++m)
        for (int n = 0; n < kN; ++n)
          if (cta_of[size_t(m * kN + n)] == 0)
            svg.rect(px + n * cw + 1.5, top + m * ch + 1.5, cw - 3, ch - 3, "none", "#000000", 2.2);
  }
  const double ly = top + kM * ch + 30;
  for (int w = 0; w < waves; ++w) {
    svg.rect(right + w * 58, ly - 11, 14, 14, kWaveColors[w], "#1f2328", 0.6);
    svg.text(right + 18 + w * 58, ly, "wave " + str(w), 10);
  }
  svg.rect(left, ly - 11, 14, 14, "none", "#000000", 2.2);
  svg.text(left + 20, ly, "outlined on the right: the tiles of CTA 0 (0, 20, 40, ...)", 11);
  svg.text(16, ly + 26,
           "The first wave (tiles 0-" + str(kCtas - 1) + ") reads " + str(grouped.first) + " row bands of A and " +
               str(grouped.second) + " of B (" + str(grouped.first + grouped.second) +
               "). Visiting whole columns of tiles instead, it would read " + str(by_columns.first) + " of A and " +
               str(by_columns.second) + " of B (" + str(by_columns.first + by_columns.second) + ");",
           11);
  svg.text(16, ly + 44,
           "whole rows, " + str(by_rows.first) + " of A and " + str(by_rows.second) + " of B (" +
               str(by_rows.first + by_rows.second) +
               "). The fewer bands the CTAs running together share, the more of them stay in L2.",
           11);
  if (grouped.first + grouped.second >= by_columns.first + by_columns.second ||
      grouped.first + grouped.second >= by_rows.first + by_rows.second) {
    std::fprintf(stderr, "tile order: the grouped first wave does not read fewer bands\n");
    return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------------------
// (e) Step 7's roles over time, replayed by the host model of common/model/ws_model.hpp (both architectures).
// ------------------------------------------------------------------------------------------------------
using hg::model::WsArch;
using hg::model::WsConfig;
using hg::model::WsRun;
using hg::model::WsSpan;
using hg::model::WsSpanKind;

// One color per output tile (solid: MMAs and the TMEM read; light: loads and stores).
const char* const kTileSolid[3] = {"#9ecae1", "#fdae6b", "#a1d99b"};
const char* const kTileLight[3] = {"#deedf6", "#fee6ce", "#e0f2dc"};
const char* const kWaitFill = "#d0d7de";
const char* const kAccFullColor = "#38761d";   // MMA -> epilogue
const char* const kAccEmptyColor = "#b45f06";  // epilogue -> MMA
const char* const kTurnColor = "#674ea7";      // consumer -> consumer

struct WsScale {
  double x0, unit;
  double x(int t) const { return x0 + t * unit; }
};

/// A vertical arrow from y0 to y1 (either direction), head at y1.
void arrow_v(Svg& svg, double x, double y0, double y1, const std::string& color) {
  const double dir = y1 > y0 ? 1 : -1;
  svg.line(x, y0, x, y1 - dir * 5, color, 1.2);
  svg.polygon(str(int(x - 3.5)) + "," + str(int(y1 - dir * 6)) + " " + str(int(x + 3.5)) + "," +
                  str(int(y1 - dir * 6)) + " " + str(int(x)) + "," + str(int(y1)),
              color);
}

/// A labelled box from time a to b; the label only where it fits.
void ws_box(Svg& svg, const WsScale& s, int a, int b, double y, double h, const std::string& fill,
            const std::string& stroke, const std::string& label, double font, const std::string& extra = "") {
  svg.rect(s.x(a), y, s.x(b) - s.x(a), h, fill, stroke, 1, extra);
  if (s.x(b) - s.x(a) > 0.56 * font * double(label.size()) + 4)
    svg.text((s.x(a) + s.x(b)) / 2, y + h / 2 + font * 0.36, label, font, "middle");
}

/// The waits of one lane that last (a wait that passes at once is not drawn), in a thin strip.
void ws_wait_strip(Svg& svg, const WsScale& s, const WsRun& r, int lane, double y) {
  for (const WsSpan& w : r.spans(lane, WsSpanKind::kWait))
    if (w.end > w.start) ws_box(svg, s, w.start, w.end, y, 10, kWaitFill, "#ffffff", w.what, 7.5);
}

/// The epilogue of `tile` against the MMAs of tile + 1: the interval where both run.
bool ws_overlap(const WsRun& r, int tile, int* from, int* to) {
  int e0 = -1, e1 = -1, m0 = -1, m1 = -1;
  for (int lane = 0; lane < 3; ++lane)  // the roles (Blackwell's accumulator lanes repeat the TMEM read)
    for (const WsSpan& sp : r.lanes[size_t(lane)].spans)
      if ((sp.kind == WsSpanKind::kEpilogueRead || sp.kind == WsSpanKind::kEpilogueStore) && sp.tile == tile) {
        if (e0 < 0 || sp.start < e0) e0 = sp.start;
        if (sp.end > e1) e1 = sp.end;
      }
  for (const WsSpan& m : r.pipe)
    if (m.tile == tile + 1) {
      if (m0 < 0) m0 = m.start;
      m1 = m.end;
    }
  *from = e0 > m0 ? e0 : m0;
  *to = e1 < m1 ? e1 : m1;
  return e0 >= 0 && m0 >= 0 && *to > *from;
}

/// The loads of one run: one thin row per ring stage. Returns the y below the lane.
double ws_load_lane(Svg& svg, const WsScale& s, const WsRun& r, const WsConfig& c, double y, const std::string& name) {
  constexpr double kRow = 13;
  svg.text(s.x0 - 52, y + c.depth * kRow / 2 + 4, name, 11, "end", kBold);
  for (int st = 0; st < c.depth; ++st)
    svg.text(s.x0 - 4, y + st * kRow + 9.5, "stage " + str(st), 8, "end", "", kGrey);
  for (const WsSpan& l : r.spans(0, WsSpanKind::kLoad))
    ws_box(svg, s, l.start, l.end, y + l.stage * kRow, kRow - 1, kTileLight[l.tile % 3], kTileSolid[l.tile % 3],
           "t" + str(l.tile) + " k" + str(l.k), 8, "stroke-dasharray=\"3 2\"");
  const double yw = y + c.depth * kRow + 2;
  ws_wait_strip(svg, s, r, 0, yw);
  return yw + 10;
}

/// The tensor pipe's MMAs issued by one lane, and its epilogue spans, in one row.
void ws_work_row(Svg& svg, const WsScale& s, const WsRun& r, int lane, double y, double h, const std::string& store) {
  for (const WsSpan& sp : r.lanes[size_t(lane)].spans) {
    const int t = sp.tile % 3;
    if (sp.kind == WsSpanKind::kMma)
      ws_box(svg, s, sp.start, sp.end, y, h, kTileSolid[t], "#ffffff", "t" + str(sp.tile) + " k" + str(sp.k), 9);
    else if (sp.kind == WsSpanKind::kEpilogueRead)
      ws_box(svg, s, sp.start, sp.end, y, h, kTileSolid[t], "#1f2328", "read", 9);
    else if (sp.kind == WsSpanKind::kEpilogueStore)
      ws_box(svg, s, sp.start, sp.end, y, h, kTileLight[t], kTileSolid[t],
             store + " t" + str(sp.tile), 9);
  }
}

/// The pale band behind a panel's lanes where the epilogue of a tile runs under the next tile's MMAs; its
/// label at y_label.
void ws_overlap_bands(Svg& svg, const WsScale& s, const WsRun& r, int tiles, double y0, double y1, double y_label) {
  for (int t = 0; t + 1 < tiles; ++t) {
    int a = 0, b = 0;
    if (!ws_overlap(r, t, &a, &b)) continue;
    svg.rect(s.x(a), y0, s.x(b) - s.x(a), y1 - y0, "#fff8c5", "none", 0);
    svg.text((s.x(a) + s.x(b)) / 2, y_label, "epilogue t" + str(t) + " under MMAs t" + str(t + 1) + ": " + str(b - a),
             8, "middle", "", "#7d4e00");
  }
}

void ws_time_axis(Svg& svg, const WsScale& s, int total, double y) {
  svg.line(s.x(0), y, s.x(total), y, kGrey, 1);
  for (int t = 0; t <= total; t += 4) {
    svg.line(s.x(t), y, s.x(t), y + (t % 8 ? 3 : 5), kGrey, 1);
    if (t % 8 == 0) svg.text(s.x(t), y + 15, str(t), 9, "middle", "", kGrey);
  }
  svg.text(s.x(total) + 6, y + 4, "time", 9, "start", "", kGrey);
}

std::string ws_summary(const WsRun& r) {
  std::string overlap;
  for (size_t t = 0; t + 1 < r.epilogue_overlap.size(); ++t)
    overlap += (t ? ", " : "") + str(r.epilogue_overlap[t]);
  return "total " + str(r.total_time) + ", tensor pipe busy " + str(r.mma_busy) + " (" +
         str(100 * r.mma_busy / r.total_time) + "%), epilogue of tile t under the MMAs of t+1: " + overlap;
}

bool draw_step7_timeline(Svg& svg) {
  constexpr int kTiles = 3, kKTiles = 4, kDepth = 4;
  WsConfig bw;
  bw.arch = WsArch::kBlackwell, bw.tiles = kTiles, bw.k_tiles = kKTiles, bw.depth = kDepth;
  WsConfig hop = bw;
  hop.arch = WsArch::kHopper;
  const WsRun rb = hg::model::simulate_ws(bw), rh = hg::model::simulate_ws(hop);
  for (const WsRun* r : {&rb, &rh}) {
    const char* arch = r == &rb ? "Blackwell" : "Hopper";
    if (!r->hazards.empty()) {
      std::fprintf(stderr, "step 7 model, %s: %s: %s\n", arch, hg::model::describe(r->hazards[0].kind),
                   r->hazards[0].what.c_str());
      return false;
    }
    if (r->tiles_done != kTiles) {
      std::fprintf(stderr, "step 7 model, %s: %d of %d tiles done\n", arch, r->tiles_done, kTiles);
      return false;
    }
    int a = 0, b = 0;
    if (r->epilogue_overlap[0] <= 0 || !ws_overlap(*r, 0, &a, &b)) {
      std::fprintf(stderr, "step 7 model, %s: the epilogue of tile 0 does not overlap the MMAs of tile 1\n", arch);
      return false;
    }
  }

  const int total = rb.total_time > rh.total_time ? rb.total_time : rh.total_time;
  const WsScale s{250, 14};
  const double rowh = 22;
  svg.text(16, 24,
           "Step 7: one persistent CTA, " + str(kTiles) + " tiles of " + str(kKTiles) + " K tiles, a ring of " +
               str(kDepth) + " stages, replayed by hg::model::simulate_ws",
           15, "start", kBold);

  // --- Blackwell --------------------------------------------------------------------------------------------
  double y = 52;
  svg.text(16, y, "Blackwell (hgemm_sm100.cuh): TMA warp, MMA warp, epilogue warpgroup, two TMEM accumulators", 13,
           "start", kBold);
  const double b_top = y + 10;
  const double y_mma = b_top + kDepth * 13 + 2 + 10 + 12, y_epi = y_mma + rowh + 12 + 12,
               y_acc0 = y_epi + rowh + 12 + 12, b_bottom = y_acc0 + 2 * (rowh + 6);
  ws_overlap_bands(svg, s, rb, kTiles, b_top, b_bottom, y_mma - 3);
  ws_load_lane(svg, s, rb, bw, b_top, "TMA warp (loads)");
  svg.text(s.x0 - 10, y_mma + 15, "MMA warp / tensor pipe", 11, "end", kBold);
  ws_work_row(svg, s, rb, hg::model::kWsMma, y_mma, rowh, "");
  ws_wait_strip(svg, s, rb, hg::model::kWsMma, y_mma + rowh + 2);
  svg.text(s.x0 - 10, y_epi + 15, "epilogue warpgroup", 11, "end", kBold);
  ws_work_row(svg, s, rb, hg::model::kWsEpilogue, y_epi, rowh, "store");
  ws_wait_strip(svg, s, rb, hg::model::kWsEpilogue, y_epi + rowh + 2);
  for (int a = 0; a < 2; ++a) {
    const double ya = y_acc0 + a * (rowh + 6);
    svg.text(s.x0 - 10, ya + 15, "TMEM accumulator " + str(a), 11, "end");
    for (const WsSpan& sp : rb.lanes[size_t(hg::model::kWsAcc0 + a)].spans) {
      const int t = sp.tile % 3;
      if (sp.kind == WsSpanKind::kMma)
        ws_box(svg, s, sp.start, sp.end, ya, rowh, kTileSolid[t], "#ffffff", "tile " + str(sp.tile) + ": MMAs", 9);
      else if (sp.kind == WsSpanKind::kWait)
        ws_box(svg, s, sp.start, sp.end, ya, rowh, kWaitFill, "#ffffff", "full", 8);
      else
        ws_box(svg, s, sp.start, sp.end, ya, rowh, kTileSolid[t], "#1f2328", "read", 9);
    }
  }
  for (const auto& h : rb.handoffs) {  // acc_full: down to the epilogue; acc_empty: up to the MMA warp
    const bool full = std::string(h.barrier) == "acc_full_bar";
    const double top = y_mma + rowh + 13, bottom = y_epi - 1;
    arrow_v(svg, s.x(h.time), full ? top : bottom, full ? bottom : top, full ? kAccFullColor : kAccEmptyColor);
  }
  ws_time_axis(svg, s, total, b_bottom + 4);
  svg.text(16, b_bottom + 36, "Blackwell: " + ws_summary(rb), 11);

  // --- Hopper -----------------------------------------------------------------------------------------------
  y = b_bottom + 70;
  svg.text(16, y, "Hopper (hgemm_sm90.cuh): producer warpgroup, consumer warpgroups 0 and 1 taking turns", 13, "start",
           kBold);
  const double h_top = y + 10;
  const double y_c0 = h_top + kDepth * 13 + 2 + 10 + 12, h_bottom = y_c0 + 2 * (rowh + 12 + 12) - 12;
  ws_overlap_bands(svg, s, rh, kTiles, h_top, h_bottom, y_c0 - 3);
  ws_load_lane(svg, s, rh, hop, h_top, "producer (loads)");
  for (int c = 0; c < 2; ++c) {
    const double yc = y_c0 + c * (rowh + 24);
    svg.text(s.x0 - 10, yc + 15, "consumer " + str(c), 11, "end", kBold);
    ws_work_row(svg, s, rh, hg::model::kWsConsumer0 + c, yc, rowh, "epilogue");
    ws_wait_strip(svg, s, rh, hg::model::kWsConsumer0 + c, yc + rowh + 2);
  }
  for (const auto& h : rh.handoffs) {  // the turn: from the consumer that issued its last wgmma to the other
    const int from = h.from_lane - hg::model::kWsConsumer0;
    const double y_from = y_c0 + from * (rowh + 24) + (from == 0 ? rowh + 13 : -1);
    const double y_to = y_c0 + (1 - from) * (rowh + 24) + (from == 0 ? -1 : rowh + 13);
    arrow_v(svg, s.x(h.time), y_from, y_to, kTurnColor);
  }
  ws_time_axis(svg, s, total, h_bottom + 4);
  svg.text(16, h_bottom + 36, "Hopper: " + ws_summary(rh), 11);

  // --- Legend -----------------------------------------------------------------------------------------------
  const double ly = h_bottom + 66;
  double lx = 16;
  for (int t = 0; t < kTiles; ++t) {
    svg.rect(lx, ly - 11, 14, 14, kTileSolid[t], "#ffffff", 1);
    svg.text(lx + 18, ly, "tile " + str(t), 11);
    lx += 58;
  }
  svg.rect(lx, ly - 11, 14, 14, kTileLight[0], kTileSolid[0], 1, "stroke-dasharray=\"3 2\"");
  svg.text(lx + 18, ly, "load in flight", 11);
  lx += 100;
  svg.rect(lx, ly - 11, 14, 14, kTileLight[0], kTileSolid[0], 1);
  svg.text(lx + 18, ly, "epilogue / store", 11);
  lx += 112;
  svg.rect(lx, ly - 11, 14, 14, kWaitFill, "#ffffff", 1);
  svg.text(lx + 18, ly, "a wait that blocks", 11);
  lx += 124;
  svg.rect(lx, ly - 11, 14, 14, "#fff8c5", "none", 0);
  svg.text(lx + 18, ly, "epilogue under the next tile's MMAs", 11);
  lx += 222;
  const char* const colors[3] = {kAccFullColor, kAccEmptyColor, kTurnColor};
  const char* const names[3] = {"acc_full", "acc_empty", "turn"};
  for (int i = 0; i < 3; ++i) {
    arrow_v(svg, lx + 6, ly - 12, ly + 3, colors[i]);
    svg.text(lx + 14, ly, names[i], 11, "start", kMono);
    lx += i == 1 ? 92 : 80;
  }
  svg.text(16, ly + 22,
           "Schematic units: a load lands " + str(bw.load_latency) + " after its issue, one K tile's MMAs take " +
               str(bw.mma) + ", an epilogue " + str(bw.epilogue) + " (on Blackwell its TMEM read " +
               str(bw.epilogue_read) + "); issuing takes no time. The model checks every wait's phase, every refill "
               "and every accumulator reuse.",
           11, "start", "", kGrey);
  svg.size(s.x(total) + 40, ly + 36);
  return true;
}

// ------------------------------------------------------------------------------------------------------
// Tables, as HTML fragments in the markup Doxygen gives a Markdown table (class markdownTable), so they look
// like the hand-written tables with either stylesheet. Pages include them with \htmlinclude.
// ------------------------------------------------------------------------------------------------------
struct Cell {
  std::string html;  ///< markup of the cell (escaped by the caller where needed)
  std::string cls;   ///< extra class: "hg-bad", "hg-good" or empty (colors in docs/custom.css)
};

class HtmlTable {
 public:
  explicit HtmlTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void row(std::vector<Cell> cells) { rows_.push_back(std::move(cells)); }

  /// source: the call that produced the table, shown under it.
  std::string str(const std::string& source) const {
    std::ostringstream o;
    o << "<table class=\"markdownTable hg-generated\">\n<tr class=\"markdownTableHead\">\n";
    for (const std::string& h : header_) o << "<th class=\"markdownTableHeadCenter\">" << h << "</th>\n";
    o << "</tr>\n";
    for (size_t r = 0; r < rows_.size(); ++r) {
      o << "<tr class=\"markdownTableRow" << (r % 2 == 0 ? "Odd" : "Even") << "\">\n";
      for (const Cell& c : rows_[r])
        o << "<td class=\"markdownTableBodyCenter" << (c.cls.empty() ? "" : " " + c.cls) << "\">" << c.html
          << "</td>\n";
      o << "</tr>\n";
    }
    o << "</table>\n<div class=\"hg-generated-source\">Generated by <code>tools/docs_figures.cpp</code> from "
      << source << ".</div>\n";
    return o.str();
  }

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<Cell>> rows_;
};

Cell plain(const std::string& html) { return Cell{html, ""}; }
Cell plain(int v) { return Cell{str(v), ""}; }
Cell bad(const std::string& html) { return Cell{html, "hg-bad"}; }
Cell good(const std::string& html) { return Cell{html, "hg-good"}; }

bool table_phase_kloop_impl(std::string& html, bool flip) {
  constexpr int kIters = 4;
  const auto rows = hg::model::simulate_kloop(kIters, flip);
  HtmlTable t({"K iteration", "<code>phase_mma</code> passed to the wait",
               "the wait returns when <code>mma_bar</code> goes from parity ... to ...",
               "<code>phase_mma</code> after the iteration", "returns before its MMA completes?"});
  for (const auto& r : rows) {
    if (r.returned_early != (!flip && r.k % 2 == 1)) {
      std::fprintf(stderr, "phase model: K iteration %d of the %s K-loop %s\n", r.k, flip ? "correct" : "no-flip",
                   r.returned_early ? "returns early" : "does not return early");
      return false;
    }
    const std::string from_to = str(int(r.barrier_from)) + " &#8594; " + str(int(r.barrier_to));
    if (!r.returned_early) {
      t.row({plain(r.k), plain(int(r.phase_before)), plain(from_to),
             plain(str(int(r.phase_after)) + (flip ? "" : " (not flipped)")), good("no")});
    } else {
      t.row({plain(r.k), bad(str(int(r.phase_before))),
             bad("already in parity " + str(int(r.barrier_from)) + ": the phase of parity " +
                 str(int(r.phase_before)) + " completed in K iteration " + str(r.k - 1)),
             plain(str(int(r.phase_after)) + " (not flipped)"), bad("<b>yes</b>: returns at once")});
    }
  }
  html = t.str(std::string("<code>hg::model::simulate_kloop(") + str(kIters) +
               (flip ? ", /*flip_phase=*/true)</code>" : ", /*flip_phase=*/false)</code>"));
  return true;
}
bool table_phase_kloop(std::string& html) { return table_phase_kloop_impl(html, true); }
bool table_phase_kloop_noflip(std::string& html) { return table_phase_kloop_impl(html, false); }

bool table_phase_ring(std::string& html) {
  constexpr int kDepth = 2, kTiles = 6;
  HtmlTable t({"K iteration", "stage", "<code>phase_tma</code> in the wait on <code>tma_bar[stage]</code>",
               "<code>phase_mma</code> in the wait on <code>mma_bar</code>", "stage refilled with K tile",
               "<code>phase_tma</code> after (flips when the ring wraps)"});
  for (const auto& r : hg::model::simulate_ring(kTiles, kDepth)) {
    if (r.tma_early || r.mma_early) {
      std::fprintf(stderr, "phase model: step 5 ring, K iteration %d returns early\n", r.k);
      return false;
    }
    t.row({plain(r.k), plain(r.stage), plain(int(r.phase_tma_before)), plain(int(r.phase_mma_before)),
           r.refill_tile >= 0 ? plain(r.refill_tile) : plain("none (no K tile left)"),
           plain(str(int(r.phase_tma_after)) + (r.phase_tma_after != r.phase_tma_before ? " (flipped)" : ""))});
  }
  html = t.str("<code>hg::model::simulate_ring(" + str(kTiles) + ", /*depth=*/" + str(kDepth) + ")</code>");
  return true;
}

bool table_phase_ring_noflip(std::string& html) {
  constexpr int kDepth = 2, kTiles = 6;
  const auto rows = hg::model::simulate_ring(kTiles, kDepth, /*flip_tma_on_wrap=*/false);
  if (rows[0].tma_early || rows[1].tma_early || !rows[2].tma_early) {
    std::fprintf(stderr, "phase model: without the wrap flip, K iteration 2 (stage 0 reused) should return early\n");
    return false;
  }
  HtmlTable t({"K iteration", "stage", "<code>phase_tma</code> in the wait (never flipped)",
               "the wait on <code>tma_bar[stage]</code>"});
  for (const auto& r : rows) {
    if (!r.tma_early)
      t.row({plain(r.k), plain(r.stage), plain(int(r.phase_tma_before)), good("waits for K tile " + str(r.k))});
    else
      t.row({plain(r.k), plain(r.stage), bad(str(int(r.phase_tma_before))),
             bad("<b>returns at once</b>: the phase of parity " + str(int(r.phase_tma_before)) +
                 " completed when K tile " + str(r.k - kDepth) + " landed; K tile " + str(r.k) +
                 " may still be in flight")});
  }
  html = t.str("<code>hg::model::simulate_ring(" + str(kTiles) + ", /*depth=*/" + str(kDepth) +
               ", /*flip_tma_on_wrap=*/false)</code>");
  return true;
}

bool table_phase_persistent(std::string& html) {
  constexpr int kOutTiles = 4, kK = 3, kDepth = 2;
  const auto reset = hg::model::simulate_persistent(kOutTiles, kK, kDepth, /*running_state=*/false);
  const auto running = hg::model::simulate_persistent(kOutTiles, kK, kDepth, /*running_state=*/true);
  if (reset.first_bad_tile != 1 || reset.first_bad_k != 0 || running.first_bad_tile != -1) {
    std::fprintf(stderr, "phase model: step 6 with 3 K tiles should fail at tile 1, k 0 with the reset only\n");
    return false;
  }
  HtmlTable t({"pipeline state at the start of an output tile", "first wait that returns early"});
  t.row({plain("reset: <code>stage = 0</code>, <code>phase_tma = phase_mma = 0</code> (the original tutorial)"),
         bad("output tile " + str(reset.first_bad_tile) + ", K iteration " + str(reset.first_bad_k))});
  t.row({plain("running: carried over from the previous tile (this repository)"), good("none")});
  html = t.str("<code>hg::model::simulate_persistent(" + str(kOutTiles) + " tiles, " + str(kK) +
               " K tiles, /*depth=*/" + str(kDepth) + ", running_state)</code>");
  return true;
}

bool table_phase_persistent_state(std::string& html) {
  // The running state is step 5's ring continued across tiles: the K iterations of tile t are the ring's
  // iterations t * K_TILES .. t * K_TILES + K_TILES - 1.
  constexpr int kOutTiles = 4, kK = 3, kDepth = 2;
  const auto rows = hg::model::simulate_ring(kOutTiles * kK, kDepth);
  if (hg::model::simulate_persistent(kOutTiles, kK, kDepth, true).first_bad_tile != -1) {
    std::fprintf(stderr, "phase model: the running state returns early\n");
    return false;
  }
  HtmlTable t({"output tile", "K iterations before it", "running state: <code>stage</code>",
               "<code>phase_tma</code>", "<code>phase_mma</code>", "what a per-tile reset would use instead"});
  for (int tile = 0; tile < kOutTiles; ++tile) {
    const auto& r = rows[size_t(tile * kK)];
    if (r.tma_early || r.mma_early) {
      std::fprintf(stderr, "phase model: ring iteration %d returns early\n", r.k);
      return false;
    }
    const bool same = r.stage == 0 && r.phase_tma_before == 0 && r.phase_mma_before == 0;
    t.row({plain(tile), plain(r.k), plain(r.stage), plain(int(r.phase_tma_before)), plain(int(r.phase_mma_before)),
           same ? good("0, 0, 0 (the same)") : bad("0, 0, 0")});
  }
  html = t.str("<code>hg::model::simulate_ring(" + str(kOutTiles * kK) + ", /*depth=*/" + str(kDepth) +
               ")</code>, rows 0, 3, 6, 9 (step 6 continues step 5's ring across tiles)");
  return true;
}

bool table_phase_persistent_sweep(std::string& html) {
  constexpr int kOutTiles = 5, kMaxK = 12;
  std::vector<std::string> header{"<code>PIPE_DEPTH</code>", "state at a new tile"};
  for (int k = 1; k <= kMaxK; ++k) header.push_back(str(k));
  HtmlTable t(header);
  for (int depth : {2, 3, 4})
    for (bool running : {false, true}) {
      std::vector<Cell> row{plain(depth), plain(running ? "running" : "reset")};
      for (int k = 1; k <= kMaxK; ++k) {
        const auto r = hg::model::simulate_persistent(kOutTiles, k, depth, running);
        const bool ok = r.first_bad_tile < 0;
        if (ok != (running || k % (2 * depth) == 0)) {
          std::fprintf(stderr, "phase model: depth %d, %d K tiles: the %s state is %s\n", depth, k,
                       running ? "running" : "reset", ok ? "right" : "wrong");
          return false;
        }
        row.push_back(ok ? good("ok") : bad("t" + str(r.first_bad_tile) + ", k" + str(r.first_bad_k)));
      }
      t.row(row);
    }
  html = t.str("<code>hg::model::simulate_persistent(" + str(kOutTiles) +
               " tiles, K tiles, depth, running_state)</code>. Columns: K tiles per output tile (K / 64); "
               "<i>t1, k0</i>: the first wait that returns early is in output tile 1, K iteration 0");
  return true;
}

// ------------------------------------------------------------------------------------------------------
// What a stale parity bit or a wrong byte count does: the timed simulations of common/model/phase_model.hpp.
// ------------------------------------------------------------------------------------------------------
using hg::model::Landing;
using hg::model::ParityCase;
using hg::model::RunEnd;
using hg::model::TimedWait;
using hg::model::TmaRingConfig;
using hg::model::TmaRun;
using hg::model::WaitOutcome;

std::string phase_name(int p) { return p < 0 ? "the phase before the init" : "phase " + str(p); }

bool right(WaitOutcome o) { return o == WaitOutcome::kAtOnce || o == WaitOutcome::kAfterWaiting; }

/// A wait of a timed run: what it did, and which phase its parity named at the first probe.
Cell wait_cell(const TimedWait& w) {
  const std::string named = "parity " + str(int(w.parity)) + " names " + phase_name(w.named_phase) +
                            (w.named_phase == w.phase_at_probe ? ", in progress" : ", completed");
  const std::string text = std::string(hg::model::describe(w.outcome)) + "<br><small>" + named + "</small>";
  if (right(w.outcome)) return good(text);
  return bad(w.outcome == WaitOutcome::kNever ? "<b>never returns</b><br><small>" + named + "</small>"
                                              : "<b>returns early</b><br><small>" + named + "</small>");
}

const char* landing_words(Landing l) {
  switch (l) {
    case Landing::kBeforeItsWait: return "before its wait";
    case Landing::kBeforeNextLoadInStage: return "after its wait, before the next load into its stage";
    case Landing::kAfterNextLoadInStage: return "after the next load into its stage is issued";
  }
  return "?";
}

bool table_phase_parity_rule(std::string& html) {
  constexpr int kMeant = 2;
  HtmlTable t({"phase in progress at the first probe", "bit passed", "the parity names",
               "<code>try_wait.parity</code>", "what the wait does for a thread that means phase 2"});
  const char* const current_words[5] = {"", "1: phase 2 has not started", "2: phase 2 is in progress",
                                        "3: phase 2 has completed", "4: phase 2 completed two phases ago"};
  for (int current = 1; current <= 4; ++current)
    for (uint32_t parity : {0u, 1u}) {
      const ParityCase c = hg::model::parity_case(kMeant, current, parity);
      const bool named_right = c.named == kMeant;
      if (named_right != (parity == 0 && (current == 2 || current == 3)) ||
          (c.verdict == ParityCase::kRight) != (named_right || (parity == 1 && current == 4))) {
        std::fprintf(stderr, "phase model: try_wait.parity with phase %d in progress and parity %u is not what the "
                     "table says\n", current, parity);
        return false;
      }
      std::vector<Cell> row{plain(current_words[current]),
                            plain(parity == 0 ? "0 (the parity of phase 2)" : "1 (the other parity)"),
                            plain(phase_name(c.named) + (c.named == c.current ? ", in progress" : ", completed")),
                            plain(c.returns_at_once ? "true at once" : "false: it spins")};
      if (c.verdict == ParityCase::kRight && named_right)
        row.push_back(good(c.returns_at_once ? "right: returns at once" : "right: returns when phase 2 completes"));
      else if (c.verdict == ParityCase::kRight)
        row.push_back(plain("returns at once; phase 2 did complete, but a ring stage may hold a newer load by now"));
      else if (c.verdict == ParityCase::kEarly)
        row.push_back(bad(std::string("<b>returns early</b>: ") +
                          (c.returns_at_once ? "at once" : "when " + phase_name(c.named) + " completes") +
                          ", before phase 2 has completed"));
      else
        row.push_back(bad("<b>waits for " + phase_name(c.named) +
                          "</b>: it returns only when arrivals for that phase come, never if none come first"));
      t.row(row);
    }
  html = t.str("<code>hg::model::parity_case(2, current, parity)</code>");
  return true;
}

bool table_phase_kloop_timed(std::string& html) {
  constexpr int kIters = 4;
  const int latencies[3] = {1, 2, 1000};
  std::vector<hg::model::KLoopRun> runs;
  for (int latency : latencies) {
    if (hg::model::simulate_kloop_timed(kIters, true, latency).end != RunEnd::kCompleted) {
      std::fprintf(stderr, "phase model: step 2 with the flip fails at latency %d\n", latency);
      return false;
    }
    runs.push_back(hg::model::simulate_kloop_timed(kIters, false, latency));
  }
  // What the columns claim about the MMAs' timing and the outcomes.
  bool ok = runs[0].end == RunEnd::kHang && runs[0].waits.size() == 2 && runs[1].end == RunEnd::kCompleted &&
            runs[2].end == RunEnd::kCompleted;
  for (const TimedWait& w : runs[0].waits) ok = ok && w.op_completed_before >= 0 && w.op_completed_before <= w.step;
  for (const TimedWait& w : runs[1].waits)  // the last MMA may still be in flight when the loop ends
    ok = ok && (w.op_completed_before == w.step + 1 || (w.k == kIters - 1 && w.op_completed_before < 0));
  for (const TimedWait& w : runs[2].waits)
    ok = ok && (w.k == 0 ? w.outcome == WaitOutcome::kAfterWaiting : w.outcome == WaitOutcome::kEarly);
  const auto pattern = hg::model::simulate_kloop(kIters, false);
  for (int k = 0; k < kIters; ++k)
    ok = ok && (runs[1].waits[size_t(k)].outcome == WaitOutcome::kEarly) == pattern[size_t(k)].returned_early;
  if (!ok) {
    std::fprintf(stderr, "phase model: step 2 without the flip is not what the timed table says\n");
    return false;
  }
  HtmlTable t({"K iteration", "<code>phase_mma</code> (never flipped)",
               "MMA k has completed before the wait's first probe",
               "MMA k completes after that probe, before MMA k + 1 is issued (the table above)",
               "MMA k completes only while the thread waits"});
  for (int k = 0; k < kIters; ++k) {
    std::vector<Cell> row{plain(k), plain("0")};
    for (const auto& run : runs)
      row.push_back(size_t(k) < run.waits.size() ? wait_cell(run.waits[size_t(k)]) : plain("not reached"));
    t.row(row);
  }
  html = t.str("<code>hg::model::simulate_kloop_timed(" + str(kIters) +
               ", /*flip_phase=*/false, latency)</code>, latency 1, 2 and 1000 (steps of the issuing thread)");
  return true;
}

Cell end_cell(const TmaRun& run, const std::string& completed_text) {
  if (run.end == RunEnd::kHang) {
    const TimedWait& w = run.waits.back();
    return bad("<b>hangs</b> in " + std::string(w.tile > 0 ? "output tile " + str(w.tile) + ", " : "") +
               "K iteration " + str(w.k) + " on <code>tma_bar[" + str(w.stage) + "]</code>, parity " +
               str(int(w.parity)) + ": the watchdog stops it");
  }
  if (run.end == RunEnd::kUndefined)
    return bad("<b>outside the documented rules</b>: the arrivals and bytes of two loads in one phase; "
               "the model stops here");
  if (hg::model::first_wait(run.waits, WaitOutcome::kEarly) != nullptr) return bad(completed_text);
  return good("completes, every wait right");
}

/// The refill row of a run: where the arrive.expect_tx of the load of K tile k landed.
Cell load_cell(const TmaRun& run, int tile, int k) {
  for (const auto& l : run.loads) {
    if (l.tile != tile || l.k != k) continue;
    if (l.landed_in_phase == l.meant_phase) return good("lands in " + phase_name(l.landed_in_phase) + ", as meant");
    return bad("<b>lands in " + phase_name(l.landed_in_phase) + "</b>, meant for " + phase_name(l.meant_phase) +
               ": that phase still counts the previous load's bytes, so the tx-count goes " + str(l.tx_before) +
               " &#8594; " + str(l.tx_after) + ", and its one arrival is already in" +
               (l.stage_busy ? "; two loads write the stage" : ""));
  }
  return plain("not reached");
}

bool table_phase_ring_noflip_timed(std::string& html) {
  constexpr int kDepth = 2, kTiles = 6;
  const int latencies[3] = {2, 4, 6};
  const Landing landing[3] = {Landing::kBeforeItsWait, Landing::kBeforeNextLoadInStage, Landing::kAfterNextLoadInStage};
  const RunEnd ends[3] = {RunEnd::kHang, RunEnd::kCompleted, RunEnd::kUndefined};
  std::vector<TmaRun> runs;
  for (int i = 0; i < 3; ++i) {
    TmaRingConfig cfg;
    cfg.depth = kDepth, cfg.k_tiles = kTiles, cfg.latency = latencies[i];
    const TmaRun right_run = hg::model::simulate_tma_ring(cfg);
    cfg.flip_on_wrap = false;
    runs.push_back(hg::model::simulate_tma_ring(cfg));
    // K tile 2 (load 2) is the first load into a reused stage; the columns are its three timings.
    if (right_run.end != RunEnd::kCompleted || hg::model::first_wait(right_run.waits, WaitOutcome::kEarly) ||
        hg::model::landing_of(runs.back(), 2) != landing[i] || runs.back().end != ends[i] ||
        runs.back().waits.size() < 3 || right(runs.back().waits[2].outcome)) {
      std::fprintf(stderr, "phase model: no-tma-phase-flip at latency %d is not what the table says\n", latencies[i]);
      return false;
    }
  }
  HtmlTable t({"what thread 0 does", "K tile 2 lands before the wait of K iteration 2",
               "after that wait, before the refill of K iteration 2",
               "after that refill is issued"});
  for (int k = 0; k < kTiles; ++k) {
    const int meant = k / kDepth;
    std::string what = "wait, K iteration " + str(k) + ": <code>tma_bar[" + str(k % kDepth) + "]</code>, parity 0" +
                       (meant % 2 ? " (should be 1)" : "") + ", for K tile " + str(k) + " (" + phase_name(meant) + ")";
    std::vector<Cell> row{plain(what)};
    for (const auto& run : runs)
      row.push_back(size_t(k) < run.waits.size() ? wait_cell(run.waits[size_t(k)]) : plain("not reached"));
    t.row(row);
    if (k == 2) {
      std::vector<Cell> refill{plain("refill, K iteration 2: K tile 4 into stage 0, <code>arrive.expect_tx</code> "
                                     "meant for phase 2")};
      for (const auto& run : runs) refill.push_back(load_cell(run, 0, 4));
      t.row(refill);
    }
  }
  std::vector<Cell> last{plain("the run")};
  for (const auto& run : runs)
    last.push_back(end_cell(run, "completes; K iterations 2 and 3 read stale or partial tiles"));
  t.row(last);
  html = t.str("<code>hg::model::simulate_tma_ring</code> with depth " + str(kDepth) + ", " + str(kTiles) +
               " K tiles, <code>flip_on_wrap = false</code>, latency 2, 4 and 6 (steps of thread 0)");
  return true;
}

bool table_phase_persistent_reset_timed(std::string& html) {
  struct Case {
    int k_tiles, tiles, latency;
    const char* shape;
  };
  const Case cases[] = {
      {3, 2, 2, "4096 x 2048 x 192: 3 K tiles, 2 output tiles per CTA"},
      {3, 2, 5, "4096 x 2048 x 192: 3 K tiles, 2 output tiles per CTA"},
      {1, 4, 1, "4096 x 4096 x 64: 1 K tile, up to 4 output tiles per CTA"},
      {1, 4, 2, "4096 x 4096 x 64: 1 K tile, up to 4 output tiles per CTA"},
      {1, 4, 3, "4096 x 4096 x 64: 1 K tile, up to 4 output tiles per CTA"},
  };
  HtmlTable t({"shape (PIPE_DEPTH 2)", "the load of the first wrong wait lands", "first wrong wait",
               "first <code>arrive.expect_tx</code> in another phase", "the run",
               "running state (this repository)"});
  for (const Case& c : cases) {
    TmaRingConfig cfg;
    cfg.depth = 2, cfg.k_tiles = c.k_tiles, cfg.tiles = c.tiles, cfg.latency = c.latency;
    const TmaRun running = hg::model::simulate_tma_ring(cfg);
    cfg.reset_per_tile = true;
    const TmaRun run = hg::model::simulate_tma_ring(cfg);
    const TimedWait* bad_wait = nullptr;
    for (const auto& w : run.waits)
      if (!right(w.outcome)) {
        bad_wait = &w;
        break;
      }
    if (running.end != RunEnd::kCompleted || hg::model::first_wait(running.waits, WaitOutcome::kEarly) ||
        bad_wait == nullptr || bad_wait->tile != 1) {
      std::fprintf(stderr, "phase model: reset-phase-per-tile with %d K tiles, latency %d is not what the table says\n",
                   c.k_tiles, c.latency);
      return false;
    }
    const hg::model::TmaLoad* misplaced = hg::model::first_misplaced_load(run);
    t.row({plain(c.shape), plain(landing_words(hg::model::landing_of(run, bad_wait->op))),
           bad("output tile 1, K iteration " + str(bad_wait->k) + ", <code>tma_bar[" + str(bad_wait->stage) +
               "]</code>, parity 0, for " + phase_name(bad_wait->meant_phase) + ": <b>" +
               (bad_wait->outcome == WaitOutcome::kNever ? "never returns" : "returns early") + "</b> (names " +
               phase_name(bad_wait->named_phase) + ")"),
           misplaced == nullptr ? plain("none")
                                : bad("output tile " + str(misplaced->tile) + "'s load: lands in " +
                                      phase_name(misplaced->landed_in_phase) + ", meant for " +
                                      phase_name(misplaced->meant_phase) + " (tx-count " + str(misplaced->tx_before) +
                                      " &#8594; " + str(misplaced->tx_after) + ")"),
           end_cell(run, "completes; the MMA after each early return read a stale or partial tile"),
           good("every wait right")});
  }
  html = t.str("<code>hg::model::simulate_tma_ring</code> with depth 2, <code>reset_per_tile = true</code> and "
               "<code>false</code>, latency 2, 5, 1, 2, 3 (steps of thread 0)");
  return true;
}

bool table_phase_short_expect_tx(std::string& html) {
  struct Case {
    int announced, piece, latency;
    const char* timing;
  };
  const Case cases[] = {
      {32768, 16384, 1, "before its wait"},        {32768, 2048, 1000, "only while the thread waits"},
      {30720, 16384, 1, "before its wait"},        {30720, 16384, 1000, "only while the thread waits"},
      {30720, 2048, 1, "before its wait"},         {30720, 2048, 1000, "only while the thread waits"},
  };
  constexpr int kK = 64;
  HtmlTable t({"bytes announced (loaded: 32768)", "bytes reach the barrier in pieces of", "a load lands",
               "first wait that returns early", "first wait that never returns", "the run"});
  for (const Case& c : cases) {
    TmaRingConfig cfg;
    cfg.depth = 1, cfg.k_tiles = kK, cfg.announced_bytes = c.announced, cfg.piece_bytes = c.piece,
    cfg.latency = c.latency;
    const TmaRun run = hg::model::simulate_tma_ring(cfg);
    const bool short_count = c.announced != 32768;
    if ((run.end == RunEnd::kCompleted && hg::model::first_wait(run.waits, WaitOutcome::kEarly) == nullptr) ==
            short_count ||
        (hg::model::landing_of(run, 0) == Landing::kBeforeItsWait) != (c.latency == 1)) {
      std::fprintf(stderr, "phase model: step 4 with %d bytes announced, pieces of %d, latency %d is not what the "
                   "table says\n", c.announced, c.piece, c.latency);
      return false;
    }
    const TimedWait* early = hg::model::first_wait(run.waits, WaitOutcome::kEarly);
    std::vector<Cell> row{short_count ? bad(str(c.announced)) : good(str(c.announced) + " (the kernel)"),
                          plain(str(c.piece)), plain(c.timing),
                          early ? bad("K iteration " + str(early->k)) : good("none")};
    if (run.end == RunEnd::kHang) {
      const TimedWait& w = run.waits.back();
      const hg::model::TmaLoad& l = run.loads[size_t(w.op)];
      row.push_back(bad("<b>K iteration " + str(w.k) + "</b>: its phase's tx-count was " + str(l.tx_before) +
                        " before the <code>arrive.expect_tx</code>, " + str(l.tx_after) + " after it, and " +
                        str(run.tx_at_end[0]) + " once every byte had landed: never zero"));
      row.push_back(bad("<b>hangs</b>: the watchdog stops it"));
    } else {
      row.push_back(good("none in " + str(kK) + " K tiles"));
      row.push_back(early ? bad("completes; the MMAs read tiles whose last bytes had not landed")
                          : good("completes, every wait right"));
    }
    t.row(row);
  }
  html = t.str("<code>hg::model::simulate_tma_ring</code> with depth 1 (step 4's single buffer), " + str(kK) +
               " K tiles (K = 4096), <code>announced_bytes</code>, <code>piece_bytes</code>, latency 1 and 1000");
  return true;
}

std::string coord(int t, int m_tiles, int n_tiles) {
  const hg::TileCoord c = hg::grouped_tile(t, m_tiles, n_tiles, 8);
  return str(t) + ": (" + str(c.m) + ", " + str(c.n) + ")";
}

// The Hopper step 6 grid on an H200: 132 SMs x 2 resident CTAs (the occupancy API's answer for its 98 KiB of
// shared memory; the committed profile's grid column reads 264).
constexpr int kH200Ctas = 264;

bool table_tile_order_first(std::string& html) {
  constexpr int kTilesSide = 4096 / 128, kCtas = kH200Ctas, kShow = 3;
  HtmlTable t({"CTA", "tiles it computes", "1st tile: t: (m, n)", "2nd", "3rd", "last"});
  const int total = kTilesSide * kTilesSide;
  for (int cta : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 262, 263}) {
    std::vector<int> tiles;
    for (hg::TileScheduler s(kTilesSide, kTilesSide, kCtas, cta); s.valid(); s.next()) tiles.push_back(s.tile);
    const int expect = total / kCtas + (cta < total % kCtas ? 1 : 0);
    if (int(tiles.size()) != expect || tiles[0] != cta) {
      std::fprintf(stderr, "tile order: CTA %d gets %zu tiles, expected %d\n", cta, tiles.size(), expect);
      return false;
    }
    std::vector<Cell> row{plain(cta), plain(int(tiles.size()))};
    for (int i = 0; i < kShow; ++i)
      row.push_back(i < int(tiles.size()) ? plain(coord(tiles[size_t(i)], kTilesSide, kTilesSide)) : plain("-"));
    row.push_back(plain(coord(tiles.back(), kTilesSide, kTilesSide)));
    t.row(row);
  }
  html = t.str("<code>hg::TileScheduler(32, 32, 264, cta)</code> (M = N = 4096: 32 x 32 tiles of 128 x 128, "
               "groups of 8 tile rows, 264 CTAs as on an H200), CTAs 0 to 9, 262 and 263");
  return true;
}

bool table_tile_order_bands(std::string& html) {
  constexpr int kCtas = kH200Ctas;
  HtmlTable t({"problem", "order of the first " + str(kCtas) + " tiles", "tile rows", "tile columns",
               "A + B bands they read", "bytes"});
  struct Problem {
    int m, n, k;
  };
  for (const Problem p : {Problem{4096, 4096, 4096}, Problem{8192, 8192, 8192}, Problem{16384, 4096, 1024}}) {
    const int m_tiles = p.m / 128, n_tiles = p.n / 128;
    for (int group : {8, m_tiles}) {
      std::vector<bool> rows(size_t(m_tiles), false), cols(size_t(n_tiles), false);
      int nr = 0, nc = 0;
      for (int t = 0; t < kCtas && t < m_tiles * n_tiles; ++t) {
        const hg::TileCoord c = hg::grouped_tile(t, m_tiles, n_tiles, group);
        if (!rows[size_t(c.m)]) rows[size_t(c.m)] = true, ++nr;
        if (!cols[size_t(c.n)]) cols[size_t(c.n)] = true, ++nc;
      }
      const double mib = double(nr + nc) * 128.0 * p.k * 2.0 / (1024.0 * 1024.0);  // a band: 128 rows x K fp16
      char bytes[32];
      std::snprintf(bytes, sizeof bytes, "%.0f MiB", mib);
      t.row({plain(str(p.m) + " x " + str(p.n) + " x " + str(p.k)),
             plain(group == 8 ? "grouped by 8 tile rows (step 6)"
                              : "whole columns (" + str(m_tiles) + " tile rows), as a 2D grid launched in order"),
             plain(nr), plain(nc), plain(nr + nc), plain(bytes)});
    }
  }
  html = t.str("<code>hg::grouped_tile(t, m_tiles, n_tiles, group)</code> for t = 0 to 263: the distinct tile "
               "rows (row bands of A, 128 x K) and tile columns (row bands of B) touched by the first wave of "
               "264 tiles (fewer bands is not always fewer DRAM bytes: the step 6 page has the measured ones)");
  return true;
}

// ------------------------------------------------------------------------------------------------------
// The figures, in the order they are written.
// ------------------------------------------------------------------------------------------------------
struct Figure {
  const char* file;
  bool (*draw)(Svg&);
};

const Figure kFigures[] = {
    {"swizzle128b_atom.svg", draw_swizzle128b_atom},
    {"tmem_vs_wgmma_fragment.svg", draw_tmem_vs_wgmma_fragment},
    {"phase_kloop_timeline.svg", draw_phase_kloop_timeline},
    {"phase_ring_timeline.svg", draw_phase_ring_timeline},
    {"tile_order.svg", draw_tile_order},
    {"step7_timeline.svg", draw_step7_timeline},
};

// The tables, as HTML fragments.
struct Fragment {
  const char* file;
  bool (*write)(std::string&);
};

const Fragment kFragments[] = {
    {"phase_kloop.html", table_phase_kloop},
    {"phase_kloop_noflip.html", table_phase_kloop_noflip},
    {"phase_ring.html", table_phase_ring},
    {"phase_ring_noflip.html", table_phase_ring_noflip},
    {"phase_persistent.html", table_phase_persistent},
    {"phase_persistent_state.html", table_phase_persistent_state},
    {"phase_persistent_sweep.html", table_phase_persistent_sweep},
    {"phase_parity_rule.html", table_phase_parity_rule},
    {"phase_kloop_timed.html", table_phase_kloop_timed},
    {"phase_ring_noflip_timed.html", table_phase_ring_noflip_timed},
    {"phase_persistent_reset_timed.html", table_phase_persistent_reset_timed},
    {"phase_short_expect_tx.html", table_phase_short_expect_tx},
    {"tile_order_first.html", table_tile_order_first},
    {"tile_order_bands.html", table_tile_order_bands},
};

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::fprintf(stderr, "docs_figures: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--list") {
    for (const Figure& f : kFigures) std::printf("%s\n", f.file);
    for (const Fragment& f : kFragments) std::printf("%s\n", f.file);
    return 0;
  }
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <figures-dir> <fragments-dir> | --list\n", argv[0]);
    return 2;
  }
  const std::string figures = argv[1], fragments = argv[2];
  for (const Figure& f : kFigures) {
    Svg svg;
    if (!f.draw(svg)) {
      std::fprintf(stderr, "docs_figures: %s: a check on the code failed (see above)\n", f.file);
      return 1;
    }
    if (!write_file(figures + "/" + f.file, svg.str())) return 1;
  }
  for (const Fragment& f : kFragments) {
    std::string html;
    if (!f.write(html)) {
      std::fprintf(stderr, "docs_figures: %s: a check on the code failed (see above)\n", f.file);
      return 1;
    }
    if (!write_file(fragments + "/" + f.file, html)) return 1;
  }
  return 0;
}
