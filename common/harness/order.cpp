// common/harness/order.cpp: the balanced order of the interleaved rounds (see order.hpp).
//
// The GPU runs the rounds back to back, so the turn that opens a round follows the turn that closed the round
// before: the clock and power state a kernel's turn starts from is whatever the turn before it left, inside
// a round or across its start. The construction balances both.
//
// Kernel 0 opens every round. The other N = n - 1 kernels follow in the order of one row of a balanced Latin
// square (E. J. Williams, "Experimental designs balanced for the estimation of residual effects of treatments",
// Australian Journal of Scientific Research A 2:149-168, 1949): row c is 0, 1, N-1, 2, N-2, 3, ... plus c,
// modulo N. The first row's steps, +1, -2, +3, -4, ..., are the N - 1 nonzero residues once each when N is
// even, so its N shifted rows hold every ordered pair (x, y), x != y, once as neighbours. When N is odd they
// are half of the nonzero residues twice each, the mirrored rows' steps the other half, so the N rows and
// their mirror images hold every ordered pair twice.
//
// With kernel 0 first, a round and the step into the next round are a closed tour of all n kernels. Besides
// the row's own neighbours it adds (0, the row's first) and (the row's last, 0), and the rows' first and last
// entries run over every kernel equally often. So over one cycle (N rounds for odd n, 2N for even n) every
// ordered pair (a, b), a != b, occurs exactly once (odd n) or twice (even n), round boundaries counted, and no
// kernel follows itself. Counting only the pairs inside rounds would not be balanced (nothing precedes kernel
// 0 within a round), and would not need to be: nothing happens between rounds. For even n a cycle of n - 1
// rounds would need the complete directed graph split into directed Hamiltonian cycles, which does not exist
// for n = 4 and 6 (T. W. Tillson, "A Hamiltonian decomposition of K*_2m, 2m >= 8", Journal of Combinatorial
// Theory B 29:68-74, 1980); the doubled cycle keeps one construction for all n. Up to two kernels need
// nothing: 0, 1, 0, 1, ... already has each follow the other.
//
// A number of rounds R = q * cycle + p that is not a multiple of the cycle: every round contributes n distinct
// pairs and a cycle each pair lambda times (1 for odd n, 2 for even n), so the p rounds past the last whole
// cycle add at most lambda to any pair: each pair occurs q * lambda to (q + 1) * lambda times, whatever R.
// The benchmarks run 20 rounds by default (--rounds, not rounded to whole cycles: the output says how even
// the run was, order_note). 9 kernels (a cycle of 8): each pair 2 or 3 times, as even as 20 turns over 8
// predecessors can be; 6 kernels (a cycle of 10): exactly 4; a verify binary's --bench, 2 kernels: exact.
#include "common/harness/order.hpp"

#include <algorithm>
#include <stdexcept>

namespace hg {
namespace {

void check_count(int kernels, const char* what) {
  if (kernels < 0)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(kernels) +
                                " kernels (the count must be 0 or more)");
}

}  // namespace

int order_cycle(int kernels) {
  check_count(kernels, "order_cycle");
  const int rest = kernels - 1;  // the kernels after kernel 0
  if (rest <= 1) return 1;
  return rest % 2 == 0 ? rest : 2 * rest;
}

std::vector<int> round_order(int kernels, int round) {
  check_count(kernels, "round_order");
  if (round < 0) throw std::invalid_argument("round_order: round " + std::to_string(round) + " (must be 0 or more)");
  std::vector<int> order(static_cast<size_t>(kernels));
  for (int i = 0; i < kernels; ++i) order[size_t(i)] = i;
  const int rest = kernels - 1;
  if (rest <= 1) return order;
  const int r = round % order_cycle(kernels);
  const int shift = r % rest;     // which row of the square
  const bool mirror = r >= rest;  // odd rest: the second half of the cycle runs the mirrored rows
  for (int j = 0; j < rest; ++j) {
    const int first_row = j % 2 == 1 ? (j + 1) / 2 : (rest - j / 2) % rest;
    order[size_t(mirror ? rest - j : 1 + j)] = 1 + (first_row + shift) % rest;
  }
  return order;
}

int turn_before(int kernels, int round, int position) {
  if (kernels < 1 || position < 0 || position >= kernels)
    throw std::invalid_argument("turn_before: position " + std::to_string(position) + " of " +
                                std::to_string(kernels) + " kernels (must be 0 to kernels - 1)");
  if (position > 0) return round_order(kernels, round)[size_t(position - 1)];
  const int cycle = order_cycle(kernels);
  return round_order(kernels, ((round - 1) % cycle + cycle) % cycle).back();
}

FollowCounts follow_counts(int kernels, int rounds) {
  check_count(kernels, "follow_counts");
  const size_t n = size_t(kernels);
  std::vector<int> count(n * n, 0);  // [a][b]: b's turn right after a's
  for (int r = 0; r < rounds; ++r) {
    const std::vector<int> order = round_order(kernels, r);
    for (int p = 0; p < kernels; ++p) ++count[size_t(turn_before(kernels, r, p)) * n + size_t(order[size_t(p)])];
  }
  FollowCounts f;
  bool first = true;
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      const int c = count[a * n + b];
      if (a == b) {
        f.self += c;
      } else {
        f.least = first ? c : std::min(f.least, c);
        f.most = first ? c : std::max(f.most, c);
        first = false;
      }
    }
  return f;
}

std::string order_note(int kernels, int rounds) {
  if (kernels < 2) return "one kernel: no order to balance";
  const int cycle = order_cycle(kernels);
  const FollowCounts f = follow_counts(kernels, rounds);
  std::string note = std::string("balanced order (") +
                     (cycle == 1 ? "the same every round" : "repeats every " + std::to_string(cycle) + " rounds") +
                     "): in " + std::to_string(rounds) + (rounds == 1 ? " round" : " rounds") +
                     " each turn follows each other kernel's ";
  if (f.least == f.most) return note + (f.most == 1 ? "once" : std::to_string(f.most) + " times");
  return note + std::to_string(f.least) + " to " + std::to_string(f.most) + " times (exact in multiples of " +
         std::to_string(cycle) + " rounds)";
}

}  // namespace hg
