// step4_tma: verify binary. Run with --help for the flags.
// What this step teaches: docs/step4_tma.md.
#include "common/runner.hpp"
#include "step4_tma/hgemm_sm100.cuh"
#include "step4_tma/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step4_tma", "TMA loads and stores; the loads complete on an mbarrier",
                          {4096, 4096, 4096}, hg::ShapeRule::kTiled,
                          step4::sm90::prepare, step4::sm100::prepare,
                          {hg::Break::kShortExpectTx, hg::Break::kNoStoreWait, hg::Break::kNoWgmmaWait}};
  return hg::run_step(spec, argc, argv);
}
