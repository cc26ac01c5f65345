// LAWN 41 floating-point operation counts (multiplications + additions), square n x n.
#pragma once

#include <cstdint>

namespace solvebench {

constexpr double getrf_flops(double n) { return 2.0 / 3.0 * n * n * n - 0.5 * n * n + 5.0 / 6.0 * n; }
constexpr double getrs_flops(double n, double nrhs) { return nrhs * (2.0 * n * n - n); }
constexpr double potrf_flops(double n) { return n * n * n / 3.0 + n * n / 2.0 + n / 6.0; }
constexpr double potrs_flops(double n, double nrhs) { return 2.0 * nrhs * n * n; }
constexpr double gesv_flops(double n, double nrhs) { return getrf_flops(n) + getrs_flops(n, nrhs); }
constexpr double posv_flops(double n, double nrhs) { return potrf_flops(n) + potrs_flops(n, nrhs); }
constexpr double gemm_flops(double m, double n, double k) { return 2.0 * m * n * k; }

}  // namespace solvebench
