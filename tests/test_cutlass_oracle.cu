// tests/test_cutlass_oracle.cu: CUTLASS as an independent oracle for every descriptor, swizzle and ownership
// map the kernels use (CTest label `cutlass`, CPU only).
//
// Every value here comes from two sides: what the kernels use (the encoders of common/kernel/descriptors.hpp, fed
// with each step's own constants: tile sizes, MMA shapes, stage sizes, the offsets the kernel adds) and what
// CUTLASS's CuTe computes for the same thing (cute::UMMA::make_instr_desc, make_umma_desc, make_gmma_desc on
// CuTe's 128B-swizzled K-major layouts, CuTe's swizzle pointer, the layouts of the tcgen05.ld and wgmma
// atoms). Descriptors are compared bit for bit. On the host, CuTe cannot turn a shared-memory pointer into an
// address (make_*_desc print "cast_smem_ptr_to_uint not supported" and leave the start address 0), so the
// start address is taken from CuTe's layout instead: the offset of the slice in CuTe's tile, from the same
// base address the kernel's shared-memory map gives the tile.
//
// Built with nvcc for the host only (no GPU code of its own: the kernel bodies compile out), and registered
// only when CMake finds CUTLASS (HG_CUTLASS_INCLUDE_DIR; .ci/run installs the pinned nvidia-cutlass wheel).
// When a later step adds a descriptor or a layout, add its step to the lists below.
#include <doctest/doctest.h>

#include <cute/atom/copy_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/tensor.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "common/kernel/descriptors.hpp"
#include "common/model/ownership.hpp"
#include "step1_single_tile/hgemm_sm100.cuh"
#include "step1_single_tile/hgemm_sm90.cuh"
#include "step2_kloop/hgemm_sm100.cuh"
#include "step2_kloop/hgemm_sm90.cuh"
#include "step3_grid/hgemm_sm100.cuh"
#include "step3_grid/hgemm_sm90.cuh"
#include "step4_tma/hgemm_sm100.cuh"
#include "step4_tma/hgemm_sm90.cuh"
#include "step5_pipeline/hgemm_sm100.cuh"
#include "step5_pipeline/hgemm_sm90.cuh"
#include "step6_persistent/hgemm_sm100.cuh"
#include "step6_persistent/hgemm_sm90.cuh"
#include "step7_warp_specialized/hgemm_sm100.cuh"
#include "step7_warp_specialized/hgemm_sm90.cuh"
#include "step8_cluster/hgemm_sm100.cuh"
#include "step8_cluster/hgemm_sm90.cuh"
#include "step9_multi_consumer/hgemm_sm100.cuh"
#include "step9_multi_consumer/hgemm_sm90.cuh"

namespace {

using cute::half_t;

// Host address of a would-be shared-memory tile, for CuTe's pointer arithmetic (never dereferenced).
half_t* at(uint32_t smem_addr) { return reinterpret_cast<half_t*>(uintptr_t(smem_addr)); }
uint32_t addr_of(const half_t* p) { return uint32_t(reinterpret_cast<uintptr_t>(p)); }

// CuTe's make_*_desc print "ERROR: cast_smem_ptr_to_uint not supported but used." on stdout for every
// descriptor built on the host; this keeps the test log readable while one is built.
class QuietStdout {
 public:
  QuietStdout() : saved_(dup(STDOUT_FILENO)) {
    std::fflush(stdout);
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      close(null);
    }
  }
  ~QuietStdout() {
    std::fflush(stdout);
    if (saved_ >= 0) {
      dup2(saved_, STDOUT_FILENO);
      close(saved_);
    }
  }
  QuietStdout(const QuietStdout&) = delete;
  QuietStdout& operator=(const QuietStdout&) = delete;

 private:
  int saved_;
};

// CuTe's descriptor with the start address CuTe cannot fill in on the host put in from the slice's address.
template <class Desc>
uint64_t with_start(Desc desc, uint32_t slice_addr) {
  return uint64_t(desc) | ((slice_addr >> 4) & 0x3FFFu);
}

// --- Blackwell -------------------------------------------------------------------------------------------

// The instruction descriptor of an sm100 kernel: BLK_M x BLK_N, fp16 x fp16 -> fp32, both K-major.
template <int M, int N>
void check_instr_desc(const char* step) {
  CAPTURE(step);
  const uint32_t cute_desc = uint32_t(cute::UMMA::make_instr_desc<half_t, half_t, float, M, N, cute::UMMA::Major::K,
                                                                  cute::UMMA::Major::K>());
  CHECK(hg::sm100_instr_desc_f16(M, N) == cute_desc);
}

// The shared-memory descriptors an sm100 kernel builds: for an operand tile of ROWS x BLK_K at `tile_addr`
// with STAGES stages of `stage_bytes`, stage s, row block h (SLICE_ROWS rows; step 9 keeps two 128-row A
// blocks per stage), K step k (MMA_K wide): the kernel computes
// desc_advance_k16(sm100_smem_desc_sw128(tile_addr + s * stage_bytes + h * SLICE_ROWS * 128), k). CuTe: the
// (SLICE_ROWS, MMA_K) slice (h, k) of stage s of its 128B-swizzled K-major layout (ROWS, BLK_K, STAGES), and
// make_umma_desc of that slice.
template <int ROWS, int BLK_K, int MMA_K, int STAGES, int SLICE_ROWS = ROWS>
void check_sm100_smem_descs(const char* what, uint32_t tile_addr, uint32_t stage_bytes) {
  using namespace cute;
  const auto layout = tile_to_shape(UMMA::Layout_K_SW128_Atom<half_t>{},
                                    make_shape(Int<ROWS>{}, Int<BLK_K>{}, Int<STAGES>{}));
  REQUIRE(cosize(layout) * 2 == int(STAGES * stage_bytes));  // CuTe's stages are as large as the kernel's
  const auto tiles = make_tensor(make_smem_ptr(at(tile_addr)), layout);
  for (int s = 0; s < STAGES; ++s) {
    const auto stage = tiles(_, _, s);
    for (int h = 0; h < ROWS / SLICE_ROWS; ++h) {
      for (int k = 0; k < BLK_K / MMA_K; ++k) {
        CAPTURE(what);
        CAPTURE(s);
        CAPTURE(h);
        CAPTURE(k);
        const auto slice = local_tile(stage, make_shape(Int<SLICE_ROWS>{}, Int<MMA_K>{}), make_coord(h, k));
        uint64_t cute_desc = 0;
        {
          const QuietStdout quiet;
          cute_desc =
              with_start(UMMA::make_umma_desc<UMMA::Major::K>(slice), addr_of(raw_pointer_cast(slice.data())));
        }
        const uint64_t ours =
            hg::desc_advance_k16(hg::sm100_smem_desc_sw128(tile_addr + s * stage_bytes + h * SLICE_ROWS * 128), k);
        CHECK(ours == cute_desc);
      }
    }
  }
}

// --- Hopper ----------------------------------------------------------------------------------------------

// The wgmma descriptors an sm90 kernel builds: it encodes the stage-0 tile once, adds
// (s * stage_bytes + h * SLICE_ROWS * 128) >> 4 for stage s and row slice h (128 bytes per row: A is read in
// two 64-row halves, one per wgmma; B whole, N = 128), and advances along K with desc_advance_k16. CuTe: the
// (SLICE_ROWS, WGMMA_K) slice (h, k) of stage s of its layout (ROWS, BLK_K, STAGES), and make_gmma_desc.
template <int ROWS, int SLICE_ROWS, int BLK_K, int WGMMA_K, int STAGES>
void check_sm90_descs(const char* what, uint32_t tile_addr, uint32_t stage_bytes) {
  using namespace cute;
  const auto layout = tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>{},
                                    make_shape(Int<ROWS>{}, Int<BLK_K>{}, Int<STAGES>{}));
  REQUIRE(cosize(layout) * 2 == int(STAGES * stage_bytes));
  const auto tiles = make_tensor(make_smem_ptr(at(tile_addr)), layout);
  const uint64_t desc0 = hg::sm90_wgmma_desc_sw128(tile_addr);
  for (int s = 0; s < STAGES; ++s) {
    const auto stage = tiles(_, _, s);
    for (int h = 0; h < ROWS / SLICE_ROWS; ++h) {
      for (int k = 0; k < BLK_K / WGMMA_K; ++k) {
        CAPTURE(what);
        CAPTURE(s);
        CAPTURE(h);
        CAPTURE(k);
        const auto slice = local_tile(stage, make_shape(Int<SLICE_ROWS>{}, Int<WGMMA_K>{}), make_coord(h, k));
        uint64_t cute_desc = 0;
        {
          const QuietStdout quiet;
          cute_desc = with_start(GMMA::make_gmma_desc<GMMA::Major::K>(slice), addr_of(raw_pointer_cast(slice.data())));
        }
        const uint64_t ours = hg::desc_advance_k16(desc0 + (uint64_t(s * stage_bytes + h * SLICE_ROWS * 128) >> 4), k);
        CHECK(ours == cute_desc);
      }
    }
  }
}

// The tiles of one step, at one ring depth (1 for the steps without a ring), where the kernel's shared-memory
// struct S puts them: A and B at offsetof(S, A) and offsetof(S, B) of the 1024-aligned map, a stage every
// sizeof(S::A) / STAGES bytes.
#define HG_CHECK_SM100_STEP(NS, NAME, STAGES, S)                                                               \
  check_sm100_smem_descs<NS::BLK_M, NS::BLK_K, NS::MMA_K, STAGES>(NAME " A", offsetof(S, A), sizeof(S::A) / STAGES); \
  check_sm100_smem_descs<NS::BLK_N, NS::BLK_K, NS::MMA_K, STAGES>(NAME " B", offsetof(S, B), sizeof(S::B) / STAGES)
#define HG_CHECK_SM90_STEP(NS, NAME, STAGES, S)                                                                \
  check_sm90_descs<NS::BLK_M, NS::WGMMA_M, NS::BLK_K, NS::WGMMA_K, STAGES>(NAME " A", offsetof(S, A),            \
                                                                         sizeof(S::A) / STAGES);               \
  check_sm90_descs<NS::BLK_N, NS::BLK_N, NS::BLK_K, NS::WGMMA_K, STAGES>(NAME " B", offsetof(S, B),              \
                                                                       sizeof(S::B) / STAGES)

}  // namespace

TEST_CASE("cutlass: the Blackwell instruction descriptor of every step equals cute::UMMA::make_instr_desc") {
  check_instr_desc<step1::sm100::BLK_M, step1::sm100::BLK_N>("step1");
  check_instr_desc<step2::sm100::BLK_M, step2::sm100::BLK_N>("step2");
  check_instr_desc<step3::sm100::BLK_M, step3::sm100::BLK_N>("step3");
  check_instr_desc<step4::sm100::BLK_M, step4::sm100::BLK_N>("step4");
  check_instr_desc<step5::sm100::BLK_M, step5::sm100::BLK_N>("step5");
  check_instr_desc<step6::sm100::BLK_M, step6::sm100::BLK_N>("step6");
  check_instr_desc<step7::sm100::BLK_M, step7::sm100::BLK_N>("step7");
  // Step 8: the pair's MMA, 256 rows (128 from each CTA) x 256 columns.
  check_instr_desc<step8::sm100::MMA_M, step8::sm100::BLK_N>("step8");
  check_instr_desc<step9::sm100::MMA_M, step9::sm100::BLK_N>("step9");  // each consumer's pair MMA
}

TEST_CASE("cutlass: the Blackwell shared-memory descriptors (A and B, every stage and K step) equal make_umma_desc") {
  // Steps 1 to 4: one stage of A and B, where each kernel's Smem puts them.
  HG_CHECK_SM100_STEP(step1::sm100, "step1", 1, step1::sm100::Smem);
  HG_CHECK_SM100_STEP(step2::sm100, "step2", 1, step2::sm100::Smem);
  HG_CHECK_SM100_STEP(step3::sm100, "step3", 1, step3::sm100::Smem);
  HG_CHECK_SM100_STEP(step4::sm100, "step4", 1, step4::sm100::Smem);
  // Steps 5 to 7: the ring, at every depth the binaries offer (--pipe-depth).
  HG_CHECK_SM100_STEP(step5::sm100, "step5 depth 2", 2, step5::sm100::Smem<2>);
  HG_CHECK_SM100_STEP(step5::sm100, "step5 depth 3", 3, step5::sm100::Smem<3>);
  HG_CHECK_SM100_STEP(step5::sm100, "step5 depth 4", 4, step5::sm100::Smem<4>);
  HG_CHECK_SM100_STEP(step6::sm100, "step6 depth 2", 2, step6::sm100::Smem<2>);
  HG_CHECK_SM100_STEP(step6::sm100, "step6 depth 3", 3, step6::sm100::Smem<3>);
  HG_CHECK_SM100_STEP(step6::sm100, "step6 depth 4", 4, step6::sm100::Smem<4>);
  // Step 7: depths 2 to 5 (default 4).
  HG_CHECK_SM100_STEP(step7::sm100, "step7 depth 2", 2, step7::sm100::Smem<2>);
  HG_CHECK_SM100_STEP(step7::sm100, "step7 depth 3", 3, step7::sm100::Smem<3>);
  HG_CHECK_SM100_STEP(step7::sm100, "step7 depth 4", 4, step7::sm100::Smem<4>);
  HG_CHECK_SM100_STEP(step7::sm100, "step7 depth 5", 5, step7::sm100::Smem<5>);
  // Step 8: each CTA's 128 rows of the pair's A and B (B_ROWS: its half of the 256 B rows), at the same
  // offsets in both CTAs; the pair MMA takes one descriptor per operand and reads that offset in each CTA.
#define HG_CHECK_STEP8(D)                                                                                     \
  check_sm100_smem_descs<step8::sm100::BLK_M, step8::sm100::BLK_K, step8::sm100::MMA_K, D>(                   \
      "step8 depth " #D " A", offsetof(step8::sm100::Smem<D>, A), sizeof(step8::sm100::Smem<D>::A) / D);      \
  check_sm100_smem_descs<step8::sm100::B_ROWS, step8::sm100::BLK_K, step8::sm100::MMA_K, D>(                  \
      "step8 depth " #D " B", offsetof(step8::sm100::Smem<D>, B), sizeof(step8::sm100::Smem<D>::B) / D)
  HG_CHECK_STEP8(2);
  HG_CHECK_STEP8(3);
  HG_CHECK_STEP8(4);
  HG_CHECK_STEP8(5);
#undef HG_CHECK_STEP8
  // Step 9: per stage two 128-row A blocks (consumer c's at block c) and this CTA's 128 rows of B.
#define HG_CHECK_STEP9(D)                                                                                     \
  check_sm100_smem_descs<2 * step9::sm100::BLK_M, step9::sm100::BLK_K, step9::sm100::MMA_K, D,                \
                         step9::sm100::BLK_M>("step9 depth " #D " A", offsetof(step9::sm100::Smem<D>, A),     \
                                              sizeof(step9::sm100::Smem<D>::A) / D);                          \
  check_sm100_smem_descs<step9::sm100::B_ROWS, step9::sm100::BLK_K, step9::sm100::MMA_K, D>(                  \
      "step9 depth " #D " B", offsetof(step9::sm100::Smem<D>, B), sizeof(step9::sm100::Smem<D>::B) / D)
  HG_CHECK_STEP9(2);
  HG_CHECK_STEP9(3);
  HG_CHECK_STEP9(4);
#undef HG_CHECK_STEP9
}

TEST_CASE("cutlass: the Hopper wgmma descriptors (A halves, B, every stage and K step) equal make_gmma_desc") {
  HG_CHECK_SM90_STEP(step1::sm90, "step1", 1, step1::sm90::Smem);
  HG_CHECK_SM90_STEP(step2::sm90, "step2", 1, step2::sm90::Smem);
  HG_CHECK_SM90_STEP(step3::sm90, "step3", 1, step3::sm90::Smem);
  HG_CHECK_SM90_STEP(step4::sm90, "step4", 1, step4::sm90::Smem);
  HG_CHECK_SM90_STEP(step5::sm90, "step5 depth 2", 2, step5::sm90::Smem<2>);
  HG_CHECK_SM90_STEP(step5::sm90, "step5 depth 3", 3, step5::sm90::Smem<3>);
  HG_CHECK_SM90_STEP(step5::sm90, "step5 depth 4", 4, step5::sm90::Smem<4>);
  HG_CHECK_SM90_STEP(step6::sm90, "step6 depth 2", 2, step6::sm90::Smem<2>);
  HG_CHECK_SM90_STEP(step6::sm90, "step6 depth 3", 3, step6::sm90::Smem<3>);
  HG_CHECK_SM90_STEP(step6::sm90, "step6 depth 4", 4, step6::sm90::Smem<4>);
  HG_CHECK_SM90_STEP(step7::sm90, "step7 depth 2", 2, step7::sm90::Smem<2>);
  HG_CHECK_SM90_STEP(step7::sm90, "step7 depth 3", 3, step7::sm90::Smem<3>);
  HG_CHECK_SM90_STEP(step7::sm90, "step7 depth 4", 4, step7::sm90::Smem<4>);
  HG_CHECK_SM90_STEP(step7::sm90, "step7 depth 5", 5, step7::sm90::Smem<5>);
  // Step 8: the B tile of a stage is two multicast halves of 64 rows; the descriptor spans both, as in step 7.
  HG_CHECK_SM90_STEP(step8::sm90, "step8 depth 2", 2, step8::sm90::Smem<2>);
  HG_CHECK_SM90_STEP(step8::sm90, "step8 depth 3", 3, step8::sm90::Smem<3>);
  HG_CHECK_SM90_STEP(step8::sm90, "step8 depth 4", 4, step8::sm90::Smem<4>);
  HG_CHECK_SM90_STEP(step8::sm90, "step8 depth 5", 5, step8::sm90::Smem<5>);
  // Step 9: consumer c reads the 64-row half c of the A tile; both read the whole 256-row B tile (N = 256).
#define HG_CHECK_STEP9(D)                                                                                     \
  check_sm90_descs<step9::sm90::BLK_M, step9::sm90::WGMMA_M, step9::sm90::BLK_K, step9::sm90::WGMMA_K, D>(    \
      "step9 depth " #D " A", offsetof(step9::sm90::Smem<D>, A), sizeof(step9::sm90::Smem<D>::A) / D);        \
  check_sm90_descs<step9::sm90::BLK_N, step9::sm90::BLK_N, step9::sm90::BLK_K, step9::sm90::WGMMA_K, D>(      \
      "step9 depth " #D " B", offsetof(step9::sm90::Smem<D>, B), sizeof(step9::sm90::Smem<D>::B) / D)
  HG_CHECK_STEP9(2);
  HG_CHECK_STEP9(3);
  HG_CHECK_STEP9(4);
#undef HG_CHECK_STEP9
}

TEST_CASE("cutlass: the 128B swizzle equals CuTe's swizzled K-major layout for every element of a tile") {
  using namespace cute;
  // Operand tiles (128 x 64) and the D staging boxes (128 rows x 64 columns) share this layout.
  const auto layout = tile_to_shape(UMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_128, _64>{});
  const auto tile = make_tensor(make_smem_ptr(at(0x400)), layout);
  using SwizzledPtr = std::decay_t<decltype(tile.data())>;  // swizzle_ptr<Swizzle<3,4,3>, smem_ptr<half_t*>>
  int mismatches = 0;
  for (int r = 0; r < 128; ++r)
    for (int k = 0; k < 64; ++k) {
      // CuTe: the element's offset in the tile's (unswizzled) layout, then the swizzle that the tile's pointer
      // applies to the byte address (CuTe keeps a smem tile's swizzle in its pointer).
      const half_t* p = SwizzledPtr::apply_swizzle(raw_pointer_cast(tile.data()) + tile.layout()(r, k));
      mismatches += addr_of(p) - 0x400 != hg::swizzle128b_offset(uint32_t(r), uint32_t(k));
    }
  CHECK(mismatches == 0);
  CHECK(Swizzle<3, 4, 3>{}(1 * 128 + 8 * 2) == int(hg::swizzle128b_offset(1, 8)));  // row 1, chunk 1 -> 0
}

TEST_CASE("cutlass: tcgen05.ld 32x32b gives thread t row t, register j column j (CuTe's TMEM load atom)") {
  using namespace cute;
  // The Blackwell epilogue loads BLK_N = 128 columns at once: the .x128 atom, 128 registers per thread.
  using Atom = SM100_TMEM_LOAD_32dp32b128x;
  static_assert(sizeof(Atom::DRegisters) / sizeof(uint32_t) == step1::sm100::BLK_N);
  // DstLayout: (thread of the warp, bit of its registers) -> bit of the 32-lane x 128-column tile, lane-major.
  const auto dst = typename Copy_Traits<Atom>::DstLayout{};
  int mismatches = 0;
  for (int t = 0; t < 128; ++t)
    for (int reg = 0; reg < 128; ++reg) {
      const int bit = dst(t % 32, 32 * reg);
      const int lane = 32 * (t / 32) + bit / (128 * 32), col = (bit % (128 * 32)) / 32;  // warp w's window
      const hg::AccCoord ours = hg::tmem_ld_32x32b_owner(t, reg);
      mismatches += ours.row != lane || ours.col != col;
    }
  CHECK(mismatches == 0);
}

TEST_CASE("cutlass: the wgmma m64n128k16 accumulator fragment equals GMMA::CLayout_64xN") {
  using namespace cute;
  // CLayout: (thread of the warpgroup, register) -> element of the 64 x N accumulator, column-major.
  const auto c = GMMA::CLayout_64xN<step1::sm90::BLK_N>{};
  static_assert(size(GMMA::CLayout_64xN<step1::sm90::BLK_N>{}) == 128 * 64);
  int mismatches = 0;
  for (int t = 0; t < 128; ++t)
    for (int reg = 0; reg < 64; ++reg) {
      const int idx = c(t, reg);
      const hg::AccCoord ours = hg::wgmma_m64nNk16_acc_owner(t, reg);
      mismatches += ours.row != idx % 64 || ours.col != idx / 64;
    }
  CHECK(mismatches == 0);
}
