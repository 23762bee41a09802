// common/harness/runner.hpp: the verify binary every step shares. A step is described by a StepSpec (its name,
// natural shape, shape rule, the prepare functions of its two kernels, its --break switches and ring depths),
// which CMake generates from the step's entry in steps.json as stepN::spec(); the step's main() hands it to
// run_step, which does everything else: the command line, finding a GPU, inputs, the launch, verification
// against the reference GEMM, --save and --bench.
#pragma once

#include <vector>

#include "common/harness/cli.hpp"
#include "common/kernel/gemm.hpp"

namespace hg {

struct StepSpec {
  const char* name;            ///< the step folder and executable name, e.g. "step1_single_tile"
  const char* what_it_adds;    ///< one line for --help
  Shape natural_shape;         ///< default --m --n --k
  ShapeRule rule;              ///< shapes the step accepts
  PrepareFn prepare_sm90;      ///< Hopper kernel: the dispatch CMake generates from the registry entry
  PrepareFn prepare_sm100;     ///< Blackwell kernel: the same
  std::vector<Break> breaks;   ///< the contract switches this step offers (--break)
  std::vector<int> pipe_depths = {};  ///< ring depths --pipe-depth accepts, default first; empty: no ring
  const char* label = "";             ///< a few words for the benchmark's table
  std::vector<Break> tolerated_sm90 = {};  ///< the switches an H200 runs correctly in this step (--break list says why)
  bool break_variants = true;  ///< whether the broken instances were compiled (CMake option HG_BREAK_VARIANTS)
  bool stream_k_knobs = false;  ///< whether its kernels take the split's knobs (--sk-*; steps.json "knobs")
  bool tile_knob = false;       ///< whether its host code takes a tile (--tile; steps.json "knobs": "tile")
};

/// Throws UsageError when a run gives a step a knob it lacks: --sk-* without the stream-K split, --tile without a menu
/// of tiles. The verify binary and the library for PyTorch (torch/hgemm_ops.cu) refuse with these words.
void check_step_knobs(const StepSpec& spec, bool stream_k_given, bool tile_given);

/// The whole verify binary: parse and validate arguments, find a supported GPU, run, verify, report,
/// optionally save and benchmark. Returns the process exit code: 0 verified, 1 verification failed, 2 bad
/// usage or unsupported shape, 3 CUDA error or deadlock, 77 no supported GPU.
int run_step(const StepSpec& spec, int argc, char** argv);

}  // namespace hg
