// GPU test (label gpu): the input fill and the reference GEMM that every step is verified against are
// themselves checked against host code: the fill against common/harness/init.hpp evaluated on the CPU, the
// reference GEMM against the CPU fp64 reference (tests/cpu_reference.hpp). Odd shapes on purpose: the
// reference must not depend on the step kernels' tile multiples. Exit 77 without a supported GPU.
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/kernel/check.cuh"
#include "common/harness/harness.cuh"
#include "tests/cpu_reference.hpp"
#include "common/harness/fp16_host.hpp"
#include "common/harness/init.hpp"
#include "common/harness/reference.cuh"

namespace {

int failures = 0;

void expect(bool ok, const char* what, int64_t i, double got, double want) {
  if (ok) return;
  if (++failures <= 10) std::printf("FAIL %s at %lld: got %.9g want %.9g\n", what, (long long)i, got, want);
}

template <typename T>
std::vector<T> to_host(const T* dev, size_t n) {
  std::vector<T> h(n);
  HG_CUDA_CHECK(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

void check_shape(int m, int n, int k, hg::InitMode mode, uint64_t seed) {
  hg::DeviceBuffer<__half> a_buf(int64_t(m) * k), b_buf(int64_t(n) * k);
  hg::DeviceBuffer<float> ref_buf(int64_t(m) * n), mag_buf(int64_t(m) * n);
  __half *a = a_buf.get(), *b = b_buf.get();
  float *ref = ref_buf.get(), *mag = mag_buf.get();
  hg::fill_matrix(a, int64_t(m) * k, seed, mode, 0, nullptr);
  hg::fill_matrix(b, int64_t(n) * k, seed, mode, 1, nullptr);
  hg::reference_gemm(a, b, ref, mag, m, n, k, nullptr);
  HG_CUDA_CHECK(cudaDeviceSynchronize());

  const auto a_bits = to_host(reinterpret_cast<uint16_t*>(a), size_t(m) * k);
  const auto b_bits = to_host(reinterpret_cast<uint16_t*>(b), size_t(n) * k);
  // Fill: int values must match exactly; normal samples may differ by one fp16 step because the GPU's
  // logf/cosf are not correctly rounded, and a last-bit difference can flip the final rounding.
  for (int matrix = 0; matrix < 2; ++matrix) {
    const auto& bits = matrix == 0 ? a_bits : b_bits;
    for (size_t i = 0; i < bits.size(); ++i) {
      const uint16_t want = hg::float_to_half_bits(hg::init_value(seed, mode, matrix, i));
      const int diff = int(bits[i]) - int(want);
      expect(mode == hg::InitMode::kInt ? diff == 0 : (diff >= -1 && diff <= 1), "fill", int64_t(i),
             hg::half_bits_to_float(bits[i]), hg::half_bits_to_float(want));
    }
  }

  const std::vector<double> exact = hg::cpu_reference_gemm(a_bits.data(), b_bits.data(), m, n, k);
  const auto ref_h = to_host(ref, size_t(m) * n), mag_h = to_host(mag, size_t(m) * n);
  for (size_t i = 0; i < exact.size(); ++i) {
    const int row = int(i / n), col = int(i % n);
    double abs_sum = 0;  // the exact sum of |a*b|, to bound fp32 summation error
    for (int kk = 0; kk < k; ++kk)
      abs_sum += std::fabs(double(hg::half_bits_to_float(a_bits[size_t(row) * k + kk])) *
                           hg::half_bits_to_float(b_bits[size_t(col) * k + kk]));
    // Sequential fp32 summation of k exact products: |error| <= (k-1) * 2^-24 * sum|x| (Higham, eq. 4.4).
    const double bound = (k - 1) * std::ldexp(1.0, -24) * abs_sum * 1.0001;
    if (mode == hg::InitMode::kInt) {
      expect(ref_h[i] == exact[i], "reference (int, exact)", int64_t(i), ref_h[i], exact[i]);
      expect(mag_h[i] == abs_sum, "magnitude (int, exact)", int64_t(i), mag_h[i], abs_sum);
    } else {
      expect(std::fabs(ref_h[i] - exact[i]) <= bound, "reference (random)", int64_t(i), ref_h[i], exact[i]);
      expect(std::fabs(mag_h[i] - abs_sum) <= bound, "magnitude (random)", int64_t(i), mag_h[i], abs_sum);
    }
  }
  std::printf("reference %4d x %4d x %4d %-6s seed %llu: %s\n", m, n, k, hg::to_string(mode),
              (unsigned long long)seed, failures ? "FAILURES SO FAR" : "ok");
}

}  // namespace

int main() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::printf("gpu_reference_test SKIP: no CUDA device (%s)\n", cudaGetErrorString(err));
    return 77;
  }
  try {
    for (hg::InitMode mode : {hg::InitMode::kInt, hg::InitMode::kRandom}) {
      check_shape(37, 53, 29, mode, 1);
      check_shape(128, 128, 64, mode, 2);
      check_shape(64, 200, 1000, mode, 3);
    }
  } catch (const hg::CudaError& e) {
    std::printf("CUDA error: %s\n", e.what());
    return 3;
  }
  std::printf("%s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
