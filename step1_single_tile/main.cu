// step1_single_tile: verify binary. Run with --help for the flags. What this step teaches: docs/step1_single_tile.md.
// What the binary knows of the step (name, shape, switches, ring depths) is its entry in steps.json; CMake
// compiles that entry and the step's two kernels once, as step1::spec(), for this binary and the benchmark.
#include "common/harness/runner.hpp"

namespace step1 { hg::StepSpec spec(); }

int main(int argc, char** argv) { return hg::run_step(step1::spec(), argc, argv); }
