// step6_persistent: verify binary. Run with --help for the flags. What this step teaches: docs/step6_persistent.md.
// What the binary knows of the step (name, shape, switches, ring depths) is its entry in steps.json; CMake
// compiles that entry and the step's two kernels once, as step6::spec(), for this binary and the benchmark.
#include "common/harness/runner.hpp"

namespace step6 { hg::StepSpec spec(); }

int main(int argc, char** argv) { return hg::run_step(step6::spec(), argc, argv); }
