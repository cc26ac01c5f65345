// Solves one random system through the installed library and checks it: exit 0 only when the
// HPL scaled residual passes.
#include <solvebench/solvebench.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  namespace sb = solvebench;
  constexpr std::int64_t n = 200, nrhs = 3;
  const auto a0 = sb::generate_matrix<double>(sb::matrix_kind::uniform, n, sb::default_seed);
  const auto b0 = sb::generate_rhs<double>(n, nrhs, sb::default_seed);
  auto a = a0;
  auto x = b0;
  std::vector<sb::lapack::index_t> ipiv(static_cast<std::size_t>(n));
  sb::lapack::gesv(a, ipiv, x);
  const double resid = sb::hpl_scaled_residual(a0, x, b0);
  const bool passed = resid < sb::residual_threshold;
  std::printf("solvebench %s (CUDA %d): dgesv n=%lld nrhs=%lld, HPL scaled residual %.3g: %s\n", SOLVE_BENCH_VERSION,
              SOLVE_BENCH_HAVE_CUDA, static_cast<long long>(n), static_cast<long long>(nrhs), resid,
              passed ? "passed" : "FAILED");
  return passed ? 0 : 1;
}
