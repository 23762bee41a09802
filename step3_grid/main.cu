// step3_grid: verify binary. Run with --help for the flags. What this step teaches: docs/step3_grid.md.
// What the binary knows of the step (name, shape, switches, ring depths) is its entry in steps.json; CMake
// compiles that entry and the step's two kernels once, as step3::spec(), for this binary and the benchmark.
#include "common/harness/runner.hpp"

namespace step3 { hg::StepSpec spec(); }

int main(int argc, char** argv) { return hg::run_step(step3::spec(), argc, argv); }
