// CPU mixed precision: LAPACKE dsgesv (fp32 factorization, fp64 refinement) beside dgesv
// on the same matrix kind. Rows: CPU/dsgesv/n:N/nrhs:1/kind:K/refine:classical and
// CPU/dgesv/n:N/nrhs:1/kind:K.
#include <chrono>
#include <optional>

#include "harness.hpp"
#include "options.hpp"
#include "registry.hpp"
#include "solvebench/flops.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {
namespace {

class cpu_mixed_fixture {
 public:
  cpu_mixed_fixture(std::string row, std::int64_t n, matrix_kind kind, std::uint64_t seed, bool mixed)
      : row_(std::move(row)), n_(n), mixed_(mixed) {
    const auto nn = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
    require_host_memory((2 * nn + 3 * static_cast<std::uint64_t>(n)) * sizeof(double) + nn * sizeof(float));
    a0_ = generate_matrix<double>(kind, n, seed);
    b0_ = generate_rhs<double>(n, 1, seed);
    a_ = host_matrix<double>(n, n);
    x_ = host_matrix<double>(n, 1);
    if (mixed) dsgesv_.emplace(n, 1);
    else ipiv_.resize(static_cast<std::size_t>(n));
    run_once();  // warm-up
  }

  double run_once() {
    a_.assign(a0_);
    if (!mixed_) x_.assign(b0_);
    const auto t0 = std::chrono::steady_clock::now();
    if (mixed_) iter_ = dsgesv_->solve(a_, b0_, x_);
    else lapack::gesv(a_, ipiv_, x_);
    return seconds_since(t0);
  }

  double check() {
    const double resid = hpl_scaled_residual(a0_, x_, b0_);
    check_residual(row_, resid);
    return resid;
  }

  // fp64-equivalent: the dgesv count, whatever precision did the work.
  double flops() const { return gesv_flops(static_cast<double>(n_), 1); }

  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(n_);
    if (mixed_) {
      state.counters["niters"] = iter_;
      state.counters["fell_back"] = iter_ < 0 ? 1 : 0;
    }
  }

 private:
  std::string row_;
  std::int64_t n_;
  bool mixed_;
  host_matrix<double> a0_, a_, b0_, x_;
  std::vector<lapack::index_t> ipiv_;
  std::optional<lapack::dsgesv_solver> dsgesv_;
  lapack::index_t iter_ = 0;
};

}  // namespace

void register_cpu_mixed_rows(const options& opt) {
  bool has_d = false;
  for (const auto& p : opt.precisions) has_d = has_d || p == "d";
  if (!has_d) return;  // these rows are fp64 in and out
  for (auto n : cpu_mixed_sizes(opt))
    for (auto kind : opt.mixed_kinds)
      for (bool mixed : {false, true}) {
        std::string row = std::string("CPU/") + (mixed ? "dsgesv" : "dgesv") + "/n:" + std::to_string(n) +
                          "/nrhs:1/kind:" + to_string(kind) + (mixed ? "/refine:classical" : "");
        register_row(row, [row, n, kind, mixed, seed = opt.seed](benchmark::State& state) {
          run_row<cpu_mixed_fixture>(state, row, [&] {
            return std::make_unique<cpu_mixed_fixture>(row, n, kind, seed, mixed);
          });
        });
      }
}

}  // namespace solvebench::bench
