// Many small systems on the CPU: a parallel loop (OpenMP) of single-threaded LAPACKE calls
// over a strided batch (system s: A at a + s*n*n, b at b + s*n).
#pragma once

#include <cstdint>
#include <vector>

#include "solvebench/errors.hpp"
#include "solvebench/lapack.hpp"

namespace solvebench::lapack {

// Sets OpenBLAS to `threads` for its lifetime and restores the old count after, so the
// batch loop's threads each run one single-threaded LAPACK call (no oversubscription).
class blas_threads_guard {
 public:
  explicit blas_threads_guard(int threads) : previous_(blas_threads()) { set_blas_threads(threads); }
  ~blas_threads_guard() { set_blas_threads(previous_); }
  blas_threads_guard(const blas_threads_guard&) = delete;
  blas_threads_guard& operator=(const blas_threads_guard&) = delete;

 private:
  int previous_;
};

// Pivots and per-system info for one batch shape, sized once, outside any timed region, and the
// loop's team. The team is fixed when the workspace is made: a BLAS that threads through OpenMP
// (OpenBLAS's openmp variant) sets its one thread with omp_set_num_threads, which would also set
// the loop's team to one thread (the 2-core VM, OpenBLAS 0.3.21 openmp: 1.0 core busy, the
// same time as one thread). Make it before blas_threads_guard.
class batch_workspace {
 public:
  batch_workspace(std::int64_t n, std::int64_t count);
  std::int64_t n() const noexcept { return n_; }
  std::int64_t count() const noexcept { return count_; }
  int team() const noexcept { return team_; }          // the threads the loop asks for
  int team_ran() const noexcept { return team_ran_; }  // the threads its last call got (0: none yet)
  void set_team_ran(int threads) noexcept { team_ran_ = threads; }
  index_t* ipiv(std::int64_t system) { return ipiv_.data() + system * n_; }
  index_t& info(std::int64_t system) { return info_[static_cast<std::size_t>(system)]; }
  // Throws singular_matrix / not_positive_definite naming the first failing system.
  void check_info(const char* routine, factorization kind) const;

 private:
  std::int64_t n_, count_;
  int team_, team_ran_ = 0;
  std::vector<index_t> ipiv_, info_;
};

template <class T>
void gesv_batched(T* a, T* b, batch_workspace& ws);
template <class T>
void posv_batched(T* a, T* b, batch_workspace& ws);

}  // namespace solvebench::lapack
