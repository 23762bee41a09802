// CPU tests of step 11's heuristic (common/kernel/tile_choice.hpp): what forecast_tile predicts for one tile
// (its tiles, rounds, split, longest worker, idle share and what the comparison weighs, on cases worked out by hand
// below, a part moved priced at kTilePartPrice = 9 K tiles), that choose_tile takes the smallest predicted time and the first of equals, never
// a smaller tile split in part, and makes the choices the sweep measured; and that pick_tile honours a forced tile
// of the menu, refuses one off the menu naming the menu, and says which way the tile was chosen.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/kernel/gemm.hpp"
#include "common/kernel/stream_k.hpp"
#include "common/kernel/tile_choice.hpp"

using hg::choose_tile;
using hg::forecast_tile;
using hg::StreamKKnobs;
using hg::TileForecast;
using hg::TileOption;

namespace {

constexpr int kPairs = 66;  // the H200's CTA pairs (132 SMs, one CTA each)
constexpr TileOption kWide{256, 256, 1000}, kMid{256, 192, 1000}, kNarrow{256, 128, 1000};

hg::GemmArgs args(int m, int n, int k) {
  hg::GemmArgs g;
  g.m = m, g.n = n, g.k = k;
  return g;
}

}  // namespace

TEST_CASE("forecast_tile: 5120 x 5120 x 2048 on 66 pairs, step 10's natural shape") {
  const StreamKKnobs knobs;
  // 256 x 256: 20 x 20 = 400 tiles of 32 K tiles; 400 = 6 x 66 + 4, so 7 rounds and step 9's longest worker 224.
  // The split takes the 4 left over plus one round, 70 tiles = 2240 iterations over 66 pairs, shares of 33 or 34;
  // 5 whole rounds (160) remain. The longest pair has a 34-K-tile share, writes one part and reads one. The plan
  // prices a part at knobs.part_cost, 2 K tiles: 160 + 34 + 4 = 198, 26 shorter than 224 (more than 4%), so it
  // splits. The forecast prices a part at 9: 160 + 34 + 18 = 212. The split leaves whole tiles, so the comparison
  // weighs the 7 rounds unsplit, 224.
  const TileForecast w = forecast_tile(kWide, 5120, 5120, 2048, kPairs, knobs);
  CHECK(w.tiles == 400);
  CHECK(w.k_tiles == 32);
  CHECK(w.rounds == 7);
  CHECK(w.plan.sk_tiles == 70);
  CHECK(w.plan.max_cost(knobs.part_cost) == 198);
  CHECK(w.longest == 212);
  // Idle: 1 - 400 x 32 / (66 x 212) = 1 - 12800 / 13992 = 8.52%, 85 thousandths (the busy share rounds down).
  CHECK(w.idle_permille == 85);
  CHECK(w.weighed == 224);
  CHECK(w.predicted == int64_t(224) * 256 * 256);  // at the rate 1000: what is weighed times the tile's area
  // 256 x 128: 20 x 40 = 800 tiles; 800 = 12 x 66 + 8: 13 rounds, step 9's longest 416. Split: 8 + 66 = 74 tiles,
  // 2368 iterations, shares of 35 or 36; 11 whole rounds (352) remain; 352 + 36 + 2 x 9 = 406, weighed as its 13
  // rounds unsplit, 416.
  const TileForecast n = forecast_tile(kNarrow, 5120, 5120, 2048, kPairs, knobs);
  CHECK(n.tiles == 800);
  CHECK(n.rounds == 13);
  CHECK(n.plan.sk_tiles == 74);
  CHECK(n.longest == 406);
  CHECK(n.weighed == 416);
  CHECK(n.predicted == int64_t(416) * 256 * 128);
  // The price is the forecast's argument: at 2, the plan's own, the longest worker is the plan's 198.
  CHECK(forecast_tile(kWide, 5120, 5120, 2048, kPairs, knobs, 2).longest == 198);
}

TEST_CASE("forecast_tile: a plan without a split, an even round, a ragged edge") {
  const StreamKKnobs knobs;
  // 4096^3, 256 x 256: 16 x 16 = 256 tiles of 64 K tiles, 256 = 3 x 66 + 58: 4 rounds, longest 4 x 64 = 256. The
  // split would save 3 K tiles (256 - 253), less than 4%: no split. Idle 1 - 16384 / 16896 = 3.03%: 30 (rounded to the nearest).
  const TileForecast f = forecast_tile(kWide, 4096, 4096, 4096, kPairs, knobs);
  CHECK(f.tiles == 256);
  CHECK(f.rounds == 4);
  CHECK(f.plan.sk_tiles == 0);
  CHECK(f.longest == 256);
  CHECK(f.weighed == 256);
  CHECK(f.idle_permille == 30);
  // 512 x 512 x 640 on 4 pairs: 4 tiles of 10 K tiles, one full round, nothing to split, nobody idle.
  const TileForecast even = forecast_tile(kWide, 512, 512, 640, 4, knobs);
  CHECK(even.tiles == 4);
  CHECK(even.rounds == 1);
  CHECK(even.plan.sk_tiles == 0);
  CHECK(even.longest == 10);
  CHECK(even.idle_permille == 0);
  // 1000^3, 256 x 256: rows and columns round up, 4 x 4 = 16 tiles, and K up, 16 K tiles. All 16 tiles are split
  // (16 <= 60% of 66 pairs): 256 iterations over 64 pairs (shares of at least 4), 4 per tile each. An owner
  // computes 4 and reads 3 parts, 4 + 3 x 9 = 31; idle 1 - 256 / 2046 = 87.49%: 875. Every tile split: weighed as
  // planned, 31.
  const TileForecast ragged = forecast_tile(kWide, 1000, 1000, 1000, kPairs, knobs);
  CHECK(ragged.tiles == 16);
  CHECK(ragged.k_tiles == 16);
  CHECK(ragged.plan.sk_tiles == 16);
  CHECK(ragged.plan.sk_workers == 64);
  CHECK(ragged.longest == 31);
  CHECK(ragged.weighed == 31);
  CHECK(ragged.idle_permille == 875);
  // 256 x 192 on 4096 columns: 21 full columns of tiles and one of 64, counted whole (the predicted time pays for it).
  CHECK(forecast_tile(kMid, 256, 4096, 64, kPairs, knobs).tiles == 22);
}

TEST_CASE("forecast_tile: the split's knobs reach the plan") {
  StreamKKnobs off;
  off.min_share = 100000;  // no share that long: step 9's plan, 7 rounds of 32 K tiles
  const TileForecast f = forecast_tile(kWide, 5120, 5120, 2048, kPairs, off);
  CHECK(f.plan.sk_tiles == 0);
  CHECK(f.longest == 7 * 32);
  // 1 - 12800 / (66 x 224) = 13.42%: 134, the seventh round's idle pairs.
  CHECK(f.idle_permille == 134);
}

TEST_CASE("choose_tile: the smallest predicted time, the first of equals") {
  const StreamKKnobs knobs;
  // 512 x 4096 x 4096: 256 x 128 makes 64 tiles, one round unsplit: 64 K tiles x 256 x 128, against 256 x 256's
  // 32 tiles, all split, whose longest worker has a share of 31 K tiles and moves 3 parts: 31 + 3 x 9 = 58,
  // 58 x 256 x 256 = 116 x 256 x 128.
  const TileOption both[] = {kWide, kNarrow};
  CHECK(forecast_tile(kNarrow, 512, 4096, 4096, kPairs, knobs).plan.sk_tiles == 0);
  CHECK(forecast_tile(kWide, 512, 4096, 4096, kPairs, knobs).longest == 58);
  CHECK(choose_tile(both, 2, 512, 4096, 4096, kPairs, knobs) == 1);
  // At 50% of the wide tile's speed per K tile the narrow one predicts 64 / 0.5 = 128 x 128: the wide one wins.
  const TileOption slow[] = {kWide, {256, 128, 500}};
  CHECK(choose_tile(slow, 2, 512, 4096, 4096, kPairs, knobs) == 0);
  // Equal predictions: 4096^3 gives 256 x 256 and 256 x 128 the same, 256 x 65536 = 512 x 32768. The first wins,
  // whichever it is.
  CHECK(forecast_tile(kWide, 4096, 4096, 4096, kPairs, knobs).predicted ==
        forecast_tile(kNarrow, 4096, 4096, 4096, kPairs, knobs).predicted);
  CHECK(choose_tile(both, 2, 4096, 4096, 4096, kPairs, knobs) == 0);
  const TileOption reversed[] = {kNarrow, kWide};
  CHECK(choose_tile(reversed, 2, 4096, 4096, 4096, kPairs, knobs) == 0);
  // The same tile twice, the second faster: the second; equally fast: the first.
  const TileOption faster[] = {kWide, {256, 256, 1001}};
  CHECK(choose_tile(faster, 2, 4096, 4096, 4096, kPairs, knobs) == 1);
  const TileOption same[] = {kWide, kWide, kWide};
  CHECK(choose_tile(same, 3, 4096, 4096, 4096, kPairs, knobs) == 0);
  // Over many shapes: the pick is allowed, no allowed tile is predicted faster, and no earlier one as fast.
  const TileOption menu[] = {kWide, kMid, kNarrow};
  for (int m : {128, 1000, 2304, 5120})
    for (int n : {64, 1000, 4608, 14336})
      for (int k : {8, 1000, 8192}) {
        const int pick = choose_tile(menu, 3, m, n, k, kPairs, knobs);
        const TileForecast chosen = forecast_tile(menu[pick], m, n, k, kPairs, knobs);
        CHECK((pick == 0 || hg::smaller_tile_allowed(chosen)));
        for (int i = 0; i < 3; ++i) {
          const TileForecast f = forecast_tile(menu[i], m, n, k, kPairs, knobs);
          if (i > 0 && !hg::smaller_tile_allowed(f)) continue;
          CHECK(f.predicted >= chosen.predicted);
          if (i < pick) CHECK(f.predicted > chosen.predicted);
        }
      }
}

TEST_CASE("choose_tile: a smaller tile only unsplit or split whole, never split in part") {
  const StreamKKnobs knobs;
  const TileOption menu[] = {kWide, {256, 192, 952}, {256, 128, 894}};  // the Hopper kernel's rates
  // 5120 x 5120 x 2048: 256 x 128 makes 800 tiles and its plan splits 74 of them, whole tiles left: not taken,
  // although at equal rates it would predict 416 x 128 against the wide tile's 224 x 256 = 448 x 128 (both weighed
  // unsplit).
  const TileForecast narrow = forecast_tile(kNarrow, 5120, 5120, 2048, kPairs, knobs);
  CHECK(narrow.plan.sk_tiles == 74);
  CHECK(narrow.tiles == 800);
  CHECK_FALSE(hg::smaller_tile_allowed(narrow));
  const TileOption equal[] = {kWide, kNarrow};
  CHECK(choose_tile(equal, 2, 5120, 5120, 2048, kPairs, knobs) == 0);
  // 2048 x 6400 x 1600 (a GPT-2 XL layer): 256 x 224 makes 232 tiles, splits 100 and, weighed unsplit (4 rounds of
  // 25 K tiles), predicts less than 256 x 256 (also 4 rounds) at the kernel's rate 979: 100 x 224 / 0.979 = 22881
  // against 25600 (times 256). The split leaves whole tiles, so the wide tile is taken (forced on the H200, 256 x 224
  // ran slower there: docs/results/sweep_tiles224).
  const TileOption w224{256, 224, 979};
  const TileForecast mid = forecast_tile(w224, 2048, 6400, 1600, kPairs, knobs);
  CHECK(mid.plan.sk_tiles == 100);
  CHECK(mid.weighed == 100);
  CHECK(mid.predicted < forecast_tile(kWide, 2048, 6400, 1600, kPairs, knobs).predicted);
  const TileOption wide_224[] = {kWide, w224};
  CHECK(choose_tile(wide_224, 2, 2048, 6400, 1600, kPairs, knobs) == 0);
  // 512 x 3584 x 3584: 256 x 192's 38 tiles are all split (fewer than the pairs): allowed, and weighed as planned.
  // Its longest worker costs 60 K tiles with its parts, but 256 x 128's 56 tiles fill most of one round unsplit,
  // 56 K tiles: 60 x 192 / 0.952 = 12101 against 56 x 128 / 0.894 = 8018 (times 256 x 1000). Taken.
  const TileForecast whole = forecast_tile(menu[1], 512, 3584, 3584, kPairs, knobs);
  CHECK(whole.plan.sk_tiles == whole.tiles);
  CHECK(whole.longest == 60);
  CHECK(whole.weighed == 60);
  CHECK(hg::smaller_tile_allowed(whole));
  CHECK(forecast_tile(menu[2], 512, 3584, 3584, kPairs, knobs).plan.sk_tiles == 0);
  CHECK(choose_tile(menu, 3, 512, 3584, 3584, kPairs, knobs) == 2);
  // 512 x 6144 x 4096: 256 x 192's 64 tiles fill one round unsplit: taken.
  CHECK(choose_tile(menu, 3, 512, 6144, 4096, kPairs, knobs) == 1);
}

TEST_CASE("pick_tile: forced, refused, auto") {
  const StreamKKnobs knobs;
  const TileOption menu[] = {kWide, kMid, kNarrow};
  std::string chosen;
  // Forced: the menu's tile, whatever the heuristic would take (it takes 256 x 128 here).
  CHECK(hg::pick_tile(menu, 3, args(512, 4096, 4096), kPairs, knobs, hg::TileRequest{256, 192}, &chosen, "Hopper") ==
        1);
  CHECK(chosen == "tile=256x192 tile_choice=forced");
  CHECK(hg::pick_tile(menu, 3, args(512, 4096, 4096), kPairs, knobs, hg::TileRequest{256, 256}, nullptr, "Hopper") ==
        0);
  // Auto: choose_tile's, and the line says so.
  CHECK(hg::pick_tile(menu, 3, args(512, 4096, 4096), kPairs, knobs, hg::TileRequest{}, &chosen, "Hopper") ==
        choose_tile(menu, 3, 512, 4096, 4096, kPairs, knobs));
  CHECK(chosen == "tile=256x128 tile_choice=auto");
  // Off the menu (128 x 256 is the menu's 256 x 128 transposed): refused, naming the kernel and the whole menu.
  try {
    hg::pick_tile(menu, 3, args(5120, 5120, 2048), kPairs, knobs, hg::TileRequest{128, 256}, &chosen, "Hopper");
    FAIL("pick_tile accepted 128x256, which the menu lacks");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "--tile 128x256 is not on the Hopper kernel's menu: give one of 256x256, 256x192, 256x128 (or its width "
          "alone) or auto");
  }
  // The width alone (m = 0) picks the menu's tile of that width, forced; a width the menu lacks is refused.
  CHECK(hg::pick_tile(menu, 3, args(5120, 5120, 2048), kPairs, knobs, hg::TileRequest{0, 192}, &chosen, "Hopper") == 1);
  CHECK(chosen == "tile=256x192 tile_choice=forced");
  try {
    hg::pick_tile(menu, 3, args(5120, 5120, 2048), kPairs, knobs, hg::TileRequest{0, 64}, &chosen, "Hopper");
    FAIL("pick_tile accepted the width 64, which the menu lacks");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).rfind("--tile 64 is not on the Hopper kernel's menu", 0) == 0);
  }
  CHECK_THROWS_AS(
      hg::pick_tile(menu, 3, args(5120, 5120, 2048), kPairs, knobs, hg::TileRequest{256, 64}, nullptr, "Hopper"),
      std::invalid_argument);
}

TEST_CASE("pick_tile: a width two tiles share names the first, the whole tile names either") {
  const StreamKKnobs knobs;
  // The Hopper kernel's tiles, the 256-row ones then the short ones, two widths shared (the 256-row ones at rate
  // 1000 here).
  const TileOption menu[] = {kWide, kMid, kNarrow, {128, 256, 873}, {128, 128, 668}};
  std::string chosen;
  CHECK(hg::pick_tile(menu, 5, args(512, 1600, 1600), kPairs, knobs, hg::TileRequest{0, 128}, &chosen, "Hopper") == 2);
  CHECK(chosen == "tile=256x128 tile_choice=forced");
  CHECK(hg::pick_tile(menu, 5, args(512, 1600, 1600), kPairs, knobs, hg::TileRequest{0, 256}, &chosen, "Hopper") == 0);
  CHECK(hg::pick_tile(menu, 5, args(512, 1600, 1600), kPairs, knobs, hg::TileRequest{128, 128}, &chosen, "Hopper") ==
        4);
  CHECK(chosen == "tile=128x128 tile_choice=forced");
  CHECK(hg::pick_tile(menu, 5, args(512, 1600, 1600), kPairs, knobs, hg::TileRequest{128, 256}, &chosen, "Hopper") ==
        3);
  // 512 x 1600 x 1600: 128 x 128's 52 tiles whole (25 K tiles, 25 x 128 x 128 / 0.668 = 613174) over 256 x 128's 26
  // tiles, all split, whose longest worker has a share of 10 and moves 4 parts: (10 + 4 x 9) x 256 x 128 = 1507328.
  // At the plan's price of 2 the split would win with this menu's 256 x 128 at rate 1000 (589824; at the kernel's
  // 894 it predicts 659758 and 128 x 128 wins at every price from 2); on the H200 the forced 128 x 128 ran faster
  // (docs/lab_step11_fitted_tile.md).
  const TileForecast short_tile = forecast_tile(menu[4], 512, 1600, 1600, kPairs, knobs);
  CHECK(short_tile.tiles == 52);
  CHECK(short_tile.plan.sk_tiles == 0);
  CHECK(forecast_tile(menu[2], 512, 1600, 1600, kPairs, knobs).longest == 46);
  CHECK(choose_tile(menu, 5, 512, 1600, 1600, kPairs, knobs) == 4);
  CHECK(choose_tile(menu, 5, 512, 1600, 1600, kPairs, knobs, 2) == 2);
}

TEST_CASE("choose_tile: the Hopper menu's choices where the sweep timed every tile") {
  // docs/results/sweep_tiles and sweep_tiles224: every tile forced at the sweep's shapes with fewer than 4.5 rounds
  // of 256 x 256. At the first five the price of 2 took a tile whose split ran slower than the tile the kernel's
  // price takes; at the last three a split of 256 x 256 in part, credited, took it over a whole narrower tile that
  // ran faster (docs/lab_step11_fitted_tile.md, "The price"). `was`: the price of 2; `now`: the kernel's.
  const StreamKKnobs knobs;
  const TileOption menu[] = {kWide,           {256, 224, 979}, {256, 192, 952},
                             {256, 128, 894}, {128, 256, 873}, {128, 128, 668}};
  struct Case {
    int m, n, k, was, now;
  };
  const Case cases[] = {{512, 1600, 6400, 3, 5},  {512, 3584, 3584, 1, 3},  {512, 3584, 18944, 0, 1},
                        {512, 4096, 14336, 0, 3}, {512, 4608, 3584, 0, 2},  {4093, 4608, 3584, 2, 2},
                        {4093, 3584, 18944, 1, 1}, {8192, 1600, 6400, 1, 1}};
  for (const Case& c : cases) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    CAPTURE(c.k);
    CHECK(choose_tile(menu, 6, c.m, c.n, c.k, kPairs, knobs, 2) == c.was);
    const int now = choose_tile(menu, 6, c.m, c.n, c.k, kPairs, knobs);
    CHECK(now == c.now);
    CHECK((forecast_tile(menu[now], c.m, c.n, c.k, kPairs, knobs).plan.sk_tiles == 0) == (c.k != 18944 || c.m != 512));
  }
  // The benchmark's shapes keep the largest tile, but 5120 x 5120 x 2048 and 2304 x 4608 x 8192, where 256 x 224
  // fills its rounds better unsplit (460 tiles, nearly seven rounds; 189, nearly three), against 256 x 256 split in
  // part.
  for (const auto& s : {std::array<int, 3>{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 14336, 4096},
                        {16384, 4096, 1024}})
    CHECK(choose_tile(menu, 6, s[0], s[1], s[2], kPairs, knobs) == 0);
  for (const auto& s : {std::array<int, 3>{5120, 5120, 2048}, {2304, 4608, 8192}}) {
    CHECK(choose_tile(menu, 6, s[0], s[1], s[2], kPairs, knobs) == 1);
    CHECK(forecast_tile(menu[1], s[0], s[1], s[2], kPairs, knobs).plan.sk_tiles == 0);
    CHECK(forecast_tile(menu[0], s[0], s[1], s[2], kPairs, knobs).plan.sk_tiles > 0);
  }
}
