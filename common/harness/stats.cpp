// common/harness/stats.cpp: median and spread of timed launches (see stats.hpp).
#include "common/harness/stats.hpp"

#include <algorithm>
#include <stdexcept>

namespace hg {
namespace {

// NumPy's default ('linear') percentile: the order statistic at position q*(n-1), interpolated
// between its two neighbours. `sorted` is non-empty and ascending.
double percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * double(sorted.size() - 1);
  const size_t lo = size_t(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - double(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

TimingStats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty()) throw std::invalid_argument("summarize: no timing samples (run at least one timed launch)");
  std::sort(samples_ms.begin(), samples_ms.end());
  TimingStats s;
  s.samples = int(samples_ms.size());
  s.median_ms = percentile(samples_ms, 0.5);
  s.p10_ms = percentile(samples_ms, 0.1);
  s.p90_ms = percentile(samples_ms, 0.9);
  s.min_ms = samples_ms.front();
  s.max_ms = samples_ms.back();
  return s;
}

double tflops(int64_t m, int64_t n, int64_t k, double ms) {
  return 2.0 * double(m) * double(n) * double(k) / (ms * 1e-3) / 1e12;
}

}  // namespace hg
