// tools/docs_figures.cpp: draws the figures of the documentation as SVG files, computed from the code.
//
// Built by docs/CMakeLists.txt as a small host program and run by the `docs` target before Doxygen:
//   hg_docs_figures <output-dir>      writes every figure below into <output-dir> (Doxygen's IMAGE_PATH)
//   hg_docs_figures --list            prints the file names, one a line
// The figures are not drawn by hand: each one evaluates the real layout functions of common/ (or the
// indexing the kernels use) and checks what it draws before writing it; a failed check exits with 1, so
// a layout change that breaks a figure's claim breaks the docs build.
//
// Adding a figure: write a function `bool draw_xxx(Svg& svg)` (return false after printing why if a
// check fails), then add one line to kFigures at the bottom. Pages show it with
// `\image html xxx.svg "caption"`.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/descriptors.hpp"

namespace {

// ------------------------------------------------------------------------------------------------------
// A minimal SVG writer: rectangles, text and lines in absolute pixel coordinates.
// ------------------------------------------------------------------------------------------------------
class Svg {
 public:
  void size(double w, double h) { w_ = w, h_ = h; }

  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "#ffffff",
            double stroke_width = 1.0) {
    out_ << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << h << "\" fill=\"" << fill
         << "\" stroke=\"" << stroke << "\" stroke-width=\"" << stroke_width << "\"/>\n";
  }

  /// anchor: "start", "middle" or "end"; the baseline is at y.
  void text(double x, double y, const std::string& s, double font_size = 12, const std::string& anchor = "start",
            const std::string& style = "", const std::string& fill = "#1f2328") {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << font_size << "\" text-anchor=\"" << anchor
         << "\" fill=\"" << fill << "\"";
    if (!style.empty()) out_ << " " << style;
    out_ << ">" << escape(s) << "</text>\n";
  }

  void line(double x1, double y1, double x2, double y2, const std::string& stroke = "#57606a", double width = 1.0) {
    out_ << "<line x1=\"" << x1 << "\" y1=\"" << y1 << "\" x2=\"" << x2 << "\" y2=\"" << y2 << "\" stroke=\""
         << stroke << "\" stroke-width=\"" << width << "\"/>\n";
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

/// Blackwell, step 1 epilogue: warp w issues tcgen05.ld 32x32b at hg::tmem_addr(base, 32w, 0); lane l of
/// the warp receives TMEM lane (address lane field + l), register i = column i.
int tmem_lane_of_thread(int t) {
  const int warp = t / 32, lane = t % 32;
  const uint32_t addr = hg::tmem_addr(0, uint32_t(warp * 32), 0);
  return int(addr >> 16) + lane;
}

/// Hopper, step 1 epilogue: thread t holds acc[h][4j + i] at row 16(t/32) + (t%32)/4 + 8(i/2),
/// column 8j + 2(t%4) + i%2 of half h (the indexing of hgemm_sm90.cuh's epilogue).
void wgmma_fragment_pos(int t, int reg, int* row, int* col) {
  const int warp_id = t / 32, lane_id = t % 32, j = reg / 4, i = reg % 4;
  *row = warp_id * 16 + lane_id / 4 + 8 * (i / 2);
  *col = j * 8 + (lane_id % 4) * 2 + (i % 2);
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
// The figures, in the order they are written.
// ------------------------------------------------------------------------------------------------------
struct Figure {
  const char* file;
  bool (*draw)(Svg&);
};

const Figure kFigures[] = {
    {"swizzle128b_atom.svg", draw_swizzle128b_atom},
    {"tmem_vs_wgmma_fragment.svg", draw_tmem_vs_wgmma_fragment},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help") {
    std::fprintf(stderr, "usage: %s <output-dir> | --list\n", argv[0]);
    return 2;
  }
  const std::string arg = argv[1];
  if (arg == "--list") {
    for (const Figure& f : kFigures) std::printf("%s\n", f.file);
    return 0;
  }
  for (const Figure& f : kFigures) {
    Svg svg;
    if (!f.draw(svg)) {
      std::fprintf(stderr, "docs_figures: %s: a check on the layout failed (see above)\n", f.file);
      return 1;
    }
    const std::string path = arg + "/" + f.file;
    std::ofstream out(path, std::ios::binary);
    out << svg.str();
    if (!out) {
      std::fprintf(stderr, "docs_figures: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
