// common/pipe_depths.hpp: the ring depths (PIPE_DEPTH) each step with a shared-memory ring accepts, its default
// first. Read by the step's verify binary (--pipe-depth, its --help) and by the benchmark ladder
// (tools/hgemm_bench.cu times every step at its default), so the two cannot disagree. Each list is what the
// step's prepare() instantiates; the default is the depth the step's page and the ladder's results use.
#pragma once

#include <vector>

namespace hg::pipe_depths {

inline std::vector<int> step5() { return {2, 3, 4}; }
inline std::vector<int> step6() { return {2, 3, 4}; }
inline std::vector<int> step7() { return {4, 2, 3, 5}; }
inline std::vector<int> step8() { return {4, 2, 3, 5}; }
inline std::vector<int> step9() { return {4, 2, 3}; }  // 5 stages of 48 KiB do not fit

}  // namespace hg::pipe_depths
