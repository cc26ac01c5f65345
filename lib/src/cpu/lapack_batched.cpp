// The CPU side of many small systems: one LAPACKE call per system, systems in parallel.
#include "solvebench/lapack_batched.hpp"

#include <lapacke.h>

#include <type_traits>

#include "solvebench/errors.hpp"

namespace solvebench::lapack {

batch_workspace::batch_workspace(std::int64_t n, std::int64_t count)
    : n_(checked_size("n", n, max_n)), count_(checked_size("batch", count, max_n)),
      ipiv_(static_cast<std::size_t>(n * count)), info_(static_cast<std::size_t>(count)) {}

void batch_workspace::check_info(const char* routine, factorization kind) const {
  for (std::int64_t s = 0; s < count_; ++s)
    if (info_[static_cast<std::size_t>(s)] != 0)
      throw_on_info(std::string(routine) + " (system " + std::to_string(s) + " of the batch)",
                    info_[static_cast<std::size_t>(s)], kind);
}

template <class T>
void gesv_batched(T* a, T* b, batch_workspace& ws) {
  const auto n = static_cast<index_t>(ws.n());
  const std::int64_t count = ws.count();
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < count; ++s) {
    T* as = a + s * ws.n() * ws.n();
    T* bs = b + s * ws.n();
    if constexpr (std::is_same_v<T, double>)
      ws.info(s) = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, as, n, ws.ipiv(s), bs, n);
    else
      ws.info(s) = LAPACKE_sgesv(LAPACK_COL_MAJOR, n, 1, as, n, ws.ipiv(s), bs, n);
  }
}

template <class T>
void posv_batched(T* a, T* b, batch_workspace& ws) {
  const auto n = static_cast<index_t>(ws.n());
  const std::int64_t count = ws.count();
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < count; ++s) {
    T* as = a + s * ws.n() * ws.n();
    T* bs = b + s * ws.n();
    if constexpr (std::is_same_v<T, double>)
      ws.info(s) = LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', n, 1, as, n, bs, n);
    else
      ws.info(s) = LAPACKE_sposv(LAPACK_COL_MAJOR, 'L', n, 1, as, n, bs, n);
  }
}

template void gesv_batched(float*, float*, batch_workspace&);
template void gesv_batched(double*, double*, batch_workspace&);
template void posv_batched(float*, float*, batch_workspace&);
template void posv_batched(double*, double*, batch_workspace&);

}  // namespace solvebench::lapack
