// docs/figures/step8_pair.cu: step 8's CTA pair on both architectures (docs/step8_cluster.md): which CTA loads
// what into which shared memory, and which barriers the other CTA signals. Every size and count drawn is read
// from the kernels' constants (this file includes step8_cluster's headers, so it is compiled by nvcc, host code
// only), and the figure checks them against each other before it draws.
#include <cstdio>
#include <string>

#include "docs/figures/figures.hpp"
#include "docs/figures/svg.hpp"
#include "step8_cluster/hgemm_sm100.cuh"
#include "step8_cluster/hgemm_sm90.cuh"

namespace hg::figures {

namespace {

namespace hop = step8::sm90;
namespace bw = step8::sm100;

const char* const kCta[2] = {"#9ecae1", "#fdae6b"};      // what CTA 0 / CTA 1 loaded
const char* const kCtaLine[2] = {"#3182bd", "#e6550d"};
const char* const kBarColor = "#38761d";                  // arrivals and byte counts on a barrier
const char* const kRemote = "#674ea7";                    // what crosses the pair

std::string kib(int bytes) { return str(bytes / 1024) + " KiB"; }

/// One CTA's stage: an A part and a B tile made of `b_parts` parts, part p loaded by CTA owner(p). Returns
/// the x of the B tile's parts' centres through `b_centre`.
void stage_box(Svg& svg, double x, double y, int rank, const std::string& a_label, int b_parts,
               const std::string b_labels[], const int b_owner[], double b_centre[]) {
  svg.rect(x, y, 420, 160, "#ffffff", "#57606a", 1.2);
  svg.text(x + 8, y + 16, "CTA " + str(rank) + (rank == 0 ? " (rank 0, the leader)" : " (rank 1)") +
                              ": stage s of its shared memory", 11, "start", kBold);
  svg.rect(x + 10, y + 26, 160, 60, kCta[rank], kCtaLine[rank], 1);
  svg.text(x + 90, y + 52, "A", 12, "middle", kBold);
  svg.text(x + 90, y + 68, a_label, 10, "middle");
  const double w = 220.0 / b_parts;
  for (int p = 0; p < b_parts; ++p) {
    const double bx = x + 190 + p * w;
    svg.rect(bx, y + 26, w - 4, 60, kCta[b_owner[p]], kCtaLine[b_owner[p]], 1);
    svg.text(bx + (w - 4) / 2, y + 52, b_parts == 1 ? "B" : "B, part " + str(p), 11, "middle", kBold);
    svg.text(bx + (w - 4) / 2, y + 68, b_labels[p], 10, "middle");
    b_centre[p] = bx + (w - 4) / 2;
  }
}

}  // namespace

bool draw_step8_pair(Svg& svg) {
  // --- What the kernels' constants must satisfy for the picture to be true --------------------------------
  const int hop_a = hop::BLK_M * hop::BLK_K * 2, hop_half = hop::B_ROWS * hop::BLK_K * 2;
  const int bw_a = bw::kATileBytes, bw_b = bw::kBTileBytes;  // a CTA's A part and its B part: 128 rows x 64 K
  struct Check {
    bool ok;
    const char* what;
  } checks[] = {
      {2 * hop::B_ROWS == hop::BLK_N, "Hopper: the two halves of B make the tile"},
      {int(hop::kTmaBytes) == hop_a + 2 * hop_half, "Hopper: full_bar counts the own A and both halves of B"},
      {int(hop::kOwnBytes) == hop_a + hop_half, "Hopper: the own loads are A and one half"},
      {int(hop::kEmptyArrivals) == 2, "Hopper: empty_bar counts one consumer of each CTA"},
      {hop::kPairMask == 0x3 && bw::kPairMask == 0x3, "the multicast masks name both CTAs"},
      {bw::MMA_M == 2 * bw::BLK_M, "Blackwell: the pair MMA's rows are both CTAs' A"},
      {2 * bw::B_ROWS == bw::BLK_N && bw::B_ROWS == bw::BLK_M, "Blackwell: each CTA loads half of B, 128 rows"},
      {int(bw::kPairTmaBytes) == 2 * (bw_a + bw_b), "Blackwell: the leader's full_bar counts both CTAs"},
      {int(bw::kAccEmptyArrivals) == 2 * int(bw::kEpilogueThreads), "Blackwell: acc_empty counts both epilogues"},
  };
  for (const Check& c : checks)
    if (!c.ok) {
      std::fprintf(stderr, "step 8 pair figure: %s does not hold\n", c.what);
      return false;
    }

  svg.text(16, 24, "Step 8: one stage s of the CTA pair, who loads what, and which barriers the other CTA signals", 15,
           "start", kBold);
  // --- Hopper --------------------------------------------------------------------------------------------
  double y = 50;
  svg.text(16, y, "Hopper (hgemm_sm90.cuh): both CTAs read the same 128 rows of B; CTA r multicasts its " +
                      str(hop::B_ROWS) + "-row part into both", 13, "start", kBold);
  const std::string hb[2] = {"rows 0-" + str(hop::B_ROWS - 1) + ", " + kib(hop_half),
                             "rows " + str(hop::B_ROWS) + "-" + str(hop::BLK_N - 1) + ", " + kib(hop_half)};
  const int owner[2] = {0, 1};
  double c0[2], c1[2];
  const double ys = y + 14;
  stage_box(svg, 16, ys, 0, "its own 128 rows, " + kib(hop_a), 2, hb, owner, c0);
  stage_box(svg, 560, ys, 1, "its own 128 rows, " + kib(hop_a), 2, hb, owner, c1);
  // The multicast: CTA 0's part 0 also lands in CTA 1, CTA 1's part 1 also lands in CTA 0.
  arrow(svg, c0[0], ys + 88, c1[0], ys + 88, kRemote);
  svg.text((c0[0] + c1[0]) / 2, ys + 100, "CTA 0's part 0, multicast (mask 0b11)", 10, "middle", "", kRemote);
  arrow(svg, c1[1], ys + 112, c0[1], ys + 112, kRemote);
  svg.text((c0[1] + c1[1]) / 2, ys + 124, "CTA 1's part 1, multicast", 10, "middle", "", kRemote);
  for (int r = 0; r < 2; ++r) {
    const double x = r == 0 ? 16 : 560;
    svg.text(x + 8, ys + 152, "full_bar[s]: " + str(int(hop::kTmaBytes)) + " bytes (" + kib(hop_a) + " + 2 x " +
                                  kib(hop_half) + ", " + kib(hop_half) + " sent by the peer); empty_bar[s]: " +
                                  str(int(hop::kEmptyArrivals)) + " arrivals",
             9.5, "start", "", kBarColor);
  }
  svg.text(16, ys + 182, "A consumer that has read stage s arrives on empty_bar[s] of its own CTA and, through mapa, on "
                         "the peer's: the peer's producer multicasts into this stage too.",
           11, "start", "", kRemote);

  // --- Blackwell -----------------------------------------------------------------------------------------
  y = ys + 214;
  svg.text(16, y, "Blackwell (hgemm_sm100.cuh): one " + str(bw::MMA_M) + " x " + str(bw::BLK_N) +
                      " MMA (cta_group::2), issued by the leader, reads both CTAs' shared memory", 13, "start", kBold);
  const double yb = y + 14;
  const std::string bb0[1] = {"pair's rows 0-" + str(bw::B_ROWS - 1) + ", " + kib(bw_b)};
  const std::string bb1[1] = {"pair's rows " + str(bw::B_ROWS) + "-" + str(bw::BLK_N - 1) + ", " + kib(bw_b)};
  const int own0[1] = {0}, own1[1] = {1};
  double d0[1], d1[1];
  stage_box(svg, 16, yb, 0, "pair's rows 0-" + str(bw::BLK_M - 1) + ", " + kib(bw_a), 1, bb0, own0, d0);
  stage_box(svg, 560, yb, 1, "pair's rows " + str(bw::BLK_M) + "-" + str(bw::MMA_M - 1) + ", " + kib(bw_a), 1,
            bb1, own1, d1);
  arrow(svg, 560 + 90, yb + 100, 16 + 300, yb + 100, kRemote, true);
  svg.text(440, yb + 96, "CTA 1's loads count their bytes on the leader's full_bar (.cta_group::2)", 10, "middle", "",
           kRemote);
  arrow(svg, 16 + 330, yb + 118, 560 + 200, yb + 118, kRemote);
  svg.text(560, yb + 134, "the leader's MMA reads CTA 1's stage and writes CTA 1's TMEM too", 10, "middle", "",
           kRemote);
  svg.text(24, yb + 152, "full_bar[s]: " + str(int(bw::kPairTmaBytes)) + " bytes, both CTAs' (only the leader's is "
                         "waited on); empty_bar[s]: 1 multicast commit", 9.5, "start", "", kBarColor);
  svg.text(568, yb + 152, "empty_bar[s]: the same commit; its " + str(int(bw::kEpilogueThreads)) +
                          " epilogue threads arrive on the leader's acc_empty", 9.5, "start", "", kBarColor);
  svg.text(16, yb + 182, "The leader's commit multicasts (mask 0b11) to empty_bar and acc_full of both CTAs; the "
                         "leader's acc_empty counts " + str(int(bw::kAccEmptyArrivals)) +
                         " arrivals, every epilogue thread of both CTAs.",
           11, "start", "", kRemote);
  svg.text(16, yb + 204, "Colours: what CTA 0 (blue) and CTA 1 (orange) loaded; purple: what crosses the pair; green: "
                         "what the barriers count. Sizes and counts are the kernels' constants.",
           11, "start", "", kGrey);
  svg.size(1000, yb + 220);
  return true;
}

}  // namespace hg::figures
