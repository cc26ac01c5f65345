// GPU rows: cuSOLVER gesv, posv, their halves and cuBLAS GEMM with A and b resident on the
// device (GPU/...), and gesv/posv including the host transfers a caller pays
// (GPU-pinned/..., GPU-pageable/...). Timed with CUDA events on the solver's stream.
#include <memory>
#include <optional>

#include "gpu_context.hpp"
#include "harness.hpp"
#include "operations.hpp"
#include "options.hpp"
#include "registry.hpp"
#include "solvebench/cusolver.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {
namespace {

using cuda::device_buffer;

// Where A and b start and x ends: on the device, or in (pinned | pageable) host memory.
enum class residence { device, pinned, pageable };

const char* backend_name(residence r) {
  switch (r) {
    case residence::device: return "GPU";
    case residence::pinned: return "GPU-pinned";
    case residence::pageable: return "GPU-pageable";
  }
  return "?";
}

// Host copies of A, b and x for the transfer-inclusive rows, pinned or pageable.
template <class T>
class host_side {
 public:
  host_side(residence r, const host_matrix<T>& a, const host_matrix<T>& b) : pinned_(r == residence::pinned) {
    if (pinned_) {
      pa_ = cuda::pinned_buffer<T>(a.size());
      pb_ = cuda::pinned_buffer<T>(b.size());
      px_ = cuda::pinned_buffer<T>(b.size());
      std::copy(a.data(), a.data() + a.size(), pa_.data());
      std::copy(b.data(), b.data() + b.size(), pb_.data());
    } else {
      a_ = a;
      b_ = b;
      x_ = host_matrix<T>(b.rows(), b.cols());
    }
  }
  const T* a() const { return pinned_ ? pa_.data() : a_.data(); }
  const T* b() const { return pinned_ ? pb_.data() : b_.data(); }
  T* x() { return pinned_ ? px_.data() : x_.data(); }

 private:
  bool pinned_;
  cuda::pinned_buffer<T> pa_, pb_, px_;
  host_matrix<T> a_, b_, x_;
};

template <class T>
class gpu_fixture {
 public:
  gpu_fixture(cuda::context& ctx, operation op, std::int64_t n, std::int64_t nrhs, matrix_kind kind,
              std::uint64_t seed, residence where, cuda::cusolver_api api)
      : watch_(row_name<T>(backend_name(where), op, n, nrhs)), ctx_(ctx), op_(op), n_(n), nrhs_(has_rhs(op) ? nrhs : 1), where_(where),
        row_(row_name<T>(backend_name(where), op, n, nrhs)) {
    const auto un = static_cast<std::size_t>(n), uk = static_cast<std::size_t>(nrhs_);
    const std::size_t nn = un * un, nk = un * uk;

    // Everything this row will hold on the device, checked before anything is allocated.
    cuda::workspace_size ws;
    if (op != operation::gemm)
      ws = is_cholesky(op) ? cuda::cholesky_solver<T>::query(ctx, n, api) : cuda::lu_solver<T>::query(ctx, n, api);
    const std::size_t matrices = op == operation::gemm ? 3 * nn : where == residence::device ? 2 * nn + 2 * nk
                                                                                             : nn + 2 * nk;
    cuda::require_device_memory(matrices * sizeof(T) + ws.device_bytes + 4 * un * sizeof(double));
    if (where != residence::device) require_host_memory((nn + 3 * nk) * sizeof(T) * 2);

    a_ = device_buffer<T>(nn);
    b_ = device_buffer<T>(op == operation::gemm ? nn : nk);
    b0_ = device_buffer<T>(op == operation::gemm ? nn : nk);
    if (op == operation::gemm) {
      cuda::generate_matrix(a_.data(), matrix_kind::uniform, n, seed, ctx.stream());
      cuda::generate_matrix(b0_.data(), matrix_kind::uniform, n, seed + 1, ctx.stream());
    } else {
      cuda::generate_rhs(b0_.data(), n, nrhs_, seed, ctx.stream());
      if (where == residence::device) {
        a0_ = device_buffer<T>(nn);
        cuda::generate_matrix(a0_.data(), kind, n, seed, ctx.stream());
      } else {  // the caller's A and b live on the host
        host_.emplace(where, generate_matrix<T>(kind, n, seed), generate_rhs<T>(n, nrhs_, seed));
      }
      if (is_cholesky(op)) chol_.emplace(ctx, n, nrhs_, api);
      else lu_.emplace(ctx, n, nrhs_, api);
    }
    if (op == operation::getrs || op == operation::potrs) {  // solve-only rows reuse factors made here
      copy(a_.data(), a0_.data(), nn);
      factor();
    }
    run_once();  // warm-up: module loading and first-call costs stay out of the numbers
    check_info();
  }

  double run_once() {
    return where_ == residence::device ? run_resident() : run_with_transfers();
  }

  double check() {
    check_info();
    const cudaStream_t s = ctx_.stream();
    double resid;
    if (op_ == operation::gemm) {
      resid = cuda::gemm_scaled_residual(a_.data(), b0_.data(), b_.data(), n_, s);
    } else if (where_ != residence::device) {
      // Check the answer the caller received: host x against the host A and b, on the device.
      copy_to_device(a_.data(), host_->a(), a_.size());
      copy_to_device(b_.data(), host_->x(), b_.size());
      copy_to_device(b0_.data(), host_->b(), b0_.size());
      resid = cuda::hpl_scaled_residual(a_.data(), b_.data(), b0_.data(), n_, nrhs_, s);
    } else {
      if (!has_rhs(op_)) {  // factor-only rows: solve with the timed factors, then check that
        copy(b_.data(), b0_.data(), b_.size());
        solve();
        check_info();
      }
      resid = cuda::hpl_scaled_residual(a0_.data(), b_.data(), b0_.data(), n_, nrhs_, s);
    }
    check_residual(row_, resid);
    return resid;
  }

  double flops() const { return bench::flops(op_, n_, nrhs_); }

  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(n_);
    if (has_rhs(op_)) state.counters["nrhs"] = static_cast<double>(nrhs_);
    if (where_ != residence::device && transfer_seconds_ > 0) {
      const double bytes = static_cast<double>((a_.size() + 2 * b_.size()) * sizeof(T)) * static_cast<double>(runs_);
      state.counters["xfer_GB/s"] = bytes / transfer_seconds_ / 1e9;
      state.counters["xfer_share"] = transfer_seconds_ / total_seconds_;
    }
  }

 private:
  void copy(T* dst, const T* src, std::size_t count) {
    SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyDeviceToDevice, ctx_.stream()));
  }
  void copy_to_device(T* dst, const T* src, std::size_t count) {
    SB_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(T), cudaMemcpyHostToDevice, ctx_.stream()));
  }
  void factor() { chol_ ? chol_->factor(a_.data()) : lu_->factor(a_.data()); }
  void solve() { chol_ ? chol_->solve(a_.data(), b_.data()) : lu_->solve(a_.data(), b_.data()); }
  void check_info() const {
    if (chol_) chol_->check_info();
    if (lu_) lu_->check_info();
  }

  // A and b already on the device; restore what the last call overwrote, untimed.
  double run_resident() {
    if (op_ == operation::gesv || op_ == operation::getrf || op_ == operation::posv || op_ == operation::potrf)
      copy(a_.data(), a0_.data(), a_.size());
    if (has_rhs(op_)) copy(b_.data(), b0_.data(), b_.size());
    const cudaStream_t s = ctx_.stream();
    timer_.start(s);
    switch (op_) {
      case operation::gesv: case operation::posv: factor(); solve(); break;
      case operation::getrf: case operation::potrf: factor(); break;
      case operation::getrs: case operation::potrs: solve(); break;
      case operation::gemm: cuda::gemm(ctx_, n_, a_.data(), b0_.data(), b_.data()); break;
    }
    timer_.stop(s);
    return timer_.elapsed_seconds();
  }

  // What a caller with A and b in host memory pays: H2D of A and b, the solve, D2H of x.
  double run_with_transfers() {
    const cudaStream_t s = ctx_.stream();
    start_.record(s);
    copy_to_device(a_.data(), host_->a(), a_.size());
    copy_to_device(b_.data(), host_->b(), b_.size());
    uploaded_.record(s);
    factor();
    solve();
    solved_.record(s);
    SB_CUDA_CHECK(cudaMemcpyAsync(host_->x(), b_.data(), b_.size() * sizeof(T), cudaMemcpyDeviceToHost, s));
    stop_.record(s);
    const double total = cuda::seconds_between(start_, stop_);
    transfer_seconds_ += cuda::seconds_between(start_, uploaded_) + cuda::seconds_between(solved_, stop_);
    total_seconds_ += total;
    ++runs_;
    return total;
  }

  device_memory_watch watch_;  // first: checks, last, that the rest returned its memory
  cuda::context& ctx_;
  operation op_;
  std::int64_t n_, nrhs_;
  residence where_;
  std::string row_;
  device_buffer<T> a0_, a_, b0_, b_;  // GEMM: A = a_, B = b0_, C = b_
  std::optional<cuda::lu_solver<T>> lu_;
  std::optional<cuda::cholesky_solver<T>> chol_;
  std::optional<host_side<T>> host_;
  cuda::event_timer timer_;
  cuda::event start_, uploaded_, solved_, stop_;
  double transfer_seconds_ = 0, total_seconds_ = 0;
  std::int64_t runs_ = 0;
};

template <class T>
void register_family(const options& opt, operation op, residence where) {
  const auto api = cuda::parse_cusolver_api(opt.cusolver_api);
  const std::string backend = backend_name(where);
  auto* family = benchmark::RegisterBenchmark(
      family_name<T>(backend, op).c_str(), [op, where, api, opt, backend](benchmark::State& state) {
        const std::int64_t n = state.range(0), nrhs = has_rhs(op) ? state.range(1) : 1;
        const std::string row = row_name<T>(backend, op, n, nrhs);
        run_gpu_row<gpu_fixture<T>>(state, row, [&](cuda::context& ctx) {
          return std::make_unique<gpu_fixture<T>>(ctx, op, n, nrhs, kind_for(op, opt.kind), opt.seed, where, api);
        });
      });
  family->UseManualTime()->Unit(benchmark::kMillisecond);
  const auto sizes = gpu_sizes(opt);
  if (has_rhs(op)) {
    family->ArgNames({"n", "nrhs"});
    for (auto n : sizes)
      for (auto k : opt.nrhs) family->Args({n, k});
  } else {
    family->ArgNames({"n"});
    for (auto n : sizes) family->Args({n});
  }
}

template <class T>
void register_precision(const options& opt) {
  for (operation op : all_operations) register_family<T>(opt, op, residence::device);
  for (residence where : {residence::pinned, residence::pageable})
    for (operation op : {operation::gesv, operation::posv}) register_family<T>(opt, op, where);
}

}  // namespace

void register_gpu_solve_rows(const options& opt) {
  for (const auto& p : opt.precisions) {
    if (p == "d") register_precision<double>(opt);
    if (p == "s") register_precision<float>(opt);
  }
}

}  // namespace solvebench::bench
