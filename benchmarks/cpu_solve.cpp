// CPU rows: LAPACKE/OpenBLAS gesv, posv, their halves, and the GEMM ceiling.
#include <chrono>
#include <vector>

#include "harness.hpp"
#include "operations.hpp"
#include "options.hpp"
#include "registry.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {
namespace {

template <class T>
class cpu_fixture {
 public:
  cpu_fixture(operation op, std::int64_t n, std::int64_t nrhs, matrix_kind kind, std::uint64_t seed)
      : op_(op), n_(n), nrhs_(has_rhs(op) ? nrhs : 1), row_(row_name<T>("CPU", op, n, nrhs)) {
    checked_size("n", n, lapack::max_n);
    const auto nn = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
    const auto nk = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(nrhs_);
    require_host_memory((op == operation::gemm ? 4 * nn : 2 * nn + 2 * nk) * sizeof(T));

    a0_ = generate_matrix<T>(kind, n, seed);
    b0_ = op == operation::gemm ? generate_matrix<T>(matrix_kind::uniform, n, seed + 1)
                                : generate_rhs<T>(n, nrhs_, seed);
    require_finite("A", a0_);
    require_finite("B", b0_);
    a_ = host_matrix<T>(n, n);
    b_ = host_matrix<T>(b0_.rows(), b0_.cols());
    ipiv_.resize(static_cast<std::size_t>(n));

    // The solve-only rows time the solve against factors made once, here.
    if (op == operation::getrs || op == operation::potrs) {
      a_.assign(a0_);
      if (op == operation::getrs) lapack::getrf(a_, ipiv_);
      else lapack::potrf(a_);
    }
    run_once();  // warm-up: thread pool start-up and first-touch stay out of the numbers
  }

  double run_once() {
    // Restore what the previous call overwrote; not timed.
    switch (op_) {
      case operation::gesv: case operation::getrf: case operation::posv: case operation::potrf:
        a_.assign(a0_);
        break;
      default: break;
    }
    if (has_rhs(op_)) b_.assign(b0_);

    const auto t0 = std::chrono::steady_clock::now();
    switch (op_) {
      case operation::gesv: lapack::gesv(a_, ipiv_, b_); break;
      case operation::getrf: lapack::getrf(a_, ipiv_); break;
      case operation::getrs: lapack::getrs(a_, ipiv_, b_); break;
      case operation::posv: lapack::posv(a_, b_); break;
      case operation::potrf: lapack::potrf(a_); break;
      case operation::potrs: lapack::potrs(a_, b_); break;
      case operation::gemm: lapack::gemm(a0_, b0_, b_); break;
    }
    return seconds_since(t0);
  }

  double check() {
    double resid;
    if (op_ == operation::gemm) {
      resid = gemm_scaled_residual(a0_, b0_, b_);
    } else {
      if (!has_rhs(op_)) {  // factor-only rows: solve with the timed factors, then check that
        b_.assign(b0_);
        if (op_ == operation::getrf) lapack::getrs(a_, ipiv_, b_);
        else lapack::potrs(a_, b_);
      }
      resid = hpl_scaled_residual(a0_, b_, b0_);
    }
    check_residual(row_, resid);
    return resid;
  }

  double flops() const { return bench::flops(op_, n_, nrhs_); }

  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(n_);
    if (has_rhs(op_)) state.counters["nrhs"] = static_cast<double>(nrhs_);
  }

 private:
  operation op_;
  std::int64_t n_, nrhs_;
  std::string row_;
  host_matrix<T> a0_, a_, b0_, b_;
  std::vector<lapack::index_t> ipiv_;
};

template <class T>
void register_precision(const options& opt) {
  const auto sizes = cpu_sizes(opt);
  for (operation op : all_operations) {
    auto* family = benchmark::RegisterBenchmark(
        family_name<T>("CPU", op).c_str(), [op, opt](benchmark::State& state) {
          const std::int64_t n = state.range(0), nrhs = has_rhs(op) ? state.range(1) : 1;
          run_row<cpu_fixture<T>>(state, row_name<T>("CPU", op, n, nrhs), [&] {
            return std::make_unique<cpu_fixture<T>>(op, n, nrhs, kind_for(op, opt.kind), opt.seed);
          });
        });
    family->UseManualTime()->Unit(benchmark::kMillisecond);
    if (has_rhs(op)) {
      family->ArgNames({"n", "nrhs"});
      for (auto n : sizes)
        for (auto k : opt.nrhs) family->Args({n, k});
    } else {
      family->ArgNames({"n"});
      for (auto n : sizes) family->Args({n});
    }
  }
}

}  // namespace

void register_cpu_solve_rows(const options& opt) {
  for (const auto& p : opt.precisions) {
    if (p == "d") register_precision<double>(opt);
    if (p == "s") register_precision<float>(opt);
  }
}

void register_cpu_benchmarks(const options& opt) {
  register_cpu_solve_rows(opt);
  register_cpu_mixed_rows(opt);
  register_cpu_batched_rows(opt);
}

}  // namespace solvebench::bench
