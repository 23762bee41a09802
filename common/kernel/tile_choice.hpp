// common/kernel/tile_choice.hpp: step 11's heuristic, which pair tile to run a problem with, and whether to split
// its last round as step 10 does. Plain constexpr arithmetic on the host (and in the CPU tests, and in the figure's
// generator, tools/step_facts.cu): nothing here touches a GPU.
//
// The short last round has three answers. Step 10 splits it by K. This step first fits the tile: a smaller tile
// makes more tiles, so the last round can come out fuller, but each K tile of a smaller tile runs at a lower rate
// (measured on the H200; more bytes moved per MMA is a hypothesis). The heuristic weighs the two: for every tile
// the kernel offers, the stream-K plan of that tiling (step 10's, with the same knobs), then the time of its
// longest worker, in K tiles, times the work of one K tile of that tile, divided by the tile's measured rate. The
// smallest predicted time wins; a tie goes to the tile listed first. In that comparison a part moved through the
// workspace costs kTilePartPrice K tiles, more than the plan's own price: fitted on the H200's sweep, not derived.
// And a plan that splits some tiles but not all is weighed as if it split none: measured, such a split saved from
// nothing to most of what the plan's arithmetic says, so the comparison credits it nothing (the kernel still runs it).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/kernel/gemm.hpp"  // ceil_div
#include "common/kernel/hd.hpp"
#include "common/kernel/stream_k.hpp"

namespace hg {

/// One tile a kernel offers: the pair's tile (both CTAs of the cluster), and how fast a worker runs one K tile of it
/// relative to the kernel's largest tile, in thousandths (the rates are measured: docs/lab_step11_fitted_tile.md).
struct TileOption {
  int m, n;
  int rate_permille;
};

/// What one part moved through the workspace costs a worker, in K tiles, when choose_tile compares tiles. The plan of
/// each tiling is still step 10's (knobs.part_cost, 2 by default, decides whether it splits); only the comparison
/// prices its parts higher. Chosen by tools/choose_tile_price.py on the H200's sweeps with every tile forced
/// (docs/results/sweep_tiles, and sweep_tiles224 for 256 x 224), a split in part weighed unsplit: at the shapes with
/// fewer than 4.5 rounds of the largest tile, the prices from 7 to 16 leave the same smallest worst and mean loss
/// against the fastest tile (from 7 to 12 the same choice everywhere), and 9 is the middle. The loss left, at
/// 2048 x 4800 x 1600, is not the rule's alone: 256 x 192 splits in part there, so smaller_tile_allowed excludes it,
/// but without the rule the weighing (its whole rounds) would take 256 x 224, not it; docs/lab_step11_fitted_tile.md,
/// "The price". Which cost the
/// price stands for (the owner's wait, the parts' traffic, tiles that no longer share rows of A or B in L2) is not
/// isolated.
constexpr int kTilePartPrice = 9;

/// What the heuristic predicts for one tile.
struct TileForecast {
  int tiles = 0;            ///< pair tiles of the problem, rows and columns rounded up
  int k_tiles = 0;          ///< K tiles of 64, rounded up
  StreamKPlan plan;         ///< step 10's plan for those tiles (plan.sk_tiles == 0: no split)
  int longest = 0;          ///< the longest worker's cost in K tiles: its iterations plus part_price per part moved
  int weighed = 0;          ///< what choose_tile weighs, in K tiles: longest, or rounds * k_tiles for a split in part
  int rounds = 0;           ///< rounds of whole tiles without a split: ceil(tiles / workers)
  int idle_permille = 0;    ///< the workers' idle share while the longest one runs, in thousandths
  int64_t predicted = 0;    ///< weighed * m * n * 1000 / rate_permille: the time, in units common to the options
};

/// Whether a plan over `tiles` tiles splits some of them but not all (step 10's plan splits none, every tile, or
/// the last round's): the case the comparison credits nothing and smaller_tile_allowed keeps to the first tile.
HG_HD constexpr bool splits_in_part(const StreamKPlan& plan, int tiles) {
  return plan.sk_tiles > 0 && plan.sk_tiles < tiles;
}

/// The forecast of tile `t` for an M x N x K problem (any sizes >= 1) on `workers` pairs with the split's `knobs`,
/// a part moved priced at `part_price` K tiles.
HG_HD constexpr TileForecast forecast_tile(const TileOption& t, int M, int N, int K, int workers,
                                           const StreamKKnobs& knobs, int part_price = kTilePartPrice) {
  TileForecast f;
  f.tiles = ceil_div(M, t.m) * ceil_div(N, t.n);
  f.k_tiles = ceil_div(K, 64);
  f.plan = plan_stream_k(f.tiles, f.k_tiles, workers, knobs);
  f.longest = f.plan.max_cost(part_price);
  f.rounds = ceil_div(f.tiles, workers);
  const int64_t busy = int64_t(f.tiles) * f.k_tiles;         // K tiles of work, over all workers
  const int64_t span = int64_t(workers) * f.longest;         // what the workers could do while the longest runs
  f.idle_permille = span > 0 ? int(1000 - (busy * 1000 + span / 2) / span) : 0;  // rounded to the nearest
  // A split in part gets no credit: at 4093 x 3584 x 18944 256 x 256 split ran slower than whole, and a whole
  // narrower tile faster than both (docs/lab_step11_fitted_tile.md, "The price").
  f.weighed = splits_in_part(f.plan, f.tiles) ? f.rounds * f.k_tiles : f.longest;
  f.predicted = int64_t(f.weighed) * t.m * t.n * 1000 / t.rate_permille;
  return f;
}

/// Whether choose_tile may take a tile smaller than the menu's first (the largest) with this forecast: only where
/// step 10's plan over it splits no tile or every tile. A split that leaves whole tiles stays the first tile's, the
/// one step 10's thresholds were measured on: on the H200's sweep of layer shapes, wherever the heuristic took such a
/// split on a narrower tile and step 10 ran too, it lost to step 10's widest tile unsplit, beyond the runs' spread
/// (docs/lab_step11_fitted_tile.md, "The sweep").
HG_HD constexpr bool smaller_tile_allowed(const TileForecast& f) {
  return !splits_in_part(f.plan, f.tiles);
}

/// The index in `options` (count of them, largest tile first) of the tile with the smallest predicted time among
/// the first and those smaller_tile_allowed; the first of equals.
HG_HD constexpr int choose_tile(const TileOption* options, int count, int M, int N, int K, int workers,
                                const StreamKKnobs& knobs, int part_price = kTilePartPrice) {
  int best = 0;
  int64_t best_time = forecast_tile(options[0], M, N, K, workers, knobs, part_price).predicted;
  for (int i = 1; i < count; ++i) {
    const TileForecast f = forecast_tile(options[i], M, N, K, workers, knobs, part_price);
    if (smaller_tile_allowed(f) && f.predicted < best_time) best = i, best_time = f.predicted;
  }
  return best;
}

/// The host's choice for one launch: `request` (--tile MxN, or --tile N: m = 0, the menu's first tile N wide) if
/// the menu has it, else (--tile auto, 0 x 0) choose_tile's; writes "tile=MxN tile_choice=auto|forced" to *chosen
/// when it is not null (the result line prints it). Throws std::invalid_argument naming the menu for a tile the
/// kernel does not offer.
inline int pick_tile(const TileOption* menu, int count, const GemmArgs& g, int workers, const StreamKKnobs& knobs,
                     const TileRequest& request, std::string* chosen, const char* kernel) {
  const auto text = [](const TileOption& t) { return std::to_string(t.m) + "x" + std::to_string(t.n); };
  int pick = -1;
  if (request.m == 0 && request.n == 0) {
    pick = choose_tile(menu, count, g.m, g.n, g.k, workers, knobs);
  } else {
    for (int i = 0; i < count && pick < 0; ++i)  // the first match: a width alone names the first tile that wide
      if ((request.m == 0 || menu[i].m == request.m) && menu[i].n == request.n) pick = i;
    if (pick < 0) {
      std::string offered;
      for (int i = 0; i < count; ++i) offered += (i ? ", " : "") + text(menu[i]);
      const std::string asked = request.m ? text({request.m, request.n, 0}) : std::to_string(request.n);
      throw std::invalid_argument("--tile " + asked + " is not on the " + kernel + " kernel's menu: give one of " +
                                  offered + " (or its width alone) or auto");
    }
  }
  const bool forced = request.m != 0 || request.n != 0;
  if (chosen) *chosen = "tile=" + text(menu[pick]) + " tile_choice=" + (forced ? "forced" : "auto");
  return pick;
}

}  // namespace hg
