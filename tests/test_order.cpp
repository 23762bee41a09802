// tests/test_order.cpp: the balanced order of the timing's interleaved rounds (common/harness/order.hpp).
// The counts are taken here from round_order alone, the way the GPU runs the rounds (back to back, round 0
// after the warm-up in the cycle's last order), not from follow_counts, which is checked against them.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

#include "common/harness/order.hpp"

namespace {

using OrderFn = std::function<std::vector<int>(int kernels, int round)>;

/// follows[a][b]: how often b's turn directly follows a's in rounds 0 .. rounds-1 of `order`, the turn before
/// round 0 being the last of round `cycle` - 1 (where the warm-up leaves off); `inside` counts only pairs
/// within a round.
struct Follows {
  std::vector<std::vector<int>> all, inside;
};
Follows count_follows(const OrderFn& order, int n, int rounds, int cycle) {
  Follows f{std::vector<std::vector<int>>(size_t(n), std::vector<int>(size_t(n), 0)), {}};
  f.inside = f.all;
  int prev = order(n, cycle - 1).back();
  for (int r = 0; r < rounds; ++r) {
    const std::vector<int> o = order(n, r);
    for (size_t p = 0; p < o.size(); ++p) {
      ++f.all[size_t(prev)][size_t(o[p])];
      if (p > 0) ++f.inside[size_t(prev)][size_t(o[p])];
      prev = o[p];
    }
  }
  return f;
}

/// The least and the most of counts[a][b] over a != b (and over a, b > 0 with `skip_first`), and the
/// total of the diagonal.
hg::FollowCounts spread(const std::vector<std::vector<int>>& counts, bool skip_first = false) {
  hg::FollowCounts s{1 << 30, 0, 0};
  for (size_t a = 0; a < counts.size(); ++a)
    for (size_t b = 0; b < counts.size(); ++b) {
      if (a == b) {
        s.self += counts[a][b];
      } else if (!skip_first || (a > 0 && b > 0)) {
        s.least = std::min(s.least, counts[a][b]);
        s.most = std::max(s.most, counts[a][b]);
      }
    }
  return s;
}

bool is_permutation_of_kernels(const std::vector<int>& o, int n) {
  std::vector<int> sorted = o;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i)
    if (sorted.size() != size_t(n) || sorted[size_t(i)] != i) return false;
  return sorted.size() == size_t(n);
}

/// How often each ordered pair occurs over a whole cycle: once for odd n (a cycle of n - 1 rounds), twice
/// for even n > 2 (2(n - 1) rounds), once for n = 2 (one round, 0, 1, 0, 1, ...).
int per_cycle(int n) { return n % 2 == 0 && n > 2 ? 2 : 1; }

}  // namespace

TEST_CASE("round_order: every round is a permutation of the kernels, and the orders repeat every cycle") {
  for (int n = 0; n <= 12; ++n) {
    const int cycle = hg::order_cycle(n);
    CHECK(cycle == (n <= 2 ? 1 : n % 2 == 1 ? n - 1 : 2 * (n - 1)));
    for (int r = 0; r < 3 * cycle + 2; ++r) {
      CAPTURE(n);
      CAPTURE(r);
      const std::vector<int> o = hg::round_order(n, r);
      CHECK(is_permutation_of_kernels(o, n));
      CHECK(o == hg::round_order(n, r % cycle));
      if (n > 0) CHECK(o.front() == 0);
    }
  }
}

TEST_CASE("round_order: over one cycle every kernel's turn follows every other kernel's equally often") {
  for (int n = 2; n <= 12; ++n) {
    CAPTURE(n);
    const int cycle = hg::order_cycle(n);
    const Follows f = count_follows(hg::round_order, n, cycle, cycle);
    // Round boundaries counted (the GPU runs the rounds back to back): exact, and nobody follows itself.
    const hg::FollowCounts all = spread(f.all);
    CHECK(all.least == per_cycle(n));
    CHECK(all.most == per_cycle(n));
    CHECK(all.self == 0);
    // Inside the rounds, among the kernels after the first: the Williams square's own balance.
    if (n > 2) {
      const hg::FollowCounts square = spread(f.inside, true);
      CHECK(square.least == per_cycle(n));
      CHECK(square.most == per_cycle(n));
    }
    // follow_counts, which the benchmarks print, agrees.
    const hg::FollowCounts reported = hg::follow_counts(n, cycle);
    CHECK(reported.least == all.least);
    CHECK(reported.most == all.most);
    CHECK(reported.self == 0);
  }
  CHECK(hg::follow_counts(1, 5).self == 5);  // one kernel can only follow itself
}

TEST_CASE("round_order: the balance check fails on the old order, every round 0, 1, ..., n-1") {
  const OrderFn constant = [](int n, int) {
    std::vector<int> o(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) o[size_t(i)] = i;
    return o;
  };
  for (int n = 3; n <= 12; ++n) {
    CAPTURE(n);
    const int cycle = hg::order_cycle(n);
    const hg::FollowCounts s = spread(count_follows(constant, n, cycle, cycle).all);
    CHECK(s.least == 0);      // k never follows anyone but k - 1
    CHECK(s.most == cycle);  // and follows k - 1 every round
  }
}

TEST_CASE("round_order: a partial cycle spreads each pair's count by at most one (odd n) or two (even n)") {
  for (int n = 2; n <= 12; ++n) {
    const int cycle = hg::order_cycle(n);
    for (int rounds = 1; rounds <= 3 * cycle + 1; ++rounds) {
      CAPTURE(n);
      CAPTURE(rounds);
      const hg::FollowCounts s = spread(count_follows(hg::round_order, n, rounds, cycle).all);
      const int whole = rounds / cycle;
      CHECK(s.least >= whole * per_cycle(n));
      CHECK(s.most <= (whole + 1) * per_cycle(n));
      CHECK(s.self == 0);
      const hg::FollowCounts reported = hg::follow_counts(n, rounds);
      CHECK(reported.least == s.least);
      CHECK(reported.most == s.most);
    }
  }
  // The benchmarks' defaults: 20 rounds of 9 kernels (the ladder's steps and cuBLAS) or of 6 (the dips lab's
  // variants and cuBLAS), and a verify binary's --bench, 2 kernels in 10 rounds.
  const hg::FollowCounts ladder = hg::follow_counts(9, 20), dips = hg::follow_counts(6, 20),
                         verify = hg::follow_counts(2, 10);
  CHECK(ladder.least == 2);
  CHECK(ladder.most == 3);
  CHECK(dips.least == 4);
  CHECK(dips.most == 4);
  CHECK(verify.least == 10);
  CHECK(verify.most == 10);
}

TEST_CASE("round_order: the orders themselves, round 0 and one whole cycle of four kernels") {
  CHECK(hg::round_order(1, 0) == std::vector<int>{0});
  CHECK(hg::round_order(2, 0) == std::vector<int>{0, 1});
  CHECK(hg::round_order(3, 0) == std::vector<int>{0, 1, 2});
  CHECK(hg::round_order(3, 1) == std::vector<int>{0, 2, 1});
  CHECK(hg::round_order(5, 0) == std::vector<int>{0, 1, 2, 4, 3});
  CHECK(hg::round_order(6, 0) == std::vector<int>{0, 1, 2, 5, 3, 4});
  CHECK(hg::round_order(9, 0) == std::vector<int>{0, 1, 2, 8, 3, 7, 4, 6, 5});
  // Four kernels: the three after kernel 0 run the rows of the 3 x 3 square, then the rows mirrored.
  const std::vector<std::vector<int>> four = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2},
                                              {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}};
  REQUIRE(hg::order_cycle(4) == int(four.size()));
  for (int r = 0; r < 6; ++r) CHECK(hg::round_order(4, r) == four[size_t(r)]);
}

TEST_CASE("turn_before: the previous turn in the round, across rounds, and before round 0 the warm-up's last") {
  CHECK(hg::turn_before(4, 0, 2) == 1);  // round 0: 0, 1, [2], 3
  CHECK(hg::turn_before(4, 2, 0) == 1);  // round 1: 0, 2, 3, 1
  CHECK(hg::turn_before(4, 0, 0) == 3);  // round 5, the cycle's last (and the warm-up's order): 0, 2, 1, 3
  CHECK(hg::turn_before(4, 6, 0) == 3);
  CHECK(hg::turn_before(2, 0, 0) == 1);
  CHECK(hg::turn_before(1, 7, 0) == 0);
  CHECK_THROWS_AS(hg::turn_before(4, 0, 4), std::invalid_argument);
  CHECK_THROWS_AS(hg::turn_before(0, 0, 0), std::invalid_argument);
  CHECK_THROWS_AS(hg::round_order(-1, 0), std::invalid_argument);
  CHECK_THROWS_AS(hg::round_order(3, -1), std::invalid_argument);
}

TEST_CASE("order_note: the line the benchmarks print") {
  CHECK(hg::order_note(9, 20) == "balanced order (repeats every 8 rounds): in 20 rounds each turn follows each "
                                 "other kernel's 2 to 3 times (exact in multiples of 8 rounds)");
  CHECK(hg::order_note(6, 20) == "balanced order (repeats every 10 rounds): in 20 rounds each turn follows each "
                                 "other kernel's 4 times");
  CHECK(hg::order_note(2, 10) == "balanced order (the same every round): in 10 rounds each turn follows each "
                                 "other kernel's 10 times");
  CHECK(hg::order_note(3, 1) == "balanced order (repeats every 2 rounds): in 1 round each turn follows each "
                                "other kernel's 0 to 1 times (exact in multiples of 2 rounds)");
  CHECK(hg::order_note(3, 2) == "balanced order (repeats every 2 rounds): in 2 rounds each turn follows each "
                                "other kernel's once");
  CHECK(hg::order_note(1, 20) == "one kernel: no order to balance");
}
