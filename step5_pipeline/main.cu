// step5_pipeline: verify binary. Run with --help for the flags.
// What this step teaches: docs/step5_pipeline.md.
#include "common/pipe_depths.hpp"
#include "common/runner.hpp"
#include "step5_pipeline/hgemm_sm100.cuh"
#include "step5_pipeline/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step5_pipeline", "a ring of PIPE_DEPTH SMEM stages: loads run ahead of the MMA",
                          {4096, 4096, 4096}, hg::ShapeRule::kTiled,
                          step5::sm90::prepare, step5::sm100::prepare,
                          {hg::Break::kNoTmaPhaseFlip, hg::Break::kNoWgmmaWait},
                          /*pipe_depths=*/hg::pipe_depths::step5()};
  return hg::run_step(spec, argc, argv);
}
