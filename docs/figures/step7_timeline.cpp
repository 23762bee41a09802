// docs/figures/step7_timeline.cpp: step 7's roles over time (docs/step7_warp_specialized.md), replayed by
// common/model/ws_model.hpp.
#include <cstdio>
#include <string>
#include <vector>

#include "common/model/ws_model.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"

namespace hg::figures {

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

}  // namespace hg::figures
