// docs/figures/step9_epilogue.cpp: step 9's Hopper epilogue hidden under the next tile's K-loop
// (docs/step9_multi_consumer.md), replayed from the control flow of one consumer of step9_multi_consumer/hgemm_sm90.cuh.
#include <cstdio>
#include <string>
#include <vector>

#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"

namespace hg::figures {

namespace {

// One consumer warpgroup of the Hopper kernel, as its loops run (hgemm_sm90.cuh, [kloop], [convert], [last_tile]):
//   for each tile: for i in K tiles: issue K tile i's wgmma group; wait_group<1> (the group before is done);
//                                      write chunk c == i of the pending tile;
//                  write the chunks c >= k_tiles still pending; wait_group<0>; convert (the tile becomes pending);
//   after the last tile: write its four chunks.
// The tensor core runs the groups one after the other; a chunk write keeps the threads busy but not the tensor
// core. Schematic durations.
constexpr int kChunks = 4;      // BLK_N / kDBoxCols: 256 columns in 64-column chunks
constexpr int kBoxes = 2;       // kDBoxes: chunk c goes through box c % 2
constexpr int kGroup = 4;       // one K tile's 4 wgmma m64n256k16
constexpr int kChunkWrite = 3;  // registers -> staging box, then the TMA store is issued
constexpr int kConvert = 1;     // fp32 -> fp16 pairs of the whole accumulator

struct Span {
  enum Kind { kWgmma, kChunk, kConvertSpan } kind;
  int tile, index;  // K tile (kWgmma) or chunk (kChunk)
  int start, end;
};

struct Schedule {
  std::vector<Span> spans;
  int total = 0;
};

Schedule replay(int tiles, int k_tiles) {
  Schedule s;
  int now = 0, tc_free = 0, pending = -1;
  std::vector<int> group_end;  // of the current tile's groups
  auto write_chunk = [&](int c) {
    s.spans.push_back({Span::kChunk, pending, c, now, now + kChunkWrite});
    now += kChunkWrite;
  };
  for (int t = 0; t < tiles; ++t) {
    group_end.clear();
    for (int i = 0; i < k_tiles; ++i) {
      const int start = now > tc_free ? now : tc_free;  // issued now, runs when the tensor core is free
      tc_free = start + kGroup;
      s.spans.push_back({Span::kWgmma, t, i, start, tc_free});
      group_end.push_back(tc_free);
      if (i > 0 && now < group_end[size_t(i - 1)]) now = group_end[size_t(i - 1)];  // wait_group<1>
      for (int c = 0; c < kChunks; ++c)
        if (c == i && pending >= 0) write_chunk(c);
    }
    for (int c = 0; c < kChunks; ++c)
      if (c >= k_tiles && pending >= 0) write_chunk(c);
    if (now < tc_free) now = tc_free;  // wait_group<0>: the accumulator is complete
    s.spans.push_back({Span::kConvertSpan, t, 0, now, now + kConvert});
    now += kConvert;
    pending = t;
  }
  for (int c = 0; c < kChunks; ++c) write_chunk(c);
  s.total = now > tc_free ? now : tc_free;
  return s;
}

/// The schedule's checks: every chunk of every tile written once, after its tile's conversion and before the
/// next one; consecutive chunks through different boxes; `hidden` chunks written while a group was in flight.
bool check(const Schedule& s, int tiles, int k_tiles, int* hidden) {
  *hidden = 0;
  for (int t = 0; t < tiles; ++t) {
    int convert_end = -1, next_convert = -1;
    for (const Span& sp : s.spans)
      if (sp.kind == Span::kConvertSpan) {
        if (sp.tile == t) convert_end = sp.end;
        if (sp.tile == t + 1) next_convert = sp.start;
      }
    for (int c = 0; c < kChunks; ++c) {
      int n = 0;
      for (const Span& sp : s.spans) {
        if (sp.kind != Span::kChunk || sp.tile != t || sp.index != c) continue;
        ++n;
        if (sp.start < convert_end || (next_convert >= 0 && sp.end > next_convert)) {
          std::fprintf(stderr, "step 9 epilogue, k_tiles %d: chunk %d of tile %d outside its tile's window\n",
                       k_tiles, c, t);
          return false;
        }
        for (const Span& g : s.spans)
          if (g.kind == Span::kWgmma && g.start < sp.end && g.end > sp.start) {
            ++*hidden;
            break;
          }
      }
      if (n != 1) {
        std::fprintf(stderr, "step 9 epilogue, k_tiles %d: chunk %d of tile %d written %d times\n", k_tiles, c, t, n);
        return false;
      }
    }
  }
  int last_box = -1;
  for (const Span& sp : s.spans)
    if (sp.kind == Span::kChunk) {
      const int box = sp.index % kBoxes;
      if (box == last_box) {
        std::fprintf(stderr, "step 9 epilogue: two consecutive chunks through box %d\n", box);
        return false;
      }
      last_box = box;
    }
  return true;
}

const char* const kTileFill[3] = {"#9ecae1", "#fdae6b", "#a1d99b"};
const char* const kTileLight[3] = {"#deedf6", "#fee6ce", "#e0f2dc"};

void box(Svg& svg, double x0, double unit, const Span& sp, double y, double h, const std::string& fill,
         const std::string& stroke, const std::string& label) {
  const double x = x0 + sp.start * unit, w = (sp.end - sp.start) * unit;
  svg.rect(x, y, w, h, fill, stroke, 1);
  if (w > 6.2 * double(label.size()) + 2) svg.text(x + w / 2, y + h / 2 + 3.5, label, 9, "middle");
}

/// One panel: the tensor core's groups above, the consumer's chunk writes below. Returns the y below it.
double panel(Svg& svg, const Schedule& s, int k_tiles, int hidden, int chunks, double y) {
  const double x0 = 200, unit = 12, h = 20;
  svg.text(16, y, "k_tiles = " + str(k_tiles) + ": " + str(hidden) + " of " + str(chunks) +
                      " chunk writes run while a wgmma group is in flight", 12, "start", kBold);
  const double y_tc = y + 12, y_ep = y_tc + h + 10;
  svg.text(x0 - 8, y_tc + 14, "tensor core (wgmma)", 11, "end");
  svg.text(x0 - 8, y_ep + 14, "consumer's threads", 11, "end");
  for (const Span& sp : s.spans) {
    const int t = sp.tile % 3;
    if (sp.kind == Span::kWgmma)
      box(svg, x0, unit, sp, y_tc, h, kTileFill[t], "#ffffff", "t" + str(sp.tile) + " k" + str(sp.index));
    else if (sp.kind == Span::kChunk)
      box(svg, x0, unit, sp, y_ep, h, kTileLight[t], kTileFill[t],
          "c" + str(sp.index) + "/b" + str(sp.index % kBoxes));
    else
      box(svg, x0, unit, sp, y_ep, h, "#1f2328", "#1f2328", "");
  }
  svg.line(x0, y_ep + h + 6, x0 + s.total * unit, y_ep + h + 6, kGrey, 1);
  svg.text(x0 + s.total * unit + 6, y_ep + h + 10, "time", 9, "start", "", kGrey);
  return y_ep + h + 30;
}

}  // namespace

bool draw_step9_epilogue(Svg& svg) {
  constexpr int kTiles = 3;
  svg.text(16, 24, "Step 9, Hopper: each consumer writes tile t's four chunks during tile t+1's first K tiles", 15,
           "start", kBold);
  double y = 52;
  double width = 0;
  for (const int k_tiles : {6, 2}) {
    const Schedule s = replay(kTiles, k_tiles);
    int hidden = 0;
    if (!check(s, kTiles, k_tiles, &hidden)) return false;
    // With at least four K tiles, every chunk of every tile but the last is written under a group in flight.
    if (k_tiles >= kChunks && hidden < (kTiles - 1) * kChunks) {
      std::fprintf(stderr, "step 9 epilogue: only %d chunks hidden with %d K tiles\n", hidden, k_tiles);
      return false;
    }
    y = panel(svg, s, k_tiles, hidden, kTiles * kChunks, y);
    if (200 + s.total * 12 + 60 > width) width = 200 + s.total * 12 + 60;
  }
  svg.text(16, y, "tK kI: tile T's K tile I (4 wgmma m64n256k16); cC/bB: chunk C of the pending tile through "
                  "staging box B; black: the conversion to fp16 that frees the accumulator.", 11);
  svg.text(16, y + 18, "Replayed from the loops of hgemm_sm90.cuh (write chunk c at K tile c, the rest after the "
                       "K-loop, all four after the last tile); schematic durations.", 11, "start", "", kGrey);
  svg.size(width, y + 34);
  return true;
}

}  // namespace hg::figures
