// step1_single_tile: verify binary. Run with --help for the flags.
// What this step teaches: docs/step1_single_tile.md.
#include "common/runner.hpp"
#include "step1_single_tile/hgemm_sm100.cuh"
#include "step1_single_tile/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step1_single_tile", "one 128 x 128 x 64 tile through the whole data path",
                          {128, 128, 64}, hg::ShapeRule::kSingleTile,
                          step1::sm90::prepare, step1::sm100::prepare,
                          {hg::Break::kNoCtaSync}};
  return hg::run_step(spec, argc, argv);
}
