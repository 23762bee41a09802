// lab/multicast_probe.cu: how fast TMA can feed one round of small tiles, by cluster shape (built as
// hg_multicast_probe). Hopper only.
//
// The question. At 512 tokens (512 x 1600 x 6400, the sweep's worst shape) step 11 runs one round of 64 x 128
// tiles per CTA over all of K, in clusters of two CTAs along M that share each box of B; cuBLAS's kernel there
// has 64 x 128 tiles in clusters of eight (its name says 4x2; in our orientation or transposed, the same bytes),
// reads less from L2 and is faster. Does the cluster's shape set how fast the operands can arrive? This probe
// moves the bytes such a kernel moves and computes nothing: each CTA streams its A tile (64 rows) and B tile (128
// rows) through a ring of stages, K tile by K tile, and its consumer hands each stage back as soon as it has
// landed. A launch of it is what moving the operands alone takes in a kernel of that cluster shape. (Step 11 loads
// its own A with a plain load; here every load is a multicast, to one CTA where nothing is shared: the same bytes.)
// One set of inputs, 27 MB at the default shape, stays in the L2 across launches (the benchmark rotates inputs).
//
// This kernel does, in order:
//   1. CTA (rm, rn) of a cluster of CM x CN (CM along M, CN along N; rank = rm + CM * rn) owns the 64 x 128 tile at
//      tile row cluster_m * CM + rm, tile column cluster_n * CN + rn;
//   2. its producer loads 64 / CN rows of the A tile, multicast to the CN CTAs of its tile row, and 128 / CM rows
//      of the B tile, multicast to the CM CTAs of its tile column; the slices land at their offsets in every
//      receiver, so each CTA's stage holds its whole A and B tiles once all its senders have loaded;
//   3. its consumer waits for the stage (full_bar: its own producer's expected bytes), in the checked launch sums
//      it (below), and releases it to every CTA that writes into it (its tile row's and tile column's CTAs:
//      CM + CN - 1 of them, itself once), so no sender overwrites a stage a receiver has not read;
//   4. a cluster barrier before exit: no CTA leaves while a peer may still write into it or arrive on its barriers.
//
// Build and run (from the repository root):
//   cmake --preset default && cmake --build build --target hg_multicast_probe
//   ./build/lab/hg_multicast_probe                       # 512 x 1600 x 6400, every cluster shape, checked, timed
//   ./build/lab/hg_multicast_probe --m 512 --n 3584 --k 3584 --iters 200
//   ./build/lab/hg_multicast_probe --break --iters 1     # slices misplaced: FAIL wherever a cluster has 2+ CTAs
//
// Output: one line per cluster shape (CSV on stdout): the CTAs, the clusters resident at once, the bytes TMA
// delivers into shared memory and, nominally, the bytes it reads from L2 (a multicast box once, boxes past the
// matrix counted whole), the median time of --iters launches and the delivered rate. Before timing, each shape
// runs once checked: every CTA adds up what it received over all of K, each element weighted by its row in the
// tile (the 128B swizzle moves 16-byte chunks within a row, so an element's row is its offset / 128 bytes), and
// the host compares that with the same sum of the matrices. Inputs are small integers from a hash, so the sums
// are exact and rows differ: a slice from the wrong rows, at the wrong offset or twice changes a sum; a slice
// that never arrives leaves its stage incomplete and traps after 2 s. Exit codes: 0 done, 1 a sum differed,
// 2 bad usage, 3 a CUDA or tensor-map error, 77 no Hopper GPU.
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda/ptx>
#include <string>
#include <vector>

#include "common/harness/harness.cuh"
#include "common/kernel/check.cuh"
#include "common/kernel/ptx.cuh"
#include "common/kernel/tma.hpp"

namespace {

namespace ptx = hg::ptx;

constexpr int kTileM = 64, kTileN = 128, kBlkK = 64;  // step 11's short tile per CTA; 64 of K a stage
constexpr int kStages = 8;                             // step 11's short-tile ring: 8 stages of 24 KiB
constexpr int kABytes = kTileM * kBlkK * 2, kBBytes = kTileN * kBlkK * 2;  // 8 and 16 KiB a stage
constexpr int kThreads = 64;                           // warp 0 loads, warp 1 consumes
constexpr uint64_t kWaitNs = 2'000'000'000ull;         // a wait longer than 2 s is a broken protocol: trap

struct Smem {
  uint64_t full_bar[kStages];   // the stage's bytes are in (own producer's expect_tx plus every sender's bytes)
  uint64_t empty_bar[kStages];  // every receiver of this CTA's loads has read the stage
  alignas(1024) uint8_t A[kStages][kABytes];  // [stage][64 rows][64 K] fp16, 128B swizzle
  alignas(1024) uint8_t B[kStages][kBBytes];  // [stage][128 rows][64 K] fp16, 128B swizzle
};

__device__ void wait(uint64_t* bar, uint32_t parity) {
  const uint64_t start = cuda::ptx::get_sreg_globaltimer();
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity))
    if (cuda::ptx::get_sreg_globaltimer() - start > kWaitNs) __trap();
}

template <int CM, int CN, bool CHECK>
__global__ void __launch_bounds__(kThreads, 1)
    probe_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b, int K,
                 int m_clusters, long long* sums, bool misplace) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(kTileM % CN == 0 && kTileN % CM == 0, "each slice is whole rows");
  static_assert((kTileM / CN) * kBlkK * 2 % 1024 == 0 && (kTileN / CM) * kBlkK * 2 % 1024 == 0,
                "each slice starts on a whole 1024-byte swizzle atom");
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<Smem*>(hg::align_smem_1024(smem_raw));
  const uint32_t rank = ptx::get_sreg_cluster_ctarank();
  const int rm = int(rank) % CM, rn = int(rank) / CM;
  const int cluster = blockIdx.x / (CM * CN);
  const int tile_m = (cluster % m_clusters) * CM + rm, tile_n = (cluster / m_clusters) * CN + rn;
  const int k_tiles = (K + kBlkK - 1) / kBlkK;
  // Receivers of this CTA's A slice: its tile row (same rm); of its B slice: its tile column (same rn).
  uint16_t a_mask = 0, b_mask = 0;
  for (int j = 0; j < CN; ++j) a_mask |= uint16_t(1u << (rm + CM * j));
  for (int j = 0; j < CM; ++j) b_mask |= uint16_t(1u << (j + CM * rn));
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      ptx::mbarrier_init(&smem.full_bar[s], 1);              // own producer's arrive.expect_tx, plus bytes
      ptx::mbarrier_init(&smem.empty_bar[s], CM + CN - 1);  // one consumer per receiver of this CTA's loads
    }
  }
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);  // barriers visible to the cluster
  ptx::barrier_cluster_arrive(ptx::sem_release);                   // before any peer multicasts into them
  ptx::barrier_cluster_wait(ptx::sem_acquire);

  if (threadIdx.x == 0) {  // === producer ===
    for (int i = 0; i < k_tiles; ++i) {
      const int s = i % kStages;
      const uint32_t phase = (i / kStages) & 1;
      wait(&smem.empty_bar[s], phase ^ 1);  // every receiver read this stage one trip ago
      const int32_t a_coords[2] = {i * kBlkK, tile_m * kTileM + rn * (kTileM / CN)};  // K innermost
      const int32_t b_coords[2] = {i * kBlkK, tile_n * kTileN + rm * (kTileN / CM)};
      // --break (checked launch only): every slice lands at offset 0, the right bytes in the wrong rows.
      const bool wrong = CHECK && misplace;
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.A[s] + (wrong ? 0 : rn * (kABytes / CN)),
                                &tmap_a, a_coords, &smem.full_bar[s], a_mask);
      ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, smem.B[s] + (wrong ? 0 : rm * (kBBytes / CM)),
                                &tmap_b, b_coords, &smem.full_bar[s], b_mask);
      // The stage completes when this arrival and all of A and B (from every sender) are in.
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &smem.full_bar[s],
                                     uint32_t(kABytes + kBBytes));
    }
  } else if (threadIdx.x >= 32) {  // === consumer warp ===
    const int lane = threadIdx.x - 32;
    long long a_sum = 0, b_sum = 0;
    for (int i = 0; i < k_tiles; ++i) {
      const int s = i % kStages;
      wait(&smem.full_bar[s], (i / kStages) & 1);  // the stage is in
      if constexpr (CHECK) {  // the swizzle permutes elements within the tile; a sum does not care
        const __half* a = reinterpret_cast<const __half*>(smem.A[s]);
        const __half* b = reinterpret_cast<const __half*>(smem.B[s]);
        // Element e of a stage is in row e / 64 (64 fp16 of K a row); weighted by row + 1.
        for (int e = lane; e < kABytes / 2; e += 32) a_sum += (e / kBlkK + 1) * int(__half2float(a[e]));
        for (int e = lane; e < kBBytes / 2; e += 32) b_sum += (e / kBlkK + 1) * int(__half2float(b[e]));
      }
      __syncwarp();  // every lane's reads of the stage are done before it is released
      if (lane == 0) {
        for (int j = 0; j < CN; ++j) ptx::mbarrier_arrive_remote(&smem.empty_bar[s], uint32_t(rm + CM * j));
        for (int j = 0; j < CM; ++j)
          if (j != rm) ptx::mbarrier_arrive_remote(&smem.empty_bar[s], uint32_t(j + CM * rn));  // self counted once
      }
    }
    if constexpr (CHECK) {
      for (int off = 16; off > 0; off /= 2) {
        a_sum += __shfl_down_sync(0xffffffffu, a_sum, off);
        b_sum += __shfl_down_sync(0xffffffffu, b_sum, off);
      }
      if (lane == 0) {
        sums[2 * blockIdx.x] = a_sum;
        sums[2 * blockIdx.x + 1] = b_sum;
      }
    }
  }
  ptx::barrier_cluster_arrive(ptx::sem_release);  // no CTA leaves while peers may write into it
  ptx::barrier_cluster_wait(ptx::sem_acquire);
#endif
}

struct Options {
  int m = 512, n = 1600, k = 6400, iters = 100;
  bool misplace = false;  // --break: the checked launch puts every slice at offset 0 (the check must fail)
};

int parse_int(const char* flag, const char* value) {
  char* end = nullptr;
  const long v = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || v < 1 || v > (1 << 20)) {
    std::fprintf(stderr, "multicast_probe: %s %s: give a whole number from 1 to 1048576\n", flag, value);
    std::exit(2);
  }
  return int(v);
}

/// One cluster shape: checked once, then timed. Returns false when a sum differs.
template <int CM, int CN>
bool run_shape(const Options& o, const __half* a, const __half* b, const std::vector<long long>& a_rows,
               const std::vector<long long>& b_rows, cudaStream_t stream) {
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(a, uint64_t(o.m), uint64_t(o.k), kTileM / CN, kBlkK);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(b, uint64_t(o.n), uint64_t(o.k), kTileN / CM, kBlkK);
  const int m_tiles = (o.m + kTileM - 1) / kTileM, n_tiles = (o.n + kTileN - 1) / kTileN;
  const int m_clusters = (m_tiles + CM - 1) / CM, n_clusters = (n_tiles + CN - 1) / CN;  // tiles past M, N: zeros
  const int ctas = m_clusters * n_clusters * CM * CN;
  const size_t smem = sizeof(Smem) + 1024;  // + the slack align_smem_1024 may skip
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim = {unsigned(CM * CN), 1, 1};
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(ctas));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  HG_CUDA_CHECK(cudaFuncSetAttribute(probe_kernel<CM, CN, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     int(smem)));
  HG_CUDA_CHECK(cudaFuncSetAttribute(probe_kernel<CM, CN, false>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     int(smem)));
  int resident = 0;
  HG_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&resident, probe_kernel<CM, CN, false>, &cfg));

  // Checked: each CTA's sums against the host's, over the rows of its tile inside the matrices.
  hg::DeviceBuffer<long long> sums(2 * int64_t(ctas));
  HG_CUDA_CHECK(cudaLaunchKernelEx(&cfg, probe_kernel<CM, CN, true>, tmap_a, tmap_b, o.k, m_clusters, sums.get(),
                                   o.misplace));
  hg::check_kernel("the multicast probe (checked launch)", stream);
  const std::vector<long long> got = sums.to_host();
  int bad = 0;
  for (int c = 0; c < ctas; ++c) {
    const int cluster = c / (CM * CN), rank = c % (CM * CN);
    const int tm = (cluster % m_clusters) * CM + rank % CM, tn = (cluster / m_clusters) * CN + rank / CM;
    long long want_a = 0, want_b = 0;
    for (int r = tm * kTileM; r < std::min(o.m, (tm + 1) * kTileM); ++r)
      want_a += (r - tm * kTileM + 1) * a_rows[size_t(r)];  // the row's weight in the tile, as on the GPU
    for (int r = tn * kTileN; r < std::min(o.n, (tn + 1) * kTileN); ++r)
      want_b += (r - tn * kTileN + 1) * b_rows[size_t(r)];
    if (got[2 * size_t(c)] != want_a || got[2 * size_t(c) + 1] != want_b) ++bad;
  }
  // Timed: the unchecked kernel, 10 untimed launches, then --iters back to back, each between two events (queued
  // without a wait, so the GPU does not idle between them: burst timing, as hgemm_bench's).
  for (int i = 0; i < 10; ++i)
    HG_CUDA_CHECK(cudaLaunchKernelEx(&cfg, probe_kernel<CM, CN, false>, tmap_a, tmap_b, o.k, m_clusters, nullptr, false));
  std::vector<cudaEvent_t> ev(2 * size_t(o.iters));
  for (auto& e : ev) HG_CUDA_CHECK(cudaEventCreate(&e));
  for (int i = 0; i < o.iters; ++i) {
    HG_CUDA_CHECK(cudaEventRecord(ev[2 * size_t(i)], stream));
    HG_CUDA_CHECK(cudaLaunchKernelEx(&cfg, probe_kernel<CM, CN, false>, tmap_a, tmap_b, o.k, m_clusters, nullptr, false));
    HG_CUDA_CHECK(cudaEventRecord(ev[2 * size_t(i) + 1], stream));
  }
  HG_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<float> ms(size_t(o.iters));
  for (int i = 0; i < o.iters; ++i) HG_CUDA_CHECK(cudaEventElapsedTime(&ms[size_t(i)], ev[2 * size_t(i)], ev[2 * size_t(i) + 1]));
  for (auto& e : ev) HG_CUDA_CHECK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  const double median_us = 1000.0 * ms[ms.size() / 2];
  const int k_tiles = (o.k + kBlkK - 1) / kBlkK;
  const double delivered_mb = double(ctas) * k_tiles * (kABytes + kBBytes) / 1e6;
  // Nominal: a multicast box read once; boxes past the matrix (zero-filled, not read) counted whole.
  const double l2_read_mb = double(ctas) * k_tiles * (kABytes / CN + kBBytes / CM) / 1e6;
  std::printf("%d,%d,%d,%d,%d,%d,%d,%d,%.1f,%.1f,%.2f,%.2f,%s\n", o.m, o.n, o.k, CM, CN, ctas, resident, kStages,
              delivered_mb, l2_read_mb, median_us, delivered_mb / median_us, bad ? "FAIL" : "PASS");  // MB/us = TB/s
  if (bad) std::fprintf(stderr, "multicast_probe: cluster %dx%d: %d of %d CTAs received other sums than sent\n", CM,
                        CN, bad, ctas);
  return bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--break") {
      o.misplace = true;
      continue;
    }
    if (i + 1 >= argc || (flag != "--m" && flag != "--n" && flag != "--k" && flag != "--iters")) {
      std::fprintf(stderr, "usage: hg_multicast_probe [--m M] [--n N] [--k K] [--iters I] [--break] (got '%s')\n",
                   argv[i]);
      return 2;
    }
    const int v = parse_int(argv[i], argv[i + 1]);
    if (flag == "--m") o.m = v;
    if (flag == "--n") o.n = v;
    if (flag == "--k") o.k = v;
    if (flag == "--iters") o.iters = v;
    ++i;
  }
  if (o.k % 8 != 0) {
    std::fprintf(stderr, "multicast_probe: --k %d: K must be a multiple of 8 (TMA's 16-byte row stride)\n", o.k);
    return 2;
  }
  try {
    hg::Device dev;
    const std::string why = hg::find_device(hg::ArchChoice::kSm90, dev);
    if (!why.empty()) {
      std::fprintf(stderr, "multicast_probe: %s\n", why.c_str());
      return 77;
    }
    // Small integers (-2..2) from a hash of the index, so that every sum is exact and rows differ (a value that
    // repeated along K would give every row the same sum); per row sums for the host's side of the check.
    auto small = [](uint64_t i) {
      i = (i ^ (i >> 31)) * 0x7fb5d329728ea185ull;  // a 64-bit mix (splitmix64's finaliser)
      i = (i ^ (i >> 27)) * 0x81dadef4bc2dd44dull;
      return int((i ^ (i >> 33)) % 5) - 2;
    };
    std::vector<__half> ha(size_t(o.m) * o.k), hb(size_t(o.n) * o.k);
    std::vector<long long> a_rows(size_t(o.m), 0), b_rows(size_t(o.n), 0);
    for (size_t i = 0; i < ha.size(); ++i) {
      const int v = small(i);
      ha[i] = __int2half_rn(v);
      a_rows[i / size_t(o.k)] += v;
    }
    for (size_t i = 0; i < hb.size(); ++i) {
      const int v = small(i + (uint64_t(1) << 40));  // B's own values
      hb[i] = __int2half_rn(v);
      b_rows[i / size_t(o.k)] += v;
    }
    hg::DeviceBuffer<__half> a(int64_t(ha.size())), b(int64_t(hb.size()));
    HG_CUDA_CHECK(cudaMemcpy(a.get(), ha.data(), ha.size() * sizeof(__half), cudaMemcpyHostToDevice));
    HG_CUDA_CHECK(cudaMemcpy(b.get(), hb.data(), hb.size() * sizeof(__half), cudaMemcpyHostToDevice));
    hg::Stream stream;
    std::printf("m,n,k,cluster_m,cluster_n,ctas,resident_clusters,stages,delivered_mb,l2_read_mb,median_us,"
                "delivered_tb_s,check\n");
    bool ok = true;
    ok &= run_shape<1, 1>(o, a.get(), b.get(), a_rows, b_rows, stream.s);
    ok &= run_shape<2, 1>(o, a.get(), b.get(), a_rows, b_rows, stream.s);  // step 11's pair
    ok &= run_shape<4, 1>(o, a.get(), b.get(), a_rows, b_rows, stream.s);
    ok &= run_shape<2, 2>(o, a.get(), b.get(), a_rows, b_rows, stream.s);
    ok &= run_shape<8, 1>(o, a.get(), b.get(), a_rows, b_rows, stream.s);
    ok &= run_shape<4, 2>(o, a.get(), b.get(), a_rows, b_rows, stream.s);  // eight CTAs: cuBLAS's bytes here
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "multicast_probe: %s\n", e.what());
    return 3;
  }
}
