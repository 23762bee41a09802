// common/harness/stats.hpp: summary statistics of timed launches (median and spread).
#pragma once

#include <cstdint>
#include <vector>

namespace hg {

struct TimingStats {
  int samples = 0;
  double median_ms = 0, p10_ms = 0, p90_ms = 0, min_ms = 0, max_ms = 0;
};

/// Percentiles by linear interpolation between order statistics (NumPy's default method).
/// Throws std::invalid_argument for an empty sample.
TimingStats summarize(std::vector<double> samples_ms);

/// 2*M*N*K floating-point operations over the time, in TFLOP/s.
double tflops(int64_t m, int64_t n, int64_t k, double ms);

}  // namespace hg
