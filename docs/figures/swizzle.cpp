// docs/figures/swizzle.cpp: the 128B swizzle figure of docs/concept_swizzle.md.
#include <cstdio>
#include <string>

#include "common/kernel/descriptors.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"

namespace hg::figures {

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

}  // namespace hg::figures
