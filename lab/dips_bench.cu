// lab/dips_bench.cu: one experiment on why steps 7 and 8 fall behind step 6 on Hopper (built as hg_dips_bench).
// On the H200, step 7 (warp specialization) and step 8 (CTA pairs) are slower than step 6 at most shapes of the
// ladder. This tool times step 6, 7 and 8 as they are next to two launch variants of their unchanged Hopper
// kernels, each isolating one cause, with cuBLAS, in one interleaved run (the benchmark ladder's, by the same
// code: common/harness/bench.hpp):
//   step6           step 6 as in the ladder: SMs x occupancy CTAs, two per SM at its default ring depth;
//   step6_1cta      step 6's kernel on ONE CTA per SM (grid = SMs, dynamic shared memory padded to 227 KiB).
//                   If it loses to step6, the second resident CTA was already overlapping one CTA's epilogue
//                   with the other's MMAs: step 7's lesson, done by the hardware scheduler;
//   step7           step 7 as in the ladder (one CTA per SM);
//   step7_cluster2  step 7's kernel launched in clusters of two, grid sized like step 8's (resident clusters
//                   x 2). The kernel uses no cluster feature, so this is the cost of the cluster launch alone
//                   (co-scheduling a pair on one GPC), apart from step 8's multicast and cross-CTA barriers;
//   step8           step 8 as in the ladder.
// Both variants launch the steps' own kernel instances (the real kernel, the default ring depth), compiled with
// the steps' __launch_bounds__(threads, 1): minBlocks 1 does not limit the registers, and the CTAs per SM do not
// depend on them here (step 6's 128 threads fit twice in the register file even at 255 registers; step 7's 384
// fit once), so the code is the step's and only the launch differs.
//
// A finished experiment: it is not part of the default build (lab/CMakeLists.txt).
//   cmake --preset default && cmake --build build --target hg_dips_bench
//   ./build/hg_dips_bench --out dips_out                # hgemm_bench's default shapes, burst and sustained
//   ./build/hg_dips_bench --shape 4096x4096x4096 --iters 100 --rounds 10 --settle-ms 50
//
// Output: the launch configurations (from the occupancy API) and, after the run, a table per shape and method
// on stdout, progress on stderr, <out>/dips.csv (ladder.csv's columns, then each variant's launch) and
// <out>/dips_samples.csv (every timed launch). Every variant is verified against the reference GEMM before it
// is timed. Hopper only: on a Blackwell GPU it says so and exits 2. Exit codes as hgemm_bench: 0 all
// verified, 1 a verification failed (that row is not timed), 2 bad usage, 3 CUDA error, 77 no GPU.
#include <cstddef>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/harness/bench.hpp"
#include "common/kernel/cluster.hpp"
// The three steps' Hopper kernels, whose real instances (prepare_variant<depth, kNone>) are compiled into this
// binary only (it links no step spec, so each kernel is instantiated once).
#include "step6_persistent/hgemm_sm90.cuh"
#include "step7_warp_specialized/hgemm_sm90.cuh"
#include "step8_cluster/hgemm_sm90.cuh"

// The steps' default ring depths, from the registry (steps.json: CMakeLists.txt passes them).
#if !defined(HG_STEP6_DEPTH) || !defined(HG_STEP7_DEPTH) || !defined(HG_STEP8_DEPTH)
#error "build lab/dips_bench.cu with CMake (target hg_dips_bench): it passes the steps' default ring depths"
#endif

namespace {

using hg::Break;

// Each entry runs at its step's default ring depth, as in hgemm_bench.
constexpr int kStep6Depth = HG_STEP6_DEPTH, kStep7Depth = HG_STEP7_DEPTH, kStep8Depth = HG_STEP8_DEPTH;
// step6_1cta's dynamic shared memory: the most a CTA may have, so that a second CTA never fits on the SM.
constexpr int kOneCtaSmem = hg::kMaxSmemBytes;
static_assert(kOneCtaSmem >= step6::sm90::kSmemBytes<kStep6Depth>, "the padding must hold step 6's map");

/// How a variant is launched.
struct Launch {
  int grid = 0;     ///< CTAs
  int per_sm = 0;   ///< CTAs per SM, from cudaOccupancyMaxActiveBlocksPerMultiprocessor at this smem
  int cluster = 1;  ///< CTAs per cluster
  int smem = 0;     ///< dynamic shared memory per CTA, bytes
  int depth = 0;    ///< ring depth
};

int sm_count() {
  int device = 0, sms = 0;
  HG_CUDA_CHECK(cudaGetDevice(&device));
  HG_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

/// CTAs of `kernel` per SM at `smem` bytes of dynamic shared memory (after allowing that much, as the steps'
/// prepare functions do).
template <typename Kernel>
int ctas_per_sm(Kernel kernel, int threads, int smem) {
  HG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  HG_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  return per_sm;
}

/// A persistent grid as steps 6 and 7 size it: SMs x CTAs per SM.
template <typename Kernel>
Launch per_sm_launch(Kernel kernel, int threads, int smem, int depth) {
  const int per_sm = ctas_per_sm(kernel, threads, smem);
  if (per_sm < 1) throw hg::CudaError("a kernel of " + std::to_string(smem) + " B cannot be resident (occupancy 0)");
  return {sm_count() * per_sm, per_sm, 1, smem, depth};
}

/// A persistent grid of pairs as step 8 sizes it: resident clusters of two x 2.
template <typename Kernel>
Launch pair_launch(Kernel kernel, int threads, int smem, int depth) {
  const int per_sm = ctas_per_sm(kernel, threads, smem);
  return {2 * hg::max_resident_pairs(kernel, threads, smem), per_sm, 2, smem, depth};
}

// --- The two variants: the steps' kernels, shared-memory maps and tensor maps as their prepare_variant builds
// them; only the launch configuration differs. -------------------------------------------------------------

/// step6_1cta: step 6's Hopper kernel on one CTA per SM.
template <int DEPTH>
hg::Launcher prepare_step6_1cta(const hg::GemmArgs& g, const Launch& launch) {
  namespace k = step6::sm90;
  using S = k::Smem<DEPTH>;
  static constexpr hg::BarrierName kBarriers[] = {{offsetof(S, tma_bar), DEPTH, "tma_bar"}};
  hg::arm_watchdog(kBarriers);
  const auto kernel = k::hgemm_kernel<DEPTH, Break::kNone>;
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, k::BLK_M, k::BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, k::BLK_N, k::BLK_K);
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, k::BLK_M, k::kDBoxCols);
  const dim3 grid(launch.grid), block(k::kThreads);
  const int smem = launch.smem;
  return [=](cudaStream_t stream) {
    // The step6 entry's prepare lowers this limit to its own map for the same kernel: raise it at every launch.
    HG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    kernel<<<grid, block, smem, stream>>>(tmap_a, tmap_b, tmap_d, g.m, g.n, g.k);
  };
}

/// step7_cluster2: step 7's Hopper kernel launched in clusters of two (hg::launch_pairs, as step 8).
template <int DEPTH>
hg::Launcher prepare_step7_cluster2(const hg::GemmArgs& g, const Launch& launch) {
  namespace k = step7::sm90;
  using S = k::Smem<DEPTH>;
  static constexpr hg::BarrierName kBarriers[] = {{offsetof(S, full_bar), DEPTH, "full_bar"},
                                                  {offsetof(S, empty_bar), DEPTH, "empty_bar"}};
  hg::arm_watchdog(kBarriers);
  const auto kernel = k::hgemm_kernel<DEPTH, Break::kNone>;
  HG_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, k::kSmemBytes<DEPTH>));
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, k::BLK_M, k::BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, k::BLK_N, k::BLK_K);
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, k::BLK_M, k::kDBoxCols);
  const int pairs = launch.grid / 2;
  return [=](cudaStream_t stream) {
    hg::launch_pairs(kernel, pairs, k::kThreads, k::kSmemBytes<DEPTH>, stream, tmap_a, tmap_b, tmap_d, g.m, g.n,
                     g.k);
  };
}

hg::Contestant entry(const char* name, const std::string& what, const Launch& l,
                     std::function<hg::Launcher(const hg::GemmArgs&)> prepare) {
  return {name, what, std::move(prepare),
          {std::to_string(l.grid), std::to_string(l.per_sm), std::to_string(l.cluster), std::to_string(l.smem),
           std::to_string(l.depth)}};
}

int run(const hg::BenchOptions& args) {
  hg::Device dev;
  const std::string no_gpu = hg::find_device(hg::ArchChoice::kAuto, dev);
  if (!no_gpu.empty()) {
    std::printf("hg_dips_bench SKIP: %s\n", no_gpu.c_str());
    return 77;
  }
  if (dev.arch != hg::ArchChoice::kSm90)
    throw hg::UsageError(std::string("a Hopper-only experiment (the sm_90a kernels of step6_persistent, "
                                     "step7_warp_specialized and step8_cluster); GPU '") +
                         dev.prop.name + "' runs the sm_100a kernels (hgemm_bench times those)");
  hg::prepare_bench_run(args);

  namespace k6 = step6::sm90;
  namespace k7 = step7::sm90;
  namespace k8 = step8::sm90;
  // The launches, as the steps' prepare functions size them (the unchanged entries: reported, not changed).
  const Launch l6 = per_sm_launch(k6::hgemm_kernel<kStep6Depth, Break::kNone>, k6::kThreads,
                                  k6::kSmemBytes<kStep6Depth>, kStep6Depth);
  const int sms = sm_count();
  const Launch l6one{sms, ctas_per_sm(k6::hgemm_kernel<kStep6Depth, Break::kNone>, k6::kThreads, kOneCtaSmem), 1,
                     kOneCtaSmem, kStep6Depth};
  if (l6one.per_sm != 1)
    throw hg::CudaError("step6_1cta: " + std::to_string(kOneCtaSmem) + " B of shared memory leave " +
                        std::to_string(l6one.per_sm) + " CTAs per SM (occupancy API), not 1");
  const Launch l7 = per_sm_launch(k7::hgemm_kernel<kStep7Depth, Break::kNone>, k7::kThreads,
                                  k7::kSmemBytes<kStep7Depth>, kStep7Depth);
  const Launch l7pair = pair_launch(k7::hgemm_kernel<kStep7Depth, Break::kNone>, k7::kThreads,
                                    k7::kSmemBytes<kStep7Depth>, kStep7Depth);
  const Launch l8 = pair_launch(k8::hgemm_kernel<kStep8Depth, Break::kNone>, k8::kThreads,
                                k8::kSmemBytes<kStep8Depth>, kStep8Depth);

  auto per_sm_text = [](const Launch& l) {
    return std::to_string(l.grid) + " CTAs (" + std::to_string(l.per_sm) + "/SM)";
  };
  auto pairs_text = [](const Launch& l) { return std::to_string(l.grid / 2) + " clusters of 2"; };
  // The unchanged entries: the steps' own real kernels at their default depths.
  auto as_is = [](hg::Launcher (*prepare)(const hg::GemmArgs&)) {
    return [prepare](const hg::GemmArgs& g) { return prepare(g); };
  };
  const std::vector<hg::Contestant> variants = {
      entry("step6", per_sm_text(l6) + ", as is", l6, as_is(k6::prepare_variant<kStep6Depth, Break::kNone>)),
      entry("step6_1cta", per_sm_text(l6one) + ", smem pad", l6one,
            [l6one](const hg::GemmArgs& g) { return prepare_step6_1cta<kStep6Depth>(g, l6one); }),
      entry("step7", per_sm_text(l7) + ", as is", l7, as_is(k7::prepare_variant<kStep7Depth, Break::kNone>)),
      entry("step7_cluster2", pairs_text(l7pair) + ", step 7 code", l7pair,
            [l7pair](const hg::GemmArgs& g) { return prepare_step7_cluster2<kStep7Depth>(g, l7pair); }),
      entry("step8", pairs_text(l8) + ", as is", l8, as_is(k8::prepare_variant<kStep8Depth, Break::kNone>)),
  };
  const Launch launches[] = {l6, l6one, l7, l7pair, l8};
  hg::check_bench_shapes(args, variants);

  std::printf("hg_dips_bench: launch configurations on %s (%d SMs), CTAs per SM from "
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor, clusters from cudaOccupancyMaxActiveClusters\n",
              dev.prop.name, sms);
  std::printf("  %-16s %6s %7s %8s %11s %6s\n", "variant", "CTAs", "per SM", "cluster", "smem bytes", "depth");
  for (size_t i = 0; i < variants.size(); ++i) {
    const Launch& l = launches[i];
    std::printf("  %-16s %6d %7d %8d %11d %6d\n", variants[i].name.c_str(), l.grid, l.per_sm, l.cluster, l.smem,
                l.depth);
  }
  std::printf("  (step6's map needs %d B; step6_1cta runs the same kernel with its shared memory padded)\n\n",
              k6::kSmemBytes<kStep6Depth>);
  std::fflush(stdout);

  hg::Stream stream;
  hg::CublasHandle blas(stream.s);
  std::vector<hg::BenchRow> rows;
  std::vector<hg::BenchSample> samples;
  hg::BenchProgress progress{0, int(args.shapes.size() * (variants.size() + 1))};
  bool all_verified = true;
  for (const hg::Shape& s : args.shapes) {
    const bool verified = hg::bench_shape(s, variants, args, dev, blas.h, stream.s, progress, rows, samples);
    all_verified = all_verified && verified;
  }

  hg::print_run_header(dev, hg::collect_run_info(dev), args);
  hg::print_bench_tables(rows, args, "variant", "launch");
  const std::string csv_path = args.out + "/dips.csv", samples_path = args.out + "/dips_samples.csv";
  const bool csv = hg::write_bench_csv(csv_path, rows, "variant",
                                       {"grid_ctas", "ctas_per_sm", "cluster_size", "smem_bytes", "pipe_depth"});
  const bool raw = hg::write_samples_csv(samples_path, samples, "variant");
  if (!csv || !raw) throw hg::UsageError("cannot write " + csv_path + " or " + samples_path);
  std::printf("\nwrote %s and %s\n", csv_path.c_str(), samples_path.c_str());
  if (!all_verified) std::fprintf(stderr, "hg_dips_bench: error: a variant FAILED verification (see above)\n");
  return all_verified ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return hg::bench_main(argc, argv, "hg_dips_bench",
                        "Variants (Hopper only): step6, step6_1cta (one CTA per SM), step7, step7_cluster2 (step 7 in\n"
                        "clusters of two), step8, and cuBLAS; tools/dips_bench.cu says what each isolates.\n",
                        run);
}
