// docs/figures/figures.hpp: every figure and table of the documentation, one function each, defined in the
// file of the page that shows it. A figure draws into an Svg, a table writes HTML; each checks what it shows
// against the code first and returns false (after saying why) if the check fails.
#pragma once

#include <string>

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
// docs/step7_warp_specialized.md (step7_timeline.cpp)
bool draw_step7_timeline(Svg& svg);

}  // namespace hg::figures
