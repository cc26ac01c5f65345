// Many small systems on the GPU: batched LU (cuBLAS) and Cholesky (cuSOLVER) over a strided
// batch, and the naive way, one cuSOLVER getrf + getrs launch pair per system.
// Rows: GPU/dgesv_batched/n:N/batch:B, GPU/dposv_batched/..., GPU-loop/dgesv_batched/...
#include <optional>
#include <variant>

#include "batched_rows.hpp"
#include "gpu_context.hpp"
#include "harness.hpp"
#include "options.hpp"
#include "solvebench/cusolver_batched.hpp"
#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {
namespace {

using cuda::device_buffer;

enum class batch_method { batched_lu, batched_cholesky, loop_lu };

template <class T>
class gpu_batched_fixture {
 public:
  gpu_batched_fixture(cuda::context& ctx, std::string row, batch_method method, std::int64_t n, std::int64_t count,
                      std::uint64_t seed)
      : watch_(row), ctx_(ctx), row_(std::move(row)), method_(method), n_(n), count_(count) {
    const auto nn = static_cast<std::size_t>(n * n), un = static_cast<std::size_t>(n),
               total = static_cast<std::size_t>(count);
    const std::size_t loop_work =
        method == batch_method::loop_lu ? cuda::lu_solver<T>::query(ctx, n, cuda::cusolver_api::generic64).device_bytes
                                        : 0;
    cuda::require_device_memory(2 * (nn + un) * total * sizeof(T) + (un + 3) * total * sizeof(std::int64_t) +
                                loop_work + total * sizeof(double));
    a0_ = device_buffer<T>(nn * total);
    a_ = device_buffer<T>(nn * total);
    b0_ = device_buffer<T>(un * total);
    b_ = device_buffer<T>(un * total);
    const bool cholesky = method == batch_method::batched_cholesky;
    cuda::generate_matrix_batch(a0_.data(), batch_kind(cholesky), n, count, seed, ctx.stream());
    cuda::generate_rhs_batch(b0_.data(), n, count, seed, ctx.stream());
    switch (method) {
      case batch_method::batched_lu: lu_.emplace(ctx, a_.data(), b_.data(), n, count); break;
      case batch_method::batched_cholesky: chol_.emplace(ctx, a_.data(), b_.data(), n, count); break;
      case batch_method::loop_lu: loop_.emplace(ctx, n, 1); break;
    }
    run_once();  // warm-up
    check_info();
  }

  double run_once() {
    const cudaStream_t s = ctx_.stream();
    SB_CUDA_CHECK(cudaMemcpyAsync(a_.data(), a0_.data(), a_.size_bytes(), cudaMemcpyDeviceToDevice, s));
    SB_CUDA_CHECK(cudaMemcpyAsync(b_.data(), b0_.data(), b_.size_bytes(), cudaMemcpyDeviceToDevice, s));
    timer_.start(s);
    switch (method_) {
      case batch_method::batched_lu: lu_->factor(); lu_->solve(); break;
      case batch_method::batched_cholesky: chol_->factor(); chol_->solve(); break;
      case batch_method::loop_lu:
        for (std::int64_t k = 0; k < count_; ++k) {
          T* a = a_.data() + k * n_ * n_;
          loop_->factor(a);
          loop_->solve(a, b_.data() + k * n_);
        }
        break;
    }
    timer_.stop(s);
    return timer_.elapsed_seconds();
  }

  double check() {
    check_info();
    const auto worst = cuda::batched_hpl_scaled_residual(a0_.data(), b_.data(), b0_.data(), n_, count_, ctx_.stream());
    worst_index_ = worst.worst_index;
    check_residual(row_ + " (worst system " + std::to_string(worst.worst_index) + ")", worst.worst);
    return worst.worst;
  }

  double flops() const { return batch_flops(method_ == batch_method::batched_cholesky, n_, count_); }
  void add_counters(benchmark::State& state) const { add_batch_counters(state, n_, count_, worst_index_); }

 private:
  void check_info() const {
    if (lu_) lu_->check_info();
    if (chol_) chol_->check_info();
    if (loop_) loop_->check_info();  // the last system's info; the residual checks every system
  }

  device_memory_watch watch_;  // first: checks, last, that the rest returned its memory
  cuda::context& ctx_;
  std::string row_;
  batch_method method_;
  std::int64_t n_, count_;
  device_buffer<T> a0_, a_, b0_, b_;
  std::optional<cuda::batched_lu<T>> lu_;
  std::optional<cuda::batched_cholesky<T>> chol_;
  std::optional<cuda::lu_solver<T>> loop_;
  cuda::event_timer timer_;
  std::int64_t worst_index_ = 0;
};

// The naive per-system loop is slow by design: a few sizes are enough to show it.
bool naive_loop_size(std::int64_t n) { return n == 8 || n == 32 || n == 128; }

template <class T>
void register_one(const options& opt, const std::string& backend, batch_method method, std::int64_t n,
                  std::int64_t count) {
  const std::string row = batch_row_name<T>(backend, method == batch_method::batched_cholesky, n, count);
  register_row(row, [=, seed = opt.seed](benchmark::State& state) {
    run_gpu_row<gpu_batched_fixture<T>>(state, row, [&](cuda::context& ctx) {
      return std::make_unique<gpu_batched_fixture<T>>(ctx, row, method, n, count, seed);
    });
  });
}

template <class T>
void register_precision(const options& opt) {
  for (auto method : {batch_method::batched_lu, batch_method::batched_cholesky})
    for (auto n : opt.batch_n)
      for (auto count : opt.batch_count) register_one<T>(opt, "GPU", method, n, count);
  if constexpr (std::is_same_v<T, double>)
    for (auto n : opt.batch_n)
      for (auto count : opt.batch_count)
        if (naive_loop_size(n)) register_one<T>(opt, "GPU-loop", batch_method::loop_lu, n, count);
}

}  // namespace

void register_gpu_batched_rows(const options& opt) {
  for (const auto& p : opt.precisions) {
    if (p == "d") register_precision<double>(opt);
    if (p == "s") register_precision<float>(opt);
  }
}

}  // namespace solvebench::bench
