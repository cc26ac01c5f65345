// Host-side residual of a batch: one small HPL scaled residual per system.
#include "core/batched.hpp"

#include <algorithm>

#include "solvebench/matrix.hpp"
#include "solvebench/precision.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {

template <class T>
worst_system batch_worst_residual(const T* a, const T* x, const T* b, std::int64_t n, std::int64_t count) {
  worst_system worst;
  host_matrix<T> as(n, n), xs(n, 1), bs(n, 1);
  const auto nn = static_cast<std::size_t>(n * n), un = static_cast<std::size_t>(n);
  for (std::int64_t s = 0; s < count; ++s) {
    const auto us = static_cast<std::size_t>(s);
    std::copy(a + us * nn, a + (us + 1) * nn, as.data());
    std::copy(x + us * un, x + (us + 1) * un, xs.data());
    std::copy(b + us * un, b + (us + 1) * un, bs.data());
    const double r = hpl_scaled_residual(as, xs, bs);
    if (!(r <= worst.resid)) worst = {r, s};
  }
  return worst;
}

#define SB_INSTANTIATE(T) \
  template worst_system batch_worst_residual(const T*, const T*, const T*, std::int64_t, std::int64_t);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::bench
