// Many small systems on the CPU: an OpenMP loop of single-threaded LAPACKE calls.
// Rows: CPU/dgesv_batched/n:N/batch:B and CPU/dposv_batched/n:N/batch:B (s and d).
#include <algorithm>
#include <chrono>

#include "batched_rows.hpp"
#include "harness.hpp"
#include "options.hpp"
#include "registry.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack_batched.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {
namespace {

template <class T>
class cpu_batched_fixture {
 public:
  cpu_batched_fixture(std::string row, bool cholesky, std::int64_t n, std::int64_t count, std::uint64_t seed)
      : row_(std::move(row)), cholesky_(cholesky), n_(n), count_(count), ws_(n, count), threads_(1) {
    const auto nn = static_cast<std::size_t>(n * n), total = static_cast<std::size_t>(count);
    require_host_memory(2 * (nn + static_cast<std::size_t>(n)) * total * sizeof(T));
    a0_.resize(nn * total);
    b0_.resize(static_cast<std::size_t>(n) * total);
    const matrix_kind kind = batch_kind(cholesky);
#pragma omp parallel for schedule(static)
    for (std::int64_t s = 0; s < count; ++s) {
      const auto seed_s = seed + static_cast<std::uint64_t>(s);
      const auto a = generate_matrix<T>(kind, n, seed_s);
      const auto b = generate_rhs<T>(n, 1, seed_s);
      std::copy(a.data(), a.data() + nn, a0_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(s) * nn));
      std::copy(b.data(), b.data() + n, b0_.begin() + s * n);
    }
    a_ = a0_;
    b_ = b0_;
    run_once();  // warm-up: OpenMP team and OpenBLAS buffers
    check_info();
  }

  double run_once() {
    std::copy(a0_.begin(), a0_.end(), a_.begin());
    std::copy(b0_.begin(), b0_.end(), b_.begin());
    const auto t0 = std::chrono::steady_clock::now();
    if (cholesky_) lapack::posv_batched(a_.data(), b_.data(), ws_);
    else lapack::gesv_batched(a_.data(), b_.data(), ws_);
    return seconds_since(t0);
  }

  double check() {
    check_info();
    worst_ = batch_worst_residual(a0_.data(), b_.data(), b0_.data(), n_, count_);
    check_residual(row_ + " (worst system " + std::to_string(worst_.index) + ")", worst_.resid);
    return worst_.resid;
  }

  double flops() const { return batch_flops(cholesky_, n_, count_); }
  void add_counters(benchmark::State& state) const { add_batch_counters(state, n_, count_, worst_.index); }

 private:
  void check_info() const {
    ws_.check_info(cholesky_ ? "LAPACKE_?posv" : "LAPACKE_?gesv",
                   cholesky_ ? factorization::cholesky : factorization::lu);
  }

  std::string row_;
  bool cholesky_;
  std::int64_t n_, count_;
  lapack::batch_workspace ws_;
  lapack::blas_threads_guard threads_;  // one OpenBLAS thread per system, while this row lives
  std::vector<T> a0_, a_, b0_, b_;
  worst_system worst_;
};

template <class T>
void register_precision(const options& opt) {
  for (bool cholesky : {false, true})
    for (auto n : opt.batch_n)
      for (auto count : opt.batch_count) {
        const std::string row = batch_row_name<T>("CPU", cholesky, n, count);
        register_row(row, [=, seed = opt.seed](benchmark::State& state) {
          run_row<cpu_batched_fixture<T>>(state, row, [&] {
            return std::make_unique<cpu_batched_fixture<T>>(row, cholesky, n, count, seed);
          });
        });
      }
}

}  // namespace

void register_cpu_batched_rows(const options& opt) {
  for (const auto& p : opt.precisions) {
    if (p == "d") register_precision<double>(opt);
    if (p == "s") register_precision<float>(opt);
  }
}

}  // namespace solvebench::bench
