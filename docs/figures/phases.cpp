// docs/figures/phases.cpp: the mbarrier phase figures and tables of docs/concept_mbarrier_phases.md, replayed by
// common/model/phase_model.hpp.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "common/model/phase_model.hpp"
#include "docs/figures/figures.hpp"
#include "docs/figures/html_table.hpp"
#include "docs/figures/svg.hpp"

namespace hg::figures {

// ------------------------------------------------------------------------------------------------------
// (c) mbarrier phases over time, replayed by the host model of common/model/phase_model.hpp.
// ------------------------------------------------------------------------------------------------------

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
  // iterations t * k_tiles .. t * k_tiles + k_tiles - 1.
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

}  // namespace hg::figures
