// The GPU's probes of the bound (docs/ceilings.md, --ceilings=on): the pieces of blocked LU and
// Cholesky at block size nb (the problem's nrhs, ops::probes) on the context's stream, each timed
// alone with its inputs restored (a device-to-device copy, untimed) before each call. Inputs are
// made on the host and copied once; answers are checked on the host on a few columns
// (lapack_probes.hpp), and of the m x m update only those columns are copied back.
#pragma once

#include "cuda/gpu_adapters.hpp"
#include "solvebench/cusolver_probes.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack_probes.hpp"

namespace solvebench::bench::gpu {

template <class T>
device_buffer<T> uploaded(const host_matrix<T>& m, cudaStream_t s) {
  device_buffer<T> d(m.size());
  SB_CUDA_CHECK(cudaMemcpyAsync(d.data(), m.data(), m.size_bytes(), cudaMemcpyHostToDevice, s));
  SB_CUDA_CHECK(cudaStreamSynchronize(s));  // before the host matrix goes
  return d;
}
template <class T>
host_matrix<T> downloaded(const device_buffer<T>& d, std::int64_t rows, std::int64_t cols, cudaStream_t s) {
  host_matrix<T> m(rows, cols);
  SB_CUDA_CHECK(cudaMemcpyAsync(m.data(), d.data(), m.size_bytes(), cudaMemcpyDeviceToHost, s));
  SB_CUDA_CHECK(cudaStreamSynchronize(s));
  return m;
}
inline std::size_t entries(std::int64_t rows, std::int64_t cols) {
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}
// The columns of d (rows x any, column-major) that lapack_probes.hpp's checks look at, one copy
// each: a check of three columns need not bring a 2 GB answer back.
template <class T>
host_matrix<T> downloaded_checked_columns(const device_buffer<T>& d, std::int64_t rows, std::int64_t cols,
                                          cudaStream_t s) {
  const std::vector<std::int64_t> columns = lapack::checked_columns(cols);
  host_matrix<T> m(rows, static_cast<std::int64_t>(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k)
    SB_CUDA_CHECK(cudaMemcpyAsync(m.data() + entries(rows, static_cast<std::int64_t>(k)),
                                  d.data() + entries(rows, columns[k]), entries(rows, 1) * sizeof(T),
                                  cudaMemcpyDeviceToHost, s));
  SB_CUDA_CHECK(cudaStreamSynchronize(s));
  return m;
}
inline void add_probe_counters(benchmark::State& state, const problem& p) {
  state.counters["n"] = static_cast<double>(p.n);
  state.counters["nb"] = static_cast<double>(p.nrhs);
}

// C (m x m) -= A (m x nb) B (nb x m).
template <class T>
class update_probe : public event_timer {
 public:
  static std::size_t device_bytes(const problem& p) {
    return (2 * entries(p.n, p.nrhs) + 2 * entries(p.n, p.n)) * sizeof(T);
  }
  update_probe(const problem& p, cuda::context& ctx) : event_timer(ctx), p_(p) {
    cuda::require_device_memory(device_bytes(p));
    a_ = uploaded(generate_rhs<T>(p.n, p.nrhs, p.seed), ctx.stream());
    b_ = uploaded(generate_rhs<T>(p.nrhs, p.n, p.seed + 1), ctx.stream());
    c0_ = uploaded(generate_rhs<T>(p.n, p.n, p.seed + 2), ctx.stream());
    c_ = device_buffer<T>(entries(p.n, p.n));
  }
  void restore(bool, bool) { copy_on_device(ctx_.stream(), c_.data(), c0_.data(), c_.size_bytes()); }
  void probe() { cuda::gemm_update(ctx_, p_.n, p_.nrhs, a_.data(), b_.data(), c_.data()); }
  void check_info() const {}
  double residual() {
    const cudaStream_t s = ctx_.stream();
    return lapack::gemm_update_columns_residual(downloaded(a_, p_.n, p_.nrhs, s),
                                                downloaded_checked_columns(b_, p_.nrhs, p_.n, s),
                                                downloaded_checked_columns(c0_, p_.n, p_.n, s),
                                                downloaded_checked_columns(c_, p_.n, p_.n, s));
  }
  void add_counters(benchmark::State& state) const { add_probe_counters(state, p_); }

 private:
  problem p_;
  device_buffer<T> a_, b_, c0_, c_;
};

// The LU of an m x nb panel (cusolverDnXgetrf).
template <class T>
class panel_probe : public event_timer {
 public:
  static std::size_t device_bytes(const problem& p, cuda::context& ctx) {
    return 2 * entries(p.n, p.nrhs) * sizeof(T) + cuda::panel_lu<T>::query(ctx, p.n, p.nrhs).device_bytes +
           static_cast<std::size_t>(p.nrhs) * 8;
  }
  panel_probe(const problem& p, cuda::context& ctx) : event_timer(ctx), p_(p) {
    cuda::require_device_memory(device_bytes(p, ctx));
    a0_ = uploaded(generate_rhs<T>(p.n, p.nrhs, p.seed), ctx.stream());
    a_ = device_buffer<T>(entries(p.n, p.nrhs));
    lu_.emplace(ctx, p.n, p.nrhs);
  }
  void restore(bool, bool) { copy_on_device(ctx_.stream(), a_.data(), a0_.data(), a_.size_bytes()); }
  void probe() { lu_->factor(a_.data()); }
  void check_info() const { lu_->check_info(); }
  double residual() {
    const cudaStream_t s = ctx_.stream();
    return lapack::getrf_panel_residual(downloaded(a0_, p_.n, p_.nrhs, s), downloaded(a_, p_.n, p_.nrhs, s),
                                        lu_->pivots());
  }
  void add_counters(benchmark::State& state) const { add_probe_counters(state, p_); }

 private:
  problem p_;
  device_buffer<T> a0_, a_;
  std::optional<cuda::panel_lu<T>> lu_;
};

// B (nb x m) := L^-1 B with L unit lower triangular, nb x nb (cuBLAS ?trsm).
template <class T>
class trsm_probe : public event_timer {
 public:
  static std::size_t device_bytes(const problem& p) {
    return (entries(p.nrhs, p.nrhs) + 2 * entries(p.nrhs, p.n)) * sizeof(T);
  }
  trsm_probe(const problem& p, cuda::context& ctx) : event_timer(ctx), p_(p) {
    cuda::require_device_memory(device_bytes(p));
    l_ = uploaded(lapack::probe_triangle<T>(p.nrhs, p.seed), ctx.stream());
    b0_ = uploaded(generate_rhs<T>(p.nrhs, p.n, p.seed + 1), ctx.stream());
    b_ = device_buffer<T>(entries(p.nrhs, p.n));
  }
  void restore(bool, bool) { copy_on_device(ctx_.stream(), b_.data(), b0_.data(), b_.size_bytes()); }
  void probe() { cuda::trsm_panel(ctx_, p_.n, p_.nrhs, l_.data(), b_.data()); }
  void check_info() const {}
  double residual() {
    const cudaStream_t s = ctx_.stream();
    return lapack::trsm_panel_residual(downloaded(l_, p_.nrhs, p_.nrhs, s), downloaded(b0_, p_.nrhs, p_.n, s),
                                       downloaded(b_, p_.nrhs, p_.n, s));
  }
  void add_counters(benchmark::State& state) const { add_probe_counters(state, p_); }

 private:
  problem p_;
  device_buffer<T> l_, b0_, b_;
};

// The Cholesky of one nb x nb diagonal block (the row's n is nb), checked by solving with it.
template <class T>
class block_probe : public solve_adapter<T, cuda::cholesky_solver<T>> {
 public:
  using solve_adapter<T, cuda::cholesky_solver<T>>::solve_adapter;
  void probe() { this->factor(); }
  double residual() {
    this->restore(false, true);
    this->solve();
    this->check_info();
    return solve_adapter<T, cuda::cholesky_solver<T>>::residual();
  }
};

}  // namespace solvebench::bench::gpu
