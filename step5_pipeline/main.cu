// step5_pipeline: verify binary. Run with --help for the flags. What this step teaches: docs/step5_pipeline.md.
// What the binary knows of the step (name, shape, switches, ring depths) is its entry in steps.json; CMake
// compiles that entry and the step's two kernels once, as step5::spec(), for this binary and the benchmark.
#include "common/harness/runner.hpp"

namespace step5 { hg::StepSpec spec(); }

int main(int argc, char** argv) { return hg::run_step(step5::spec(), argc, argv); }
