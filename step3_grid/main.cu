// step3_grid: verify binary. Run with --help for the flags.
// What this step teaches: docs/step3_grid.md.
#include "common/runner.hpp"
#include "step3_grid/hgemm_sm100.cuh"
#include "step3_grid/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step3_grid", "a 2D grid of CTAs, one per 128 x 128 output tile",
                          {2048, 2048, 2048}, hg::ShapeRule::kTiled,
                          step3::sm90::prepare, step3::sm100::prepare,
                          {hg::Break::kSwapTileOffsets}};
  return hg::run_step(spec, argc, argv);
}
