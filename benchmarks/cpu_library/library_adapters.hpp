// The adapters of a loaded library's rows: the CPU backend's own (the same problems, inputs,
// residuals and counters), with the timed calls going through a lapack::loaded_library.
#pragma once

#include "cpu/cpu_adapters.hpp"
#include "solvebench/lapack_loaded.hpp"

namespace solvebench::bench::cpu_library {

using library = const lapack::loaded_library*;

template <class T>
struct lu {
  explicit lu(std::int64_t n) : ipiv(static_cast<std::size_t>(n)) {}
  void factor(host_matrix<T>& a) { lib->getrf(a, ipiv); }
  void solve(const host_matrix<T>& a, host_matrix<T>& b) { lib->getrs(a, ipiv, b); }
  void driver(host_matrix<T>& a, host_matrix<T>& b) { lib->gesv(a, ipiv, b); }
  library lib = nullptr;
  std::vector<lapack::index_t> ipiv;
};
template <class T>
struct cholesky {
  explicit cholesky(std::int64_t) {}
  void factor(host_matrix<T>& a) { lib->potrf(a); }
  void solve(const host_matrix<T>& l, host_matrix<T>& b) { lib->potrs(l, b); }
  void driver(host_matrix<T>& a, host_matrix<T>& b) { lib->posv(a, b); }
  library lib = nullptr;
};

// ?gesv / ?posv as their halves (timed::halves) or the library's one-call driver (timed::driver).
template <class T, class Factorization>
class solve_adapter : public cpu::solve_adapter<T, Factorization> {
 public:
  solve_adapter(const problem& p, library lib) : cpu::solve_adapter<T, Factorization>(p) { this->f_.lib = lib; }
  void factor_and_solve() { this->f_.driver(this->a_, this->b_); }
};

template <class T>
class gemm_adapter : public cpu::gemm_adapter<T> {
 public:
  gemm_adapter(const problem& p, library lib) : cpu::gemm_adapter<T>(p), lib_(lib) {}
  void multiply() { lib_->gemm(this->a_, this->b_, this->c_); }

 private:
  library lib_;
};

}  // namespace solvebench::bench::cpu_library
