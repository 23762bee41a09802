// tests/test_stats.cpp: timing statistics (common/harness/stats.hpp).
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "common/harness/stats.hpp"

TEST_CASE("summarize: median of an odd and an even count, input order irrelevant") {
  const hg::TimingStats odd = hg::summarize({5.0, 1.0, 3.0});
  CHECK(odd.samples == 3);
  CHECK(odd.median_ms == 3.0);
  CHECK(odd.min_ms == 1.0);
  CHECK(odd.max_ms == 5.0);

  const hg::TimingStats even = hg::summarize({4.0, 1.0, 3.0, 2.0});
  CHECK(even.samples == 4);
  CHECK(even.median_ms == doctest::Approx(2.5));
  CHECK(even.min_ms == 1.0);
  CHECK(even.max_ms == 4.0);
}

TEST_CASE("summarize: p10 and p90 follow NumPy's linear method, position q*(n-1)") {
  // numpy.percentile([1..10], [10, 50, 90]) = [1.9, 5.5, 9.1]: positions 0.9, 4.5, 8.1.
  const hg::TimingStats s = hg::summarize({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  CHECK(s.p10_ms == doctest::Approx(1.9));
  CHECK(s.median_ms == doctest::Approx(5.5));
  CHECK(s.p90_ms == doctest::Approx(9.1));

  // Uneven gaps: [10, 20, 40]; p10 at position 0.2 -> 12, p90 at position 1.8 -> 20 + 0.8*20 = 36.
  const hg::TimingStats u = hg::summarize({40, 10, 20});
  CHECK(u.p10_ms == doctest::Approx(12.0));
  CHECK(u.median_ms == doctest::Approx(20.0));
  CHECK(u.p90_ms == doctest::Approx(36.0));

  // Eleven samples: positions 1.0 and 9.0 fall on order statistics exactly.
  const hg::TimingStats e = hg::summarize({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100});
  CHECK(e.p10_ms == doctest::Approx(1.0));
  CHECK(e.p90_ms == doctest::Approx(9.0));
  CHECK(e.median_ms == doctest::Approx(5.0));
  CHECK(e.max_ms == 100.0);
}

TEST_CASE("summarize: one sample is every statistic, an empty sample throws") {
  const hg::TimingStats one = hg::summarize({0.75});
  CHECK(one.samples == 1);
  CHECK(one.median_ms == 0.75);
  CHECK(one.p10_ms == 0.75);
  CHECK(one.p90_ms == 0.75);
  CHECK(one.min_ms == 0.75);
  CHECK(one.max_ms == 0.75);
  CHECK_THROWS_AS(hg::summarize({}), std::invalid_argument);
}

TEST_CASE("tflops: 2*M*N*K flops over the time") {
  CHECK(hg::tflops(4096, 4096, 4096, 1.0) == doctest::Approx(137.438953472));
  CHECK(hg::tflops(4096, 4096, 4096, 2.0) == doctest::Approx(68.719476736));
  CHECK(hg::tflops(1000, 1000, 1000, 1.0) == doctest::Approx(2.0));
  CHECK(hg::tflops(2000, 1000, 500, 0.5) == doctest::Approx(4.0));
}
