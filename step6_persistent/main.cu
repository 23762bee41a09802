// step6_persistent: verify binary. Run with --help for the flags.
// What this step teaches: docs/step6_persistent.md.
#include "common/pipe_depths.hpp"
#include "common/runner.hpp"
#include "step6_persistent/hgemm_sm100.cuh"
#include "step6_persistent/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step6_persistent", "persistent CTAs walk L2-grouped tiles; the pipeline state runs on",
                          {4096, 4096, 4096}, hg::ShapeRule::kTiled,
                          step6::sm90::prepare, step6::sm100::prepare,
                          {hg::Break::kResetPhasePerTile, hg::Break::kNoStoreWait},
                          /*pipe_depths=*/hg::pipe_depths::step6()};
  return hg::run_step(spec, argc, argv);
}
