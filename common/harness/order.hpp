// common/harness/order.hpp: the order in which the interleaved rounds of the timing (time_interleaved,
// harness.cuh) run the kernels, balanced so that every kernel's turn follows every other kernel's
// equally often. Host code only, so that the CPU tests run it.
#pragma once

#include <string>
#include <vector>

namespace hg {

/// Rounds after which round_order repeats for `kernels` kernels: 1 for up to two kernels, kernels - 1 for an
/// odd count, 2 * (kernels - 1) for an even count of four or more.
int order_cycle(int kernels);

/// The kernels 0 .. kernels-1 in the order they take their turns in round `round` (>= 0; every round is a
/// permutation, kernel 0 first). Throws std::invalid_argument for a negative count or round.
std::vector<int> round_order(int kernels, int round);

/// The kernel whose turn runs just before the turn at `position` of round `round`: the one before it in the
/// round, or for the round's first turn the last of the round before. Round 0's first turn follows the last
/// kernel of the cycle's last round: the warm-up runs in that round's order.
int turn_before(int kernels, int round, int position);

/// How often, over rounds 0 .. rounds-1, a turn of kernel b directly follows a turn of kernel a (turn_before):
/// the least and the most over all ordered pairs a != b, and how many turns follow their own kernel's.
struct FollowCounts {
  int least = 0, most = 0, self = 0;
};
FollowCounts follow_counts(int kernels, int rounds);

/// One sentence for a benchmark's output: the order, its cycle and how evenly `rounds` rounds spread each
/// kernel's predecessors ("each turn follows each other kernel's 2 to 3 times (exact in multiples of 8 rounds)").
std::string order_note(int kernels, int rounds);

}  // namespace hg
