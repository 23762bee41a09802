// common/step.cuh: what a step hands to the shared verify harness (common/runner.cu).
//
// A step file defines its kernel and a `prepare` function: given the device buffers and the shape, it does
// the host-side setup that belongs to the lesson (shared-memory size, grid, later the TMA descriptors) and
// returns a Launcher that only enqueues the kernel. Setup stays out of the timed region.
#pragma once

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "common/breaks.hpp"
#include "common/check.cuh"
#include "common/cli.hpp"

namespace hg {

/// One GEMM problem on the device: D (M x N) = A (M x K) * B (N x K)^T, all row-major.
struct GemmArgs {
  const __half* A = nullptr;
  const __half* B = nullptr;
  __half* D = nullptr;
  int m = 0, n = 0, k = 0;
};

/// Enqueues one launch of the step's kernel on a stream.
using Launcher = std::function<void(cudaStream_t)>;
/// Builds the launcher of the step's kernel, or of one of its broken variants (Break::kNone: the real one).
using PrepareFn = Launcher (*)(const GemmArgs&, Break);

struct StepSpec {
  const char* name;          ///< the step folder and executable name, e.g. "step1_single_tile"
  const char* what_it_adds;  ///< one line for --help
  Shape natural_shape;       ///< default --m --n --k
  ShapeRule rule;            ///< shapes the step accepts
  PrepareFn prepare_sm90;    ///< Hopper kernel
  PrepareFn prepare_sm100;   ///< Blackwell kernel
  std::vector<Break> breaks; ///< the contract switches this step introduces (--break)
};

/// The whole verify binary: parse and validate arguments, find a supported GPU, run, verify, report,
/// optionally save and benchmark. Returns the process exit code (DESIGN section 6).
int run_step(const StepSpec& spec, int argc, char** argv);

}  // namespace hg
