// step10_stream_k: verify binary. Run with --help for the flags. What this step teaches: docs/step10_stream_k.md.
// What the binary knows of the step (name, shape, switches, ring depths) is its entry in steps.json; CMake
// compiles that entry and the step's two kernels once, as step10::spec(), for this binary and the benchmark.
#include "common/harness/runner.hpp"

namespace step10 { hg::StepSpec spec(); }

int main(int argc, char** argv) { return hg::run_step(step10::spec(), argc, argv); }
