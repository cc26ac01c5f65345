// The CPU side of many small systems: one LAPACKE call per system, systems in parallel.
#include "solvebench/lapack_batched.hpp"

#include <lapacke.h>
#include <omp.h>

#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::lapack {

batch_workspace::batch_workspace(std::int64_t n, std::int64_t count)
    : n_(checked_size("n", n, max_n)),
      count_(checked_size("batch", count, max_n)),
      team_(omp_get_max_threads()),
      ipiv_(static_cast<std::size_t>(n * count)),
      info_(static_cast<std::size_t>(count)) {}

void batch_workspace::check_info(const char* routine, factorization kind) const {
  for (std::int64_t s = 0; s < count_; ++s)
    if (info_[static_cast<std::size_t>(s)] != 0)
      throw_on_info(std::string(routine) + " (system " + std::to_string(s) + " of the batch)",
                    info_[static_cast<std::size_t>(s)], kind);
}

namespace {

constexpr int col = LAPACK_COL_MAJOR;
lapack_int xgesv(lapack_int n, double* a, lapack_int* p, double* b) { return LAPACKE_dgesv(col, n, 1, a, n, p, b, n); }
lapack_int xgesv(lapack_int n, float* a, lapack_int* p, float* b) { return LAPACKE_sgesv(col, n, 1, a, n, p, b, n); }
lapack_int xposv(lapack_int n, double* a, double* b) { return LAPACKE_dposv(col, 'L', n, 1, a, n, b, n); }
lapack_int xposv(lapack_int n, float* a, float* b) { return LAPACKE_sposv(col, 'L', n, 1, a, n, b, n); }

// The parallel loop both solvers share: `solve(s, n, A_s, b_s)` returns system s's info.
template <class T, class Solve>
void for_each_system(T* a, T* b, batch_workspace& ws, Solve solve) {
  const auto n = static_cast<index_t>(ws.n());
  const std::int64_t count = ws.count();
#pragma omp parallel num_threads(ws.team())
  {
#pragma omp single nowait
    ws.set_team_ran(omp_get_num_threads());
#pragma omp for schedule(static)
    for (std::int64_t s = 0; s < count; ++s) ws.info(s) = solve(s, n, a + s * ws.n() * ws.n(), b + s * ws.n());
  }
}

}  // namespace

template <class T>
void gesv_batched(T* a, T* b, batch_workspace& ws) {
  for_each_system(a, b, ws, [&ws](std::int64_t s, index_t n, T* as, T* bs) { return xgesv(n, as, ws.ipiv(s), bs); });
}

template <class T>
void posv_batched(T* a, T* b, batch_workspace& ws) {
  for_each_system(a, b, ws, [](std::int64_t, index_t n, T* as, T* bs) { return xposv(n, as, bs); });
}

#define SB_INSTANTIATE(T)                               \
  template void gesv_batched(T*, T*, batch_workspace&); \
  template void posv_batched(T*, T*, batch_workspace&);
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::lapack
