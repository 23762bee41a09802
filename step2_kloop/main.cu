// step2_kloop: verify binary. Run with --help for the flags; README.md for what this step teaches.
#include "common/step.cuh"
#include "step2_kloop/hgemm_sm100.cuh"
#include "step2_kloop/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step2_kloop", "a loop over K into one accumulator; the mbarrier phase flips",
                          {128, 128, 4096}, hg::ShapeRule::kSingleOutputTile, sm90::prepare, sm100::prepare,
                          {hg::Break::kNoPhaseFlip, hg::Break::kNoWgmmaWait}};
  return hg::run_step(spec, argc, argv);
}
