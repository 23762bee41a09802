// common/kernel/check.cuh: every CUDA runtime call is checked, and a failure names the call.
//
// HG_CUDA_CHECK(cudaMalloc(&p, n)) throws hg::CudaError("cudaMalloc(&p, n) failed: out of memory
// (cudaErrorMemoryAllocation) at common/harness/harness.cu:42 - <what to do>"). The verify binary turns it into
// exit code 3. Host code; the runtime API only (cuBLAS calls are checked in common/harness/harness.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace hg {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A short hint for the errors a reader is most likely to meet.
inline const char* cuda_error_hint(cudaError_t err) {
  switch (err) {
    case cudaErrorMemoryAllocation: return "use a smaller --m/--n/--k or free GPU memory";
    case cudaErrorInsufficientDriver: return "the NVIDIA driver is older than this CUDA runtime: update it";
    case cudaErrorNoKernelImageForDevice:
      return "this binary has no code for the GPU: it is built for sm_90a and sm_100a only";
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorLaunchFailure:
      return "a kernel faulted: rerun under compute-sanitizer to locate it";
    case cudaErrorLaunchTimeout: return "a kernel ran too long (hung barrier?): check the mbarrier phases";
    default: return "see the CUDA runtime documentation for this error";
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) +
                  ") at " + file + ":" + std::to_string(line) + " - " + cuda_error_hint(err));
}

}  // namespace hg

#define HG_CUDA_CHECK(call)                                                           \
  do {                                                                                \
    const cudaError_t hg_err_ = (call);                                               \
    if (hg_err_ != cudaSuccess) ::hg::throw_cuda_error(hg_err_, #call, __FILE__, __LINE__); \
  } while (0)
