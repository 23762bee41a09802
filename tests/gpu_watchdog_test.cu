// GPU test (label gpu): the mbarrier watchdog really stops a wait that can never complete, and the report
// reaches the host although the trap leaves the CUDA context unusable. A kernel initialises an mbarrier at
// shared offset 8 of its map (named "mma_bar" in the table it arms the watchdog with, as the Blackwell
// steps do), never arrives on it, and waits for its phase 0.
// Takes about HG_WATCHDOG_SECONDS. Exit 77 without a supported GPU.
#include <cstdio>
#include <string>

#include "common/harness/harness.cuh"
#include "common/kernel/ptx.cuh"
#include "common/kernel/watchdog.cuh"

namespace {

__global__ void never_arrives() {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = hg::align_smem_1024(smem_raw);      // the steps' shared-memory map starts here
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + 8);  // offset 8: "mma_bar" in the report
  if (threadIdx.x == 0) hg::ptx::mbarrier_init(bar, 1);
  __syncthreads();
  hg::ptx::mbarrier_wait_parity(bar, 0);  // nobody arrives: phase 0 never completes
}

}  // namespace

int main() {
  hg::Device dev;
  const std::string no_gpu = hg::find_device(hg::ArchChoice::kAuto, dev);
  if (!no_gpu.empty()) {
    std::printf("gpu_watchdog_test SKIP: %s\n", no_gpu.c_str());
    return 77;
  }
  try {
    static constexpr hg::BarrierName kBarriers[] = {{8, 1, "mma_bar"}};
    hg::arm_watchdog(kBarriers);
    never_arrives<<<2, 64, 2048>>>();
    hg::check_kernel("never_arrives", nullptr);
  } catch (const hg::DeadlockError& e) {
    const std::string msg = e.what();
    std::printf("%s\n", msg.c_str());
    const bool ok = msg.rfind("deadlock: block (", 0) == 0 && msg.find("mma_bar (shared offset 8)") != std::string::npos &&
                    msg.find("parity 0") != std::string::npos;
    std::printf("%s\n", ok ? "PASS: the watchdog stopped the wait and reported it" : "FAIL: unexpected report");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("FAIL: the kernel ended with another error: %s\n", e.what());
    return 1;
  }
  std::printf("FAIL: a wait that can never complete returned\n");
  return 1;
}
