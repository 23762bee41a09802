// docs/figures/figures.hpp: every figure and table of the documentation, one function each, defined in the
// file of the page that shows it, and the lists of them that main.cpp writes and tests/test_figures.cpp runs.
// A figure draws into an Svg, a table writes HTML; each checks what it shows against the code first and returns
// false (after saying why) if the check fails.
#pragma once

#include <string>
#include <vector>

#include "common/kernel/tile_choice.hpp"

namespace hg::figures {

class Svg;

// docs/concept_swizzle.md (swizzle.cpp)
bool draw_swizzle128b_atom(Svg& svg);
// docs/concept_tmem_vs_registers.md (accumulators.cpp)
bool draw_tmem_vs_wgmma_fragment(Svg& svg);
// docs/concept_mbarrier_phases.md (phases.cpp)
bool draw_phase_kloop_timeline(Svg& svg);
bool draw_phase_ring_timeline(Svg& svg);
bool table_phase_kloop(std::string& html);
bool table_phase_kloop_noflip(std::string& html);
bool table_phase_ring(std::string& html);
bool table_phase_ring_noflip(std::string& html);
bool table_phase_persistent(std::string& html);
bool table_phase_persistent_state(std::string& html);
bool table_phase_persistent_sweep(std::string& html);
bool table_phase_parity_rule(std::string& html);
bool table_phase_kloop_timed(std::string& html);
bool table_phase_ring_noflip_timed(std::string& html);
bool table_phase_persistent_reset_timed(std::string& html);
bool table_phase_short_expect_tx(std::string& html);
// docs/concept_tile_order.md (tile_order.cpp)
bool draw_tile_order(Svg& svg);
bool table_tile_order_first(std::string& html);
bool table_tile_order_bands(std::string& html);
// docs/step4_tma.md (step4_tma_box.cu: compiled by nvcc, it reads the kernel's constants)
bool draw_step4_tma_box(Svg& svg);
// docs/step7_warp_specialized.md (step7_timeline.cpp)
bool draw_step7_timeline(Svg& svg);
// docs/step8_cluster.md (step8_pair.cu: compiled by nvcc, it reads the kernels' constants)
bool draw_step8_pair(Svg& svg);
// docs/step9_multi_consumer.md (step9_epilogue.cpp)
bool draw_step9_epilogue(Svg& svg);
bool draw_step9_ownership(Svg& svg);  // step9_ownership.cu: compiled by nvcc, it reads the kernels' constants
bool draw_step9_ownership_sm100(Svg& svg);  // the same file, Blackwell
/// What step 9's Blackwell figure draws from, for its test (a .cpp cannot include the kernel's header): the pair's
/// CTAs and step9::sm100's kConsumers, BLK_M, BLK_N, MMA_M, CLUSTER_TILE_M, B_ROWS and kTmemCols.
struct Step9Sm100FigureInputs {
  int ctas, consumers, blk_m, blk_n, mma_m, cluster_tile_m, b_rows, tmem_cols;
};
Step9Sm100FigureInputs step9_sm100_figure_inputs();
// docs/step10_stream_k.md (step10_stream_k.cpp)
bool draw_step10_workers(Svg& svg);
bool draw_step10_fixup_timeline(Svg& svg);
// docs/step11_fitted_tile.md (step11_fitted_tile.cu: compiled by nvcc, it reads the kernel's menu)
bool draw_step11_tile_choice(Svg& svg);
/// What step 11's figure forecasts with, for its test (a .cpp cannot include the kernel's header): the menu
/// step11::sm90::kTiles and the H200's pairs.
struct Step11FigureInputs {
  std::vector<TileOption> menu;
  int pairs;
};
Step11FigureInputs step11_figure_inputs();

// ------------------------------------------------------------------------------------------------------
// The figures, in the order they are written.
// ------------------------------------------------------------------------------------------------------
struct Figure {
  const char* file;
  bool (*draw)(Svg&);
};

inline const Figure kFigures[] = {
    {"swizzle128b_atom.svg", draw_swizzle128b_atom},
    {"tmem_vs_wgmma_fragment.svg", draw_tmem_vs_wgmma_fragment},
    {"phase_kloop_timeline.svg", draw_phase_kloop_timeline},
    {"phase_ring_timeline.svg", draw_phase_ring_timeline},
    {"tile_order.svg", draw_tile_order},
    {"step4_tma_box.svg", draw_step4_tma_box},
    {"step7_timeline.svg", draw_step7_timeline},
    {"step8_pair.svg", draw_step8_pair},
    {"step9_epilogue.svg", draw_step9_epilogue},
    {"step9_ownership.svg", draw_step9_ownership},
    {"step9_ownership_sm100.svg", draw_step9_ownership_sm100},
    {"step10_workers.svg", draw_step10_workers},
    {"step10_fixup_timeline.svg", draw_step10_fixup_timeline},
    {"step11_tile_choice.svg", draw_step11_tile_choice},
};

// The tables, as HTML fragments.
struct Fragment {
  const char* file;
  bool (*write)(std::string&);
};

inline const Fragment kFragments[] = {
    {"phase_kloop.html", table_phase_kloop},
    {"phase_kloop_noflip.html", table_phase_kloop_noflip},
    {"phase_ring.html", table_phase_ring},
    {"phase_ring_noflip.html", table_phase_ring_noflip},
    {"phase_persistent.html", table_phase_persistent},
    {"phase_persistent_state.html", table_phase_persistent_state},
    {"phase_persistent_sweep.html", table_phase_persistent_sweep},
    {"phase_parity_rule.html", table_phase_parity_rule},
    {"phase_kloop_timed.html", table_phase_kloop_timed},
    {"phase_ring_noflip_timed.html", table_phase_ring_noflip_timed},
    {"phase_persistent_reset_timed.html", table_phase_persistent_reset_timed},
    {"phase_short_expect_tx.html", table_phase_short_expect_tx},
    {"tile_order_first.html", table_tile_order_first},
    {"tile_order_bands.html", table_tile_order_bands},
};

}  // namespace hg::figures
