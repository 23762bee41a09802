// step7_warp_specialized: verify binary. Run with --help for the flags.
// What this step teaches: docs/step7_warp_specialized.md.
#include "common/pipe_depths.hpp"
#include "common/runner.hpp"
#include "step7_warp_specialized/hgemm_sm100.cuh"
#include "step7_warp_specialized/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step7_warp_specialized", "warp roles: a TMA producer, MMA issuers and an overlapped epilogue",
                          {4096, 4096, 4096}, hg::ShapeRule::kTiled,
                          step7::sm90::prepare, step7::sm100::prepare,
                          {hg::Break::kNoEmptyWait, hg::Break::kNoAccEmptyWait, hg::Break::kNoStoreWait},
                          /*pipe_depths=*/hg::pipe_depths::step7()};
  return hg::run_step(spec, argc, argv);
}
