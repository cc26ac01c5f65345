// The GPU's probes of the bound of docs/ceilings.md: the pieces of blocked LU and Cholesky timed
// apart, asynchronous on the context's stream like cusolver.hpp's calls. Real T (float, double).
// The nb x nb Cholesky block is cholesky_solver<T> at n = nb; its answers are checked on the host
// (lapack_probes.hpp's checks).
#pragma once

#include <cstdint>
#include <vector>

#include "solvebench/cusolver.hpp"

namespace solvebench::cuda {

// C (m x m) -= A (m x k) B (k x m) (cuBLAS ?gemm_64).
template <class T>
void gemm_update(const context& ctx, std::int64_t m, std::int64_t k, const T* a, const T* b, T* c);
// B (k x m) := L^-1 B, L the unit lower triangle of the k x k matrix l (cuBLAS ?trsm_64).
template <class T>
void trsm_panel(const context& ctx, std::int64_t m, std::int64_t k, const T* l, T* b);

// LU with partial pivoting of an m x k panel in place (cusolverDnXgetrf), its workspace made once.
template <class T>
class panel_lu {
 public:
  static workspace_size query(const context& ctx, std::int64_t m, std::int64_t k);
  panel_lu(const context& ctx, std::int64_t m, std::int64_t k);
  void factor(T* a);
  void check_info() const;                   // singular_matrix(k) / invalid_argument; synchronises
  std::vector<std::int32_t> pivots() const;  // LAPACK's 1-based ipiv; synchronises

 private:
  const context& ctx_;
  std::int64_t m_, k_;
  device_buffer<std::byte> work_;
  std::vector<std::byte> host_work_;
  device_buffer<std::int64_t> ipiv_;
  device_buffer<int> info_;
};

}  // namespace solvebench::cuda
