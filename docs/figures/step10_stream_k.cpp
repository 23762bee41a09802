// docs/figures/step10_stream_k.cpp: step 10's stream-K plan (docs/step10_stream_k.md), computed by the real plan
// and walk of common/kernel/stream_k.hpp (hg::plan_stream_k with the kernels' default knobs, hg::StreamKWalk).
#include <cstdio>
#include <string>
#include <vector>

#include "common/kernel/stream_k.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"

namespace hg::figures {

namespace {

// One color per output tile (ColorBrewer Set3: the chunk colors and four more).
const char* const kTileColors[12] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                     "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
const char* const kFixup = "#674ea7";  // a part on its way to its owner
const char* const kInk = "#1f2328";

/// A worker's units in the order it walks them, each with its start on the worker's time axis in K tiles.
struct Placed {
  WorkUnit u;
  int start = 0;
  int len() const { return u.k1 - u.k0; }
};

std::vector<std::vector<Placed>> walk_all(const StreamKPlan& p) {
  std::vector<std::vector<Placed>> rows(size_t(p.workers));
  for (int w = 0; w < p.workers; ++w) {
    int t = 0;
    for (StreamKWalk walk(p, w); walk.valid(); walk.next()) {
      const WorkUnit u = walk.current();
      rows[size_t(w)].push_back({u, t});
      t += u.k1 - u.k0;
    }
  }
  return rows;
}

int row_end(const std::vector<Placed>& row) { return row.empty() ? 0 : row.back().start + row.back().len(); }

/// The walks' checks against the plan: every (tile, K tile) held once; a part (a unit after K tile 0) is its
/// worker's first unit; a split tile's unit at K tile 0 is held by plan.owner(), its last unit by
/// plan.last_holder(); the longest walk is plan.max_iters() (with a split) or plan.whole_iters() (without).
bool check_walks(const StreamKPlan& p, const std::vector<std::vector<Placed>>& rows, const char* name) {
  std::vector<int> held(size_t(p.tiles * p.k_tiles), 0);
  int longest = 0;
  for (int w = 0; w < p.workers; ++w) {
    const std::vector<Placed>& row = rows[size_t(w)];
    for (size_t i = 0; i < row.size(); ++i) {
      const WorkUnit& u = row[i].u;
      if (u.k0 > 0 && i != 0) {
        std::fprintf(stderr, "step 10 workers, %s: worker %d's part of tile %d is not its first unit\n", name, w,
                     u.tile);
        return false;
      }
      if (u.tile < p.sk_tiles && u.k0 == 0 && p.owner(u.tile) != w) {
        std::fprintf(stderr, "step 10 workers, %s: tile %d starts at worker %d, plan.owner() says %d\n", name, u.tile,
                     w, p.owner(u.tile));
        return false;
      }
      if (u.tile < p.sk_tiles && u.k1 == p.k_tiles && p.last_holder(u.tile) != w) {
        std::fprintf(stderr, "step 10 workers, %s: tile %d ends at worker %d, plan.last_holder() says %d\n", name,
                     u.tile, w, p.last_holder(u.tile));
        return false;
      }
      for (int k = u.k0; k < u.k1; ++k) ++held[size_t(u.tile * p.k_tiles + k)];
    }
    longest = row_end(row) > longest ? row_end(row) : longest;
  }
  for (size_t i = 0; i < held.size(); ++i)
    if (held[i] != 1) {
      std::fprintf(stderr, "step 10 workers, %s: tile %d's K tile %d is held %d times\n", name,
                   int(i) / p.k_tiles, int(i) % p.k_tiles, held[i]);
      return false;
    }
  const int expected = p.sk_tiles > 0 ? p.max_iters() : p.whole_iters();
  if (longest != expected) {
    std::fprintf(stderr, "step 10 workers, %s: the longest walk is %d K tiles, the plan says %d\n", name, longest,
                 expected);
    return false;
  }
  return true;
}

struct Axis {
  double x0, unit;
  double x(int k) const { return x0 + k * unit; }
};

/// One worker's row: each K tile a cell of its tile's color; a part hatched with a dashed edge, an owner's unit
/// (K tile 0 of a split tile) with a thick edge; a whole tile with a plain edge. Labels where they fit.
void draw_row(Svg& svg, const Axis& a, const StreamKPlan& p, const std::vector<Placed>& row, double y, double h) {
  for (const Placed& pl : row) {
    const WorkUnit& u = pl.u;
    for (int k = 0; k < pl.len(); ++k) svg.rect(a.x(pl.start + k), y, a.unit, h, kTileColors[u.tile % 12], "#ffffff");
    const double x = a.x(pl.start), w = pl.len() * a.unit;
    const bool part = u.k0 > 0, owner = u.k0 == 0 && u.k1 < p.k_tiles;
    std::string label = "tile " + str(u.tile);
    if (part) {
      svg.rect(x, y, w, h, "url(#sk_part)", kInk, 1.2, "stroke-dasharray=\"4 2\"");
      label = "t" + str(u.tile) + " k" + str(u.k0) + "-" + str(u.k1 - 1) + " part";
    } else if (owner) {
      svg.rect(x, y, w, h, "none", kInk, 2.4);
      label = "t" + str(u.tile) + " k" + str(u.k0) + "-" + str(u.k1 - 1) + " owner";
    } else {
      svg.rect(x, y, w, h, "none", kGrey, 1);
    }
    if (w > 5.2 * double(label.size()) + 4)
      svg.text(x + w / 2, y + h / 2 + 3.5, label, 9.5, "middle");
  }
}

/// The K-tile axis under a panel, ticked every K tile, numbered every k_tiles.
void k_axis(Svg& svg, const Axis& a, int total, int k_tiles, double y) {
  svg.line(a.x(0), y, a.x(total), y, kGrey, 1);
  for (int k = 0; k <= total; ++k) {
    svg.line(a.x(k), y, a.x(k), y + (k % k_tiles ? 3 : 6), kGrey, 1);
    if (k % k_tiles == 0) svg.text(a.x(k), y + 17, str(k), 9, "middle", "", kGrey);
  }
  svg.text(a.x(total) + 8, y + 4, "K tiles", 9, "start", "", kGrey);
}

/// A vertical marker at K tile k across [y0, y1], its label above.
void marker(Svg& svg, const Axis& a, int k, double y0, double y1, const std::string& label, const std::string& color,
            const std::string& anchor) {
  svg.line(a.x(k), y0, a.x(k), y1, color, 1.6, "stroke-dasharray=\"5 3\"");
  svg.text(a.x(k) + (anchor == "end" ? -4 : 4), y0 + 9, label, 10, anchor, kBold, color);
}

}  // namespace

bool draw_step10_workers(Svg& svg) {
  // A small example: one round of 4 workers does not divide 10 tiles; the 2 left over and one whole round (the
  // default knobs) are shared out by K, the last 4 tiles go whole.
  constexpr int kTiles = 10, kKTiles = 8, kWorkers = 4;
  const StreamKKnobs knobs;
  const StreamKPlan p = plan_stream_k(kTiles, kKTiles, kWorkers, knobs);
  StreamKKnobs off = knobs;
  off.min_share = 100000;  // longer than any tile: no split, step 9's plan
  const StreamKPlan whole = plan_stream_k(kTiles, kKTiles, kWorkers, off);
  const std::vector<std::vector<Placed>> rows = walk_all(p), rows9 = walk_all(whole);
  if (!check_walks(p, rows, "stream-K") || !check_walks(whole, rows9, "step 9")) return false;
  // The example must show what the figure names: a split tile (an owner and a part), and whole tiles after it.
  int parts = 0, owners = 0, wholes = 0;
  for (const auto& row : rows)
    for (const Placed& pl : row) {
      parts += pl.u.k0 > 0;
      owners += pl.u.k0 == 0 && pl.u.k1 < kKTiles;
      wholes += pl.u.tile >= p.sk_tiles;
    }
  if (p.sk_tiles == 0 || parts == 0 || owners == 0 || wholes == 0 || whole.sk_tiles != 0 ||
      p.max_iters() >= whole.whole_iters()) {
    std::fprintf(stderr,
                 "step 10 workers: with the default knobs, %d tiles of %d K tiles on %d workers no longer show a split "
                 "tile, a part, an owner and whole tiles that shorten the longest worker (sk_tiles %d, parts %d, "
                 "owners %d, whole tiles %d): pick other numbers in draw_step10_workers\n",
                 kTiles, kKTiles, kWorkers, p.sk_tiles, parts, owners, wholes);
    return false;
  }

  const Axis a{150, 26};
  const int total = whole.whole_iters();
  const double h = 24, gap = 8;
  svg.hatch_pattern("sk_part", "#8c959f");
  svg.text(16, 24,
           "Step 10: " + str(kTiles) + " tiles of " + str(kKTiles) + " K tiles on " + str(kWorkers) +
               " workers (CTA pairs), as hg::plan_stream_k and hg::StreamKWalk share them out",
           15, "start", kBold);

  // --- The stream-K plan ------------------------------------------------------------------------------------
  double y = 52;
  svg.text(16, y, "Stream-K: tiles 0-" + str(p.sk_tiles - 1) + " (" + str(p.sk_iters) + " iterations) shared by K, " +
                      str(p.sk_iters / p.sk_workers) + " each; then tiles " + str(p.sk_tiles) + "-" +
                      str(kTiles - 1) + " whole, round-robin",
           13, "start", kBold);
  // One labelled row per worker, from `top` down; returns the last row's bottom edge.
  auto draw_rows = [&](const hg::StreamKPlan& plan, const std::vector<std::vector<Placed>>& units, double top) {
    for (int w = 0; w < kWorkers; ++w) {
      const double yr = top + w * (h + gap);
      svg.text(a.x0 - 10, yr + h / 2 + 4, "worker " + str(w), 11, "end");
      draw_row(svg, a, plan, units[size_t(w)], yr, h);
    }
    return top + kWorkers * (h + gap) - gap;
  };
  const double top = y + 26;
  const double bottom = draw_rows(p, rows, top);
  // Each part goes to its tile's owner, which adds it after its own K range.
  for (int w = 0; w < kWorkers; ++w)
    for (const Placed& pl : rows[size_t(w)])
      if (pl.u.k0 > 0) {
        const int o = p.owner(pl.u.tile);
        for (const Placed& op : rows[size_t(o)])
          if (op.u.tile == pl.u.tile)
            arrow(svg, a.x(pl.start + pl.len()) - 4, top + w * (h + gap) + 3, a.x(op.start + op.len()) - 3,
                  top + o * (h + gap) + h - 2, kFixup);
      }
  marker(svg, a, p.max_iters(), top - 16, bottom + 4, "max_iters() = " + str(p.max_iters()), kFixup, "end");
  marker(svg, a, whole.whole_iters(), top - 16, bottom + 4, "whole_iters() = " + str(whole.whole_iters()), kRed,
         "end");
  k_axis(svg, a, total, kKTiles, bottom + 6);

  // --- Step 9's plan of the same tiles ----------------------------------------------------------------------
  y = bottom + 50;
  svg.text(16, y, "Step 9 (the split off): every tile whole, round-robin; the longest worker walks ceil(" +
                      str(kTiles) + " / " + str(kWorkers) + ") = " + str(whole.whole_iters() / kKTiles) + " tiles",
           13, "start", kBold);
  const double top9 = y + 26;
  const double bottom9 = draw_rows(whole, rows9, top9);
  marker(svg, a, whole.whole_iters(), top9 - 16, bottom9 + 4, "whole_iters() = " + str(whole.whole_iters()), kRed,
         "end");
  k_axis(svg, a, total, kKTiles, bottom9 + 6);

  // --- Legend -----------------------------------------------------------------------------------------------
  const double ly = bottom9 + 52;
  svg.rect(16, ly - 11, 28, 14, kTileColors[1], kInk, 2.4);
  svg.text(50, ly, "owner: K tile 0 of a split tile; it adds the parts and writes the tile", 11);
  svg.rect(470, ly - 11, 28, 14, kTileColors[1], "#ffffff");
  svg.rect(470, ly - 11, 28, 14, "url(#sk_part)", kInk, 1.2, "stroke-dasharray=\"4 2\"");
  svg.text(504, ly, "part: always its worker's first unit; fp32 to the workspace", 11);
  arrow(svg, 870, ly - 4, 900, ly - 4, kFixup);
  svg.text(906, ly, "part to owner", 11);
  svg.text(16, ly + 22,
           "Lengths in K tiles, one cell each, colored by tile; knobs: min_share " + str(knobs.min_share) +
               ", rounds " + str(knobs.rounds) + ", part_cost " + str(knobs.part_cost) + ", min_saving_pct " +
               str(knobs.min_saving_pct) + " (the defaults). The fixup's cost (max_cost() = " +
               str(p.max_cost(knobs.part_cost)) + ") is not drawn.",
           11, "start", "", kGrey);
  svg.size(1010, ly + 38);
  return true;
}

namespace {

const char* const kRelease = "#38761d";  // a release store and the acquire that reads it
const char* const kSpin = "#ffebe9";

/// One span of the fixup timeline, on a lane, in K tiles of time.
struct FixSpan {
  int lane;
  double start, end;
  std::string label, fill;
};

}  // namespace

bool draw_step10_fixup_timeline(Svg& svg) {
  // One tile of 12 K tiles on 3 workers: the plan splits it in three, an owner and two parts, so the owner adds
  // two parts in K order.
  constexpr int kTiles = 1, kKTiles = 12, kWorkers = 3, kTile = 0;
  const StreamKKnobs knobs;
  const StreamKPlan p = plan_stream_k(kTiles, kKTiles, kWorkers, knobs);
  const std::vector<std::vector<Placed>> rows = walk_all(p);
  if (!check_walks(p, rows, "fixup")) return false;
  if (p.sk_tiles <= kTile || p.last_holder(kTile) - p.owner(kTile) < 2) {
    std::fprintf(stderr, "step 10 fixup: with the default knobs the plan of %d tile of %d K tiles on %d workers no "
                 "longer splits tile %d in three (sk_tiles %d): pick other numbers in draw_step10_fixup_timeline\n",
                 kTiles, kKTiles, kWorkers, kTile, p.sk_tiles);
    return false;
  }
  const int owner = p.owner(kTile), last = p.last_holder(kTile);
  // The unit of the tile each holder walks: the owner's at K tile 0, then every part in K order, each its
  // worker's first unit (check_walks), the next one starting where it ends.
  std::vector<Placed> unit(size_t(last + 1));
  for (int w = owner; w <= last; ++w) {
    bool found = false;
    for (const Placed& pl : rows[size_t(w)])
      if (pl.u.tile == kTile) unit[size_t(w)] = pl, found = true;
    const int k0 = w == owner ? 0 : unit[size_t(w - 1)].u.k1;
    if (!found || unit[size_t(w)].u.k0 != k0) {
      std::fprintf(stderr, "step 10 fixup: worker %d does not hold tile %d from K tile %d on\n", w, kTile, k0);
      return false;
    }
  }
  if (p.parts_moved(owner) != last - owner) {
    std::fprintf(stderr, "step 10 fixup: the owner moves %d parts, the plan holds %d\n", p.parts_moved(owner),
                 last - owner);
    return false;
  }

  // --- The timeline, in K tiles: a K tile's MMAs take 1, writing or reading a part the plan's part_cost --------
  const double cost = knobs.part_cost;
  std::vector<FixSpan> spans;
  std::vector<double> published(size_t(last + 1), 0);
  for (int w = owner + 1; w <= last; ++w) {  // lanes 1, 2, ...: the part holders
    const Placed& pl = unit[size_t(w)];
    const double mma_end = pl.start + pl.len();
    spans.push_back({w - owner, double(pl.start), mma_end, "MMAs k" + str(pl.u.k0) + "-" + str(pl.u.k1 - 1),
                     kTileColors[kTile]});
    spans.push_back({w - owner, mma_end, mma_end + cost, "st.global.cg", "#eaeef2"});
    published[size_t(w)] = mma_end + cost;  // then bar.sync and st.release.gpu, no time
  }
  const Placed& own = unit[size_t(owner)];
  double now = own.start + own.len();
  spans.push_back({0, double(own.start), now, "MMAs k0-" + str(own.u.k1 - 1), kTileColors[kTile]});
  std::vector<double> acquired(size_t(last + 1), 0);
  for (int w = owner + 1; w <= last; ++w) {  // the kernel's loop: w = worker + 1 .. plan.last_holder(tile)
    if (published[size_t(w)] > now) spans.push_back({0, now, published[size_t(w)], "thread 0 spins", kSpin});
    now = now > published[size_t(w)] ? now : published[size_t(w)];
    acquired[size_t(w)] = now;
    spans.push_back({0, now, now + cost, "ld.global.cg + add k" + str(unit[size_t(w)].u.k0) + "-" +
                     str(unit[size_t(w)].u.k1 - 1), "#eaeef2"});
    now += cost;
  }
  spans.push_back({0, now, now + 1, "fp16, store", "#1f2328"});
  for (int w = owner + 1; w <= last; ++w)
    if (acquired[size_t(w)] < published[size_t(w)] ||
        (w > owner + 1 && acquired[size_t(w)] < acquired[size_t(w - 1)])) {
      std::fprintf(stderr, "step 10 fixup: the owner reads worker %d's part before its release or out of K order\n",
                   w);
      return false;
    }

  const Axis a{230, 72};
  const double h = 26, pitch = 86;
  const int total = int(now) + 1;
  svg.text(16, 24,
           "Step 10: one split tile (" + str(kKTiles) + " K tiles on " + str(kWorkers) +
               " workers), its parts released by their holders and acquired by the owner, in K order",
           15, "start", kBold);
  const double top = 70;
  auto lane_y = [&](int lane) { return top + lane * pitch; };
  for (int w = owner; w <= last; ++w) {
    const Placed& pl = unit[size_t(w)];
    const std::string role = w == owner ? "owner" : "part holder";
    svg.text(a.x0 - 10, lane_y(w - owner) + 12, "worker " + str(w) + ", " + role, 11, "end", kBold);
    svg.text(a.x0 - 10, lane_y(w - owner) + 26, "K tiles " + str(pl.u.k0) + "-" + str(pl.u.k1 - 1), 10, "end", "",
             kGrey);
  }
  for (const FixSpan& sp : spans) {
    const double x = a.x0 + sp.start * a.unit, w = (sp.end - sp.start) * a.unit, y = lane_y(sp.lane);
    svg.rect(x, y, w, h, sp.fill, sp.fill == kSpin ? kRed : "#ffffff", 1,
             sp.fill == kSpin ? "stroke-dasharray=\"3 2\"" : "");
    svg.text(x + w / 2, y + h / 2 + 3.5, sp.label, 9.5, "middle", kMono, sp.fill == kInk ? "#ffffff" : kInk);
  }
  // The holders: bar.sync (every thread's stores before the release), then thread 0's release store; the owner:
  // thread 0's acquire load sees it, bar.sync passes it to the warpgroup, which reads the part.
  for (int w = owner + 1; w <= last; ++w) {
    const double xr = a.x0 + published[size_t(w)] * a.unit, yr = lane_y(w - owner);
    const double xa = a.x0 + acquired[size_t(w)] * a.unit, ya = lane_y(0) + h;
    svg.line(xr, yr - 4, xr, yr + h + 4, kRelease, 2.2);
    svg.text(xr + 5, yr + h + 14, "bar.sync; thread 0: st.release.gpu flag[" + str(w) + "] = epoch", 9.5, "start",
             kMono, kRelease);
    arrow(svg, xr, yr - 4, xa + 2, ya + 3, kRelease);
    svg.line(xa, ya - h - 4, xa, ya + 4, kRelease, 2.2);
    svg.text(xa - 3, lane_y(0) - 8 - 14 * (last - w),
             "thread 0: ld.acquire.gpu flag[" + str(w) + "] == epoch; bar.sync", 9.5, "end", kMono, kRelease);
  }
  const double ybase = lane_y(last - owner) + h + 30;
  svg.line(a.x0, ybase, a.x0 + total * a.unit, ybase, kGrey, 1);
  for (int t = 0; t <= total; ++t) {
    svg.line(a.x0 + t * a.unit, ybase, a.x0 + t * a.unit, ybase + 4, kGrey, 1);
    svg.text(a.x0 + t * a.unit, ybase + 16, str(t), 9, "middle", "", kGrey);
  }
  svg.text(a.x0 + total * a.unit + 8, ybase + 4, "time", 9, "start", "", kGrey);
  svg.text(16, ybase + 40,
           "Each consumer warpgroup of each CTA of the pair does this with its own flag and its own region of the "
           "slot. The owner adds the parts in the order of their K ranges, whichever arrives first,",
           11);
  svg.text(16, ybase + 56, "so the sum is the same bits in every run; a part is its holder's first unit, so its "
                           "release never waits for another worker.", 11);
  svg.text(16, ybase + 76,
           "Plan: hg::plan_stream_k with the default knobs, owner() = " + str(owner) + ", last_holder() = " +
               str(last) + ". Schematic time: a K tile's MMAs 1, a part written or read part_cost = " +
               str(knobs.part_cost) + " (the plan's cost of a part); the pink span is the owner's spin.",
           11, "start", "", kGrey);
  svg.size(a.x0 + total * a.unit + 140, ybase + 92);
  return true;
}

}  // namespace hg::figures
