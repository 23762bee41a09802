// step9_multi_consumer: verify binary. Run with --help for the flags.
// What this step teaches: docs/step9_multi_consumer.md.
#include "common/pipe_depths.hpp"
#include "common/runner.hpp"
#include "step9_multi_consumer/hgemm_sm100.cuh"
#include "step9_multi_consumer/hgemm_sm90.cuh"

int main(int argc, char** argv) {
  const hg::StepSpec spec{"step9_multi_consumer", "two consumers share each stage: a larger tile per CTA pair",
                          {4096, 4096, 4096}, hg::ShapeRule::kTiled,
                          step9::sm90::prepare, step9::sm100::prepare,
                          {hg::Break::kShortEmptyCount, hg::Break::kOneHalfBytes, hg::Break::kNoExitClusterSync,
                           hg::Break::kNoEmptyWait, hg::Break::kNoAccEmptyWait, hg::Break::kNoStoreWait},
                          /*pipe_depths=*/hg::pipe_depths::step9()};
  return hg::run_step(spec, argc, argv);
}
