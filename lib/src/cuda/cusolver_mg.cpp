// The cusolverMg solver over a context's devices: distributed matrices, generation, the blocking
// factor/solve calls and the residual that regenerates A instead of gathering it.

// Every cusolverMg entry point is [[deprecated]] in CUDA 13 (cuSOLVERMp replaces it), and we
// build with -Werror: the two translation units that call them (this one and
// cusolver_mg_context.cpp) silence it, before the first include of <cusolverMg.h>.
#define DISABLE_CUSOLVERMG_DEPRECATED
#include <cusolverMg.h>

#include "solvebench/cusolver_mg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "solvebench/device_generate.hpp"
#include "solvebench/device_residual.hpp"
#include "solvebench/precision.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::cuda::mg {
namespace {

// Precision enters through these one-line overloads; the bodies below are written once.
constexpr cudaDataType data_type(float) { return CUDA_R_32F; }
constexpr cudaDataType data_type(double) { return CUDA_R_64F; }
constexpr const char* type_name(float) { return "float"; }
constexpr const char* type_name(double) { return "double"; }

template <class T>
std::string routine(const char* op) {
  return std::string("cusolverMg") + op + "<" + type_name(T{}) + ">";
}

// The Mg API takes int sizes; callers have checked them against INT32_MAX.
int as_int(std::int64_t v) { return static_cast<int>(v); }
std::size_t as_size(std::int64_t v) { return static_cast<std::size_t>(v); }

matrix_desc make_desc(const context& ctx, std::int64_t rows, std::int64_t cols, std::int64_t tile, cudaDataType t) {
  cudaLibMgMatrixDesc_t d{};
  // 1-D column layout: one row block of all the rows, column blocks of `tile`.
  SB_CUSOLVER_CHECK(cusolverMgCreateMatrixDesc(&d, rows, cols, rows, tile, t, ctx.grid()));
  return matrix_desc(d);
}

std::int64_t rhs_tile(std::int64_t tile, std::int64_t nrhs) { return std::min(tile, nrhs); }

// `count` elements on device `d`, but at least one, so that every device of a distributed matrix
// passes a real pointer to cusolverMg.
template <class T>
device_buffer_on<T> part_on(int d, std::size_t count) {
  return device_buffer_on<T>(std::max<std::size_t>(count, 1), memory::on_device{d});
}

// One-element arrays, one per device: what the _bufferSize calls are given in place of the real
// matrices, so the workspace is known before anything of size n is allocated.
template <class T>
struct placeholders {
  std::vector<device_buffer_on<T>> owners;
  std::vector<T*> pointers;
  explicit placeholders(const context& ctx) {
    for (int d : ctx.devices()) {
      owners.push_back(part_on<T>(d, 1));
      pointers.push_back(owners.back().data());
    }
  }
  void** as_void() { return reinterpret_cast<void**>(pointers.data()); }
};

// lwork (elements of T per device) of the factorization and of the solve, the larger of the two,
// since one workspace serves both.
template <class T>
std::int64_t query_lwork(const context& ctx, factorization kind, std::int64_t n, std::int64_t nrhs, void** a,
                         void* desc_a, int** ipiv, void** b, void* desc_b) {
  std::int64_t lf = 0, ls = 0;
  const cudaDataType t = data_type(T{});
  scoped_device first(ctx.devices().front());  // as NVIDIA's examples call Mg: from the grid's first device
  if (kind == factorization::lu) {
    SB_CUSOLVER_CHECK(cusolverMgGetrf_bufferSize(ctx.handle(), as_int(n), as_int(n), a, 1, 1, desc_a, ipiv, t, &lf));
    SB_CUSOLVER_CHECK(cusolverMgGetrs_bufferSize(ctx.handle(), CUBLAS_OP_N, as_int(n), as_int(nrhs), a, 1, 1, desc_a,
                                                 ipiv, b, 1, 1, desc_b, t, &ls));
  } else {
    SB_CUSOLVER_CHECK(
        cusolverMgPotrf_bufferSize(ctx.handle(), CUBLAS_FILL_MODE_LOWER, as_int(n), a, 1, 1, desc_a, t, &lf));
    SB_CUSOLVER_CHECK(cusolverMgPotrs_bufferSize(ctx.handle(), CUBLAS_FILL_MODE_LOWER, as_int(n), as_int(nrhs), a, 1, 1,
                                                 desc_a, b, 1, 1, desc_b, t, &ls));
  }
  return std::max(lf, ls);
}

template <class T>
std::vector<device_need> needs_for(const context& ctx, factorization kind, std::int64_t n, std::int64_t nrhs,
                                   std::int64_t tile) {
  check_tile(tile);
  checked_size("n", n, std::numeric_limits<int>::max());
  checked_size("nrhs", nrhs, std::numeric_limits<int>::max());
  const std::int64_t ta = std::min(tile, n), tb = rhs_tile(tile, nrhs);
  const column_layout la(n, ta, ctx.device_count()), lb(nrhs, tb, ctx.device_count());
  const matrix_desc da = make_desc(ctx, n, n, ta, data_type(T{})), db = make_desc(ctx, n, nrhs, tb, data_type(T{}));
  placeholders<T> pa(ctx), pb(ctx);
  placeholders<int> pi(ctx);
  const std::int64_t lwork =
      query_lwork<T>(ctx, kind, n, nrhs, pa.as_void(), da.get(), pi.pointers.data(), pb.as_void(), db.get());
  std::vector<device_need> out;
  for (int p = 0; p < ctx.device_count(); ++p) {
    device_need need;
    need.device = ctx.devices()[as_size(p)];
    need.matrix_bytes = distributed_matrix<T>::bytes_on(n, la, p);
    need.rhs_bytes = distributed_matrix<T>::bytes_on(n, lb, p);
    need.workspace_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(lwork, 1)) * sizeof(T);
    if (kind == factorization::lu)
      need.pivot_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(la.allocated_cols(p), 1)) * sizeof(int);
    need.reserve_bytes = library_reserve_bytes;
    out.push_back(need);
  }
  return out;
}

template <class T>
std::vector<device_need> checked_needs(const context& ctx, factorization kind, std::int64_t n, std::int64_t nrhs,
                                       std::int64_t tile) {
  auto needs = needs_for<T>(ctx, kind, n, nrhs, tile);
  require_memory(needs);
  return needs;
}

}  // namespace

// ---- distributed matrices -----------------------------------------------------------------

template <class T>
distributed_matrix<T>::distributed_matrix(const context& ctx, std::int64_t rows, std::int64_t cols, std::int64_t tile)
    : ctx_(&ctx),
      rows_(rows),
      layout_(cols, tile, ctx.device_count()),
      desc_(make_desc(ctx, rows, cols, tile, data_type(T{}))) {
  for (int p = 0; p < ctx.device_count(); ++p) {
    parts_.push_back(part_on<T>(ctx.devices()[as_size(p)], as_size(rows * layout_.allocated_cols(p))));
    pointers_.push_back(parts_.back().data());
  }
}

template <class T>
std::vector<double> distributed_matrix<T>::column(std::int64_t j) const {
  if (j < 0 || j >= layout_.cols())
    throw invalid_argument("column " + std::to_string(j) + " of a matrix with " + std::to_string(layout_.cols()) +
                           " columns");
  const int p = layout_.owner(j);
  std::vector<T> h(as_size(rows_));
  scoped_device on(ctx_->devices()[as_size(p)]);
  SB_CUDA_CHECK(
      cudaMemcpy(h.data(), part(p) + layout_.local_col(j) * rows_, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
  return std::vector<double>(h.begin(), h.end());
}

template <class T>
std::uint64_t distributed_matrix<T>::bytes_on(std::int64_t rows, const column_layout& layout, int p) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(rows * layout.allocated_cols(p), 1)) * sizeof(T);
}

// ---- memory --------------------------------------------------------------------------------

void require_memory(const std::vector<device_need>& needs) {
  for (const auto& need : needs) {
    const device_memory mem = memory_info_of(need.device);
    if (need.total_bytes() > mem.free_bytes)
      throw out_of_memory("GPU " + std::to_string(need.device) + " (" + device_name(need.device) + ")",
                          need.total_bytes(), mem.free_bytes);
  }
}

// ---- the solver ----------------------------------------------------------------------------

template <class T>
std::vector<device_need> linear_system<T>::needs(const context& ctx, factorization kind, std::int64_t n,
                                                 std::int64_t nrhs, std::int64_t tile) {
  return needs_for<T>(ctx, kind, n, nrhs, tile);
}

template <class T>
linear_system<T>::linear_system(const context& ctx, factorization kind, std::int64_t n, std::int64_t nrhs,
                                std::int64_t tile)
    : ctx_(ctx),
      kind_(kind),
      n_(n),
      nrhs_(nrhs),
      tile_(tile),
      needs_(checked_needs<T>(ctx, kind, n, nrhs, tile)),
      a_(ctx, n, n, std::min(tile, n)),
      b_(ctx, n, nrhs, rhs_tile(tile, nrhs)) {
  lwork_ = static_cast<std::int64_t>(needs_.front().workspace_bytes / sizeof(T));
  for (int p = 0; p < ctx.device_count(); ++p) {
    const int d = ctx.devices()[as_size(p)];
    if (kind == factorization::lu) {
      ipiv_.push_back(part_on<int>(d, as_size(a_.layout().allocated_cols(p))));
      ipiv_pointers_.push_back(ipiv_.back().data());
    }
    work_.push_back(part_on<T>(d, as_size(lwork_)));
    work_pointers_.push_back(work_.back().data());
  }
}

template <class T>
void linear_system<T>::fill(bool a, bool b) {
  for (int p = 0; p < ctx_.device_count(); ++p) {
    scoped_device on(ctx_.devices()[as_size(p)]);
    const cudaStream_t s = ctx_.stream(p);
    if (a)
      for (const auto& blk : a_.layout().blocks_of(p))
        generate_matrix_columns(a_.part(p) + blk.local_first_col * n_, n_, matrix_kind_, seed_, n_, blk.first_col,
                                blk.cols, s);
    if (b)
      for (const auto& blk : b_.layout().blocks_of(p))
        generate_rhs_columns(b_.part(p) + blk.local_first_col * n_, n_, seed_, n_, blk.first_col, blk.cols, s);
  }
  for (int p = 0; p < ctx_.device_count(); ++p) {
    scoped_device on(ctx_.devices()[as_size(p)]);
    SB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream(p)));
  }
}

template <class T>
void linear_system<T>::generate(matrix_kind kind, std::uint64_t seed) {
  matrix_kind_ = kind;
  seed_ = seed;
  generated_ = a_holds_factors_ = factored_ = false;
  fill(true, true);
  generated_ = true;
}

template <class T>
void linear_system<T>::generate_rhs() {
  if (!generated_) throw invalid_argument("generate_rhs(): B has no (kind, seed) yet (generate() first)");
  fill(false, true);
}

template <class T>
void linear_system<T>::factor() {
  if (!generated_ || a_holds_factors_)
    throw invalid_argument("factor(): A does not hold a matrix (generate() it first, and again after each factor())");
  int info = 0;
  const cudaDataType t = data_type(T{});
  const bool lu = kind_ == factorization::lu;
  scoped_device first(ctx_.devices().front());
  if (lu)
    SB_CUSOLVER_CHECK(cusolverMgGetrf(ctx_.handle(), as_int(n_), as_int(n_), a_.parts(), 1, 1, a_.desc(),
                                      ipiv_pointers_.data(), t, work_pointers_.data(), lwork_, &info));
  else {
    const cusolverStatus_t status = cusolverMgPotrf(ctx_.handle(), CUBLAS_FILL_MODE_LOWER, as_int(n_), a_.parts(), 1, 1,
                                                    a_.desc(), t, work_pointers_.data(), lwork_, &info);
    // Measured on two H200s (CUDA 13.0): an indefinite matrix makes cusolverMgPotrf return
    // INTERNAL_ERROR, not info > 0 as cusolverDnXpotrf does, so no minor can be named.
    if (status == CUSOLVER_STATUS_INTERNAL_ERROR) {
      ctx_.synchronize();
      a_holds_factors_ = true;
      factored_ = false;
      throw error(routine<T>("Potrf") +
                  ": CUSOLVER_STATUS_INTERNAL_ERROR, which cusolverMg returns for a matrix "
                  "that is not positive definite (it names no minor; cusolverDnXpotrf on one GPU does)");
    }
    SB_CUSOLVER_CHECK(status);
  }
  ctx_.synchronize();
  a_holds_factors_ = true;
  factored_ = info == 0;
  throw_on_info(routine<T>(lu ? "Getrf" : "Potrf"), info, kind_);
}

template <class T>
void linear_system<T>::solve() {
  if (!factored_) throw invalid_argument("solve(): there are no factors (factor() first)");
  int info = 0;
  const cudaDataType t = data_type(T{});
  const bool lu = kind_ == factorization::lu;
  scoped_device first(ctx_.devices().front());
  if (lu)
    SB_CUSOLVER_CHECK(cusolverMgGetrs(ctx_.handle(), CUBLAS_OP_N, as_int(n_), as_int(nrhs_), a_.parts(), 1, 1,
                                      a_.desc(), ipiv_pointers_.data(), b_.parts(), 1, 1, b_.desc(), t,
                                      work_pointers_.data(), lwork_, &info));
  else
    SB_CUSOLVER_CHECK(cusolverMgPotrs(ctx_.handle(), CUBLAS_FILL_MODE_LOWER, as_int(n_), as_int(nrhs_), a_.parts(), 1,
                                      1, a_.desc(), b_.parts(), 1, 1, b_.desc(), t, work_pointers_.data(), lwork_,
                                      &info));
  ctx_.synchronize();
  throw_on_info(routine<T>(lu ? "Getrs" : "Potrs"), info, kind_);
}

template <class T>
std::vector<double> linear_system<T>::solution_column(std::int64_t j) const {
  return b_.column(j);
}

template <class T>
row_sums linear_system<T>::apply_a(const std::vector<double>& x, a_source source) const {
  if (static_cast<std::int64_t>(x.size()) != n_)
    throw invalid_argument("apply_a(): x has " + std::to_string(x.size()) + " entries, n = " + std::to_string(n_));
  if (!generated_) throw invalid_argument("apply_a(): nothing generated yet");
  if (source == a_source::stored && a_holds_factors_)
    throw invalid_argument(
        "apply_a(): A's tiles hold its factors since factor(); generate() it again or use "
        "a_source::regenerated");
  const int g = ctx_.device_count();
  const std::size_t un = as_size(n_);
  std::vector<device_buffer_on<double>> dx, dax, dabs;
  std::vector<std::vector<double>> hax(as_size(g), std::vector<double>(un)), habs = hax;
  for (int p = 0; p < g; ++p) {
    const int d = ctx_.devices()[as_size(p)];
    scoped_device on(d);
    const cudaStream_t s = ctx_.stream(p);
    dx.push_back(part_on<double>(d, un));
    dax.push_back(part_on<double>(d, un));
    dabs.push_back(part_on<double>(d, un));
    SB_CUDA_CHECK(cudaMemcpyAsync(dx.back().data(), x.data(), un * sizeof(double), cudaMemcpyHostToDevice, s));
    SB_CUDA_CHECK(cudaMemsetAsync(dax.back().data(), 0, un * sizeof(double), s));
    SB_CUDA_CHECK(cudaMemsetAsync(dabs.back().data(), 0, un * sizeof(double), s));
    for (const auto& blk : a_.layout().blocks_of(p)) {
      if (source == a_source::stored)
        accumulate_ax(a_.part(p) + blk.local_first_col * n_, n_, n_, blk.first_col, blk.cols, dx.back().data(),
                      dax.back().data(), dabs.back().data(), s);
      else
        accumulate_ax_generated<T>(matrix_kind_, seed_, n_, blk.first_col, blk.cols, dx.back().data(),
                                   dax.back().data(), dabs.back().data(), s);
    }
    SB_CUDA_CHECK(
        cudaMemcpyAsync(hax[as_size(p)].data(), dax.back().data(), un * sizeof(double), cudaMemcpyDeviceToHost, s));
    SB_CUDA_CHECK(
        cudaMemcpyAsync(habs[as_size(p)].data(), dabs.back().data(), un * sizeof(double), cudaMemcpyDeviceToHost, s));
  }
  for (int p = 0; p < g; ++p) {
    scoped_device on(ctx_.devices()[as_size(p)]);
    SB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream(p)));
  }
  row_sums out{std::vector<double>(un, 0.0), std::vector<double>(un, 0.0)};
  for (int p = 0; p < g; ++p)  // in device order, so the sum does not depend on which finished first
    for (std::size_t i = 0; i < un; ++i) {
      out.ax[i] += hax[as_size(p)][i];
      out.abs_rows[i] += habs[as_size(p)][i];
    }
  return out;
}

template <class T>
double linear_system<T>::scaled_residual(const std::vector<double>& x, std::int64_t j, a_source source) const {
  if (j < 0 || j >= nrhs_)
    throw invalid_argument("right-hand side " + std::to_string(j) + " of " + std::to_string(nrhs_));
  const row_sums rows = apply_a(x, source);
  const std::uint64_t key = rng::rhs_key(seed_);
  std::vector<double> b(as_size(n_)), r(as_size(n_));
  for (std::int64_t i = 0; i < n_; ++i) {
    const auto k = as_size(i);
    b[k] = static_cast<double>(static_cast<T>(rhs_entry(key, n_, i, j)));  // B as it was stored
    r[k] = b[k] - rows.ax[k];
  }
  return solvebench::hpl_scaled_residual(inf_norm(r), inf_norm(rows.abs_rows), inf_norm(x), inf_norm(b), n_,
                                         unit_roundoff<T>());
}

template <class T>
double linear_system<T>::scaled_residual() const {
  double worst = 0;
  for (std::int64_t j = 0; j < nrhs_; ++j) {
    const double r = scaled_residual(solution_column(j), j, a_source::regenerated);
    if (!(r <= worst)) worst = r;  // NaN stays
  }
  return worst;
}

#define SB_INSTANTIATE(T)               \
  template class distributed_matrix<T>; \
  template class linear_system<T>;
SOLVE_BENCH_FOR_EACH_REAL_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::cuda::mg
