// LAWN 41 floating-point operation counts, square n x n: multiplications and additions
// counted apart (divisions and square roots count as multiplications), weighted by precision
// as LAWN 41 and lapackpp/blaspp do: flops = mults + adds for real T, 6 mults + 2 adds for
// complex T (a complex multiply is 4 real multiplies and 2 adds, a complex add 2 adds).
#pragma once

#include <cstdint>

#include "solvebench/precision.hpp"

namespace solvebench {

struct flop_counts {
  double mults = 0, adds = 0;
};
constexpr flop_counts operator+(flop_counts a, flop_counts b) { return {a.mults + b.mults, a.adds + b.adds}; }

template <class T>
constexpr double flops(flop_counts c) {
  if constexpr (is_complex_v<T>) return 6.0 * c.mults + 2.0 * c.adds;
  else return c.mults + c.adds;
}

namespace lawn41 {
// The real totals as the rows have always reported them. The split below keeps them bit for
// bit: adds is computed as total - mults, which is exact (Sterbenz: mults <= total <= 2 mults
// for every n >= 1), so mults + adds rounds back to the same total. It equals LAWN 41's
// adds (n^3/3 - n^2/2 + n/6 for getrf, n^3/6 - n/6 for potrf) up to that total's rounding.
constexpr double getrf_total(double n) { return 2.0 / 3.0 * n * n * n - 0.5 * n * n + 5.0 / 6.0 * n; }
constexpr double potrf_total(double n) { return n * n * n / 3.0 + n * n / 2.0 + n / 6.0; }
}  // namespace lawn41

// LAWN 41: getrf mults n^3/3 + 2n/3 (an integer, exact in double below n ~ 2e5).
constexpr flop_counts getrf_counts(double n) {
  const double mults = n * (n * n + 2.0) / 3.0;
  return {mults, lawn41::getrf_total(n) - mults};
}
// mults nrhs n^2, adds nrhs n (n - 1).
constexpr flop_counts getrs_counts(double n, double nrhs) { return {nrhs * n * n, nrhs * n * (n - 1.0)}; }
// mults n^3/6 + n^2/2 + n/3 = n (n + 1) (n + 2) / 6.
constexpr flop_counts potrf_counts(double n) {
  const double mults = n * (n + 1.0) * (n + 2.0) / 6.0;
  return {mults, lawn41::potrf_total(n) - mults};
}
// mults nrhs n (n + 1), adds nrhs n (n - 1).
constexpr flop_counts potrs_counts(double n, double nrhs) { return {nrhs * n * (n + 1.0), nrhs * n * (n - 1.0)}; }
constexpr flop_counts gesv_counts(double n, double nrhs) { return getrf_counts(n) + getrs_counts(n, nrhs); }
constexpr flop_counts posv_counts(double n, double nrhs) { return potrf_counts(n) + potrs_counts(n, nrhs); }
// C = A B with beta = 0: m n k of each (blaspp's fmuls_gemm, fadds_gemm).
constexpr flop_counts gemm_counts(double m, double n, double k) { return {m * n * k, m * n * k}; }
// LAWN 41's getrf of an m x n panel (m >= n): mults m n^2/2 - n^3/6 + m n/2 - n^2/2 + 2n/3,
// adds m n^2/2 - n^3/6 - m n/2 + n/6.
constexpr flop_counts getrf_counts(double m, double n) {
  return {m * n * n / 2 - n * n * n / 6 + m * n / 2 - n * n / 2 + 2 * n / 3,
          m * n * n / 2 - n * n * n / 6 - m * n / 2 + n / 6};
}
// LAWN 41's trsm with an m x m triangle on the left of an m x n B: mults n m (m + 1) / 2, adds n m (m - 1) / 2.
constexpr flop_counts trsm_counts(double m, double n) { return {n * m * (m + 1) / 2, n * m * (m - 1) / 2}; }
// syrk, C (n x n, one triangle) += A A^T with A n x k: mults and adds k n (n + 1) / 2 each.
constexpr flop_counts syrk_counts(double n, double k) { return {k * n * (n + 1) / 2, k * n * (n + 1) / 2}; }

// The real totals (s and d rows). gesv and posv add the halves' totals, as they always did.
constexpr double getrf_flops(double n) { return flops<double>(getrf_counts(n)); }
constexpr double getrs_flops(double n, double nrhs) { return flops<double>(getrs_counts(n, nrhs)); }
constexpr double potrf_flops(double n) { return flops<double>(potrf_counts(n)); }
constexpr double potrs_flops(double n, double nrhs) { return flops<double>(potrs_counts(n, nrhs)); }
constexpr double gesv_flops(double n, double nrhs) { return getrf_flops(n) + getrs_flops(n, nrhs); }
constexpr double posv_flops(double n, double nrhs) { return potrf_flops(n) + potrs_flops(n, nrhs); }
constexpr double gemm_flops(double m, double n, double k) { return flops<double>(gemm_counts(m, n, k)); }

}  // namespace solvebench
