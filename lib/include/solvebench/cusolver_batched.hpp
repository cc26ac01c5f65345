// Many small systems on the GPU: batched LU (cuBLAS ?getrfBatched/?getrsBatched) and batched
// Cholesky (cuSOLVER ?potrfBatched/?potrsBatched) over a strided batch (system s: A at
// a + s*n*n, b at b + s*n, one right-hand side). The pointer arrays are built once, for the
// buffers given at construction, outside any timed region.
#pragma once

#include <cstdint>

#include "solvebench/cusolver.hpp"

namespace solvebench::cuda {

template <class T>
class batched_lu {
 public:
  batched_lu(const context& ctx, T* a, T* b, std::int64_t n, std::int64_t count);
  void factor();
  void solve();
  // Per-system info read after the fact: singular_matrix naming the system and pivot.
  void check_info() const;

 private:
  const context& ctx_;
  int n_, count_;
  device_buffer<T*> a_ptrs_, b_ptrs_;
  device_buffer<int> ipiv_, info_;
  int solve_info_ = 0;  // getrsBatched reports argument errors on the host
};

template <class T>
class batched_cholesky {
 public:
  batched_cholesky(const context& ctx, T* a, T* b, std::int64_t n, std::int64_t count);
  void factor();
  void solve();
  void check_info() const;  // not_positive_definite naming the system and minor

 private:
  const context& ctx_;
  int n_, count_;
  device_buffer<T*> a_ptrs_, b_ptrs_;
  device_buffer<int> info_;  // count entries for potrf, one more for potrs
};

}  // namespace solvebench::cuda
