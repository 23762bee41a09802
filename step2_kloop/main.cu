// step2_kloop: verify binary. Run with --help for the flags.
// What this step teaches: docs/step2_kloop.md.
#include "common/runner.hpp"
#include "step2_kloop/hgemm_sm100.cuh"
#include "step2_kloop/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step2_kloop", "a loop over K into one accumulator; the mbarrier phase flips",
                          {128, 128, 4096}, hg::ShapeRule::kSingleOutputTile,
                          step2::sm90::prepare, step2::sm100::prepare,
                          {hg::Break::kNoPhaseFlip, hg::Break::kNoWgmmaWait}};
  return hg::run_step(spec, argc, argv);
}
