// lab/dips_bench.cu: experiments on the Hopper kernels of the middle of the ladder (built as hg_dips_bench).
// Two questions. What does step 6 buy with each of its two changes, the persistent pool and the L2-grouped tile
// order? And why do step 7 (warp specialization) and step 8 (CTA pairs) fall behind step 6 at most shapes of
// the ladder on the H200? This tool times the steps as they are next to launch variants of their unchanged
// Hopper kernels, each isolating one cause, with cuBLAS, in one interleaved run (the benchmark ladder's, by the
// same code: common/harness/bench.hpp):
//   step5           step 5 as in the ladder: one CTA per tile, launched with blockIdx.x as the tile row;
//   step6_per_tile_launch_order  step 6's kernel, one CTA per tile, walking them in step 5's launch order
//                   (GROUP_ROWS taller than the grid: down one tile column after another). Against step5: step
//                   6's kernel against step 5's under the same launch and order (with one tile per CTA its
//                   store is waited for at exit, as in step 5);
//   step6_per_tile  step 6's kernel, one CTA per tile, in the L2-grouped order: against the variant above, the
//                   order alone, without persistence;
//   step6_launch_order  step 6's kernel on step 6's persistent grid, in step 5's launch order: against step6,
//                   the order alone, with persistence; against step6_per_tile_launch_order, persistence alone;
//   step6           step 6 as in the ladder: SMs x occupancy CTAs, two per SM at its default ring depth;
//   step6_1cta      step 6's kernel on ONE CTA per SM (grid = SMs, dynamic shared memory padded to 227 KiB).
//                   If it loses to step6, the second resident CTA was already overlapping one CTA's epilogue
//                   with the other's MMAs: step 7's lesson, done by the hardware scheduler;
//   step7           step 7 as in the ladder (one CTA per SM);
//   step7_cluster2  step 7's kernel launched in clusters of two, grid sized like step 8's (resident clusters
//                   x 2). The kernel uses no cluster feature, so this is the cost of the cluster launch alone
//                   (co-scheduling a pair on one GPC), apart from step 8's multicast and cross-CTA barriers;
//   step8           step 8 as in the ladder.
// The variants launch the steps' own kernels (the real kernel, the default ring depth; the launch-order ones
// step 6's with GROUP_ROWS changed), compiled with the steps' __launch_bounds__(threads, 1): minBlocks 1 does not
// limit the registers, and the CTAs per SM do not depend on them here (step 6's 128 threads fit twice in the
// register file even at 255 registers; step 7's 384 fit once), so the code is the step's and only the launch
// (and the order) differs.
//
// A finished experiment: it is not part of the default build (lab/CMakeLists.txt).
//   cmake --preset default && cmake --build build --target hg_dips_bench
//   ./build/lab/hg_dips_bench --out dips_out                # hgemm_bench's default shapes, burst and sustained
//   ./build/lab/hg_dips_bench --shape 4096x4096x4096 --iters 100 --rounds 10 --settle-ms 50
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
#include "step5_pipeline/hgemm_sm90.cuh"
#include "step6_persistent/hgemm_sm90.cuh"
#include "step7_warp_specialized/hgemm_sm90.cuh"
#include "step8_cluster/hgemm_sm90.cuh"

// The steps' default ring depths, from the registry (steps.json: CMakeLists.txt passes them).
#if !defined(HG_STEP5_DEPTH) || !defined(HG_STEP6_DEPTH) || !defined(HG_STEP7_DEPTH) || !defined(HG_STEP8_DEPTH)
#error "build lab/dips_bench.cu with CMake (target hg_dips_bench): it passes the steps' default ring depths"
#endif

namespace {

using hg::Break;

// Each entry runs at its step's default ring depth, as in hgemm_bench.
constexpr int kStep5Depth = HG_STEP5_DEPTH, kStep6Depth = HG_STEP6_DEPTH, kStep7Depth = HG_STEP7_DEPTH,
              kStep8Depth = HG_STEP8_DEPTH;
// Step 6's GROUP_ROWS for step 5's launch order: one group taller than any grid (kMaxDim / 128 tile rows), so
// the scheduler walks down one tile column after another, as step 5's grid is launched (blockIdx.x: the row).
constexpr int kLaunchOrderRows = int(hg::kMaxDim / hg::kBlkM);
// step6_1cta's dynamic shared memory: the most a CTA may have, so that a second CTA never fits on the SM.
constexpr int kOneCtaSmem = hg::kMaxSmemBytes;
static_assert(kOneCtaSmem >= step6::sm90::kSmemBytes<kStep6Depth>, "the padding must hold step 6's map");

/// How a variant is launched.
struct Launch {
  int grid = 0;     ///< CTAs; 0: one per output tile of the problem
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

// --- The variants: the steps' kernels, shared-memory maps and tensor maps as their prepare_variant builds
// them; only the launch configuration and step 6's GROUP_ROWS differ. ---------------------------------------

/// The step 6 variants: step 6's Hopper kernel with its tiles in groups of GROUP_ROWS rows, on `launch`'s grid
/// (step6_1cta: one CTA per SM; the per-tile ones: one CTA per tile).
template <int DEPTH, int GROUP_ROWS = step6::sm90::kGroupRows>
hg::Launcher prepare_step6(const hg::GemmArgs& g, const Launch& launch) {
  namespace k = step6::sm90;
  using S = k::Smem<DEPTH>;
  static constexpr hg::BarrierName kBarriers[] = {{offsetof(S, tma_bar), DEPTH, "tma_bar"}};
  hg::arm_watchdog(kBarriers);
  const auto kernel = k::hgemm_kernel<DEPTH, Break::kNone, GROUP_ROWS>;
  const CUtensorMap tmap_a = hg::make_tensor_map_2d(g.A, g.m, g.k, k::BLK_M, k::BLK_K);
  const CUtensorMap tmap_b = hg::make_tensor_map_2d(g.B, g.n, g.k, k::BLK_N, k::BLK_K);
  const CUtensorMap tmap_d = hg::make_tensor_map_2d(g.D, g.m, g.n, k::BLK_M, k::kDBoxCols);
  const dim3 grid(launch.grid > 0 ? launch.grid : (g.m / k::BLK_M) * (g.n / k::BLK_N)), block(k::kThreads);
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
          {l.grid > 0 ? std::to_string(l.grid) : "tiles", std::to_string(l.per_sm), std::to_string(l.cluster), std::to_string(l.smem),
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
    throw hg::UsageError(std::string("a Hopper-only experiment (the sm_90a kernels of step5_pipeline, "
                                     "step6_persistent, step7_warp_specialized and step8_cluster); GPU '") +
                         dev.prop.name + "' runs the sm_100a kernels (hgemm_bench times those)");
  hg::prepare_bench_run(args);

  namespace k5 = step5::sm90;
  namespace k6 = step6::sm90;
  namespace k7 = step7::sm90;
  namespace k8 = step8::sm90;
  // The launches, as the steps' prepare functions size them (the unchanged entries: reported, not changed).
  const Launch l6 = per_sm_launch(k6::hgemm_kernel<kStep6Depth, Break::kNone>, k6::kThreads,
                                  k6::kSmemBytes<kStep6Depth>, kStep6Depth);
  const int sms = sm_count();
  // One CTA per tile, as step 5 launches: the grid is the problem's tile count (0 here, sized at prepare).
  const Launch l5{0, ctas_per_sm(k5::hgemm_kernel<kStep5Depth, Break::kNone>, k5::kThreads,
                                 k5::kSmemBytes<kStep5Depth>), 1, k5::kSmemBytes<kStep5Depth>, kStep5Depth};
  const Launch l6tiles{0, l6.per_sm, 1, l6.smem, kStep6Depth};
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
      entry("step5", "a CTA per tile, as is", l5, as_is(k5::prepare_variant<kStep5Depth, Break::kNone>)),
      entry("step6_per_tile_launch_order", "a CTA per tile, step 5's order", l6tiles, [l6tiles](const hg::GemmArgs& g) {
        return prepare_step6<kStep6Depth, kLaunchOrderRows>(g, l6tiles);
      }),
      entry("step6_per_tile", "a CTA per tile, grouped", l6tiles,
            [l6tiles](const hg::GemmArgs& g) { return prepare_step6<kStep6Depth>(g, l6tiles); }),
      entry("step6_launch_order", per_sm_text(l6) + ", step 5's order", l6,
            [l6](const hg::GemmArgs& g) { return prepare_step6<kStep6Depth, kLaunchOrderRows>(g, l6); }),
      entry("step6", per_sm_text(l6) + ", as is", l6, as_is(k6::prepare_variant<kStep6Depth, Break::kNone>)),
      entry("step6_1cta", per_sm_text(l6one) + ", smem pad", l6one,
            [l6one](const hg::GemmArgs& g) { return prepare_step6<kStep6Depth>(g, l6one); }),
      entry("step7", per_sm_text(l7) + ", as is", l7, as_is(k7::prepare_variant<kStep7Depth, Break::kNone>)),
      entry("step7_cluster2", pairs_text(l7pair) + ", step 7 code", l7pair,
            [l7pair](const hg::GemmArgs& g) { return prepare_step7_cluster2<kStep7Depth>(g, l7pair); }),
      entry("step8", pairs_text(l8) + ", as is", l8, as_is(k8::prepare_variant<kStep8Depth, Break::kNone>)),
  };
  const Launch launches[] = {l5, l6tiles, l6tiles, l6, l6, l6one, l7, l7pair, l8};
  hg::check_bench_shapes(args, variants);

  std::printf("hg_dips_bench: launch configurations on %s (%d SMs), CTAs per SM from "
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor, clusters from cudaOccupancyMaxActiveClusters\n",
              dev.prop.name, sms);
  std::printf("  %-28s %6s %7s %8s %11s %6s\n", "variant", "CTAs", "per SM", "cluster", "smem bytes", "depth");
  for (size_t i = 0; i < variants.size(); ++i) {
    const Launch& l = launches[i];
    std::printf("  %-28s %6s %7d %8d %11d %6d\n", variants[i].name.c_str(), variants[i].extra[0].c_str(), l.per_sm,
                l.cluster, l.smem, l.depth);
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
                        "Variants (Hopper only): step5, step6_per_tile_launch_order, step6_per_tile,\n"
                        "step6_launch_order (step 6's changes apart), step6, step6_1cta (one CTA per SM), step7,\n"
                        "step7_cluster2 (step 7 in clusters of two), step8, and cuBLAS; lab/dips_bench.cu says what\n"
                        "each isolates.\n",
                        run);
}
