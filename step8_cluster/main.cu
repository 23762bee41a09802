// step8_cluster: verify binary. Run with --help for the flags.
// What this step teaches: docs/step8_cluster.md.
#include "common/pipe_depths.hpp"
#include "common/runner.hpp"
#include "step8_cluster/hgemm_sm100.cuh"
#include "step8_cluster/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step8_cluster", "CTA pairs (clusters of two) that share their operands",
                          {4096, 4096, 4096}, hg::ShapeRule::kTiled,
                          step8::sm90::prepare, step8::sm100::prepare,
                          {hg::Break::kOneHalfBytes, hg::Break::kNoExitClusterSync, hg::Break::kNoEmptyWait,
                           hg::Break::kNoAccEmptyWait, hg::Break::kNoStoreWait},
                          /*pipe_depths=*/hg::pipe_depths::step8()};
  return hg::run_step(spec, argc, argv);
}
