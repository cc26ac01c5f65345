// cuSOLVER/cuBLAS calls: workspace once, info read after the fact, typed errors.
#include "solvebench/cusolver.hpp"

#include <type_traits>

#include "solvebench/errors.hpp"

namespace solvebench::cuda {
namespace {

template <class T>
constexpr cudaDataType data_type() {
  return std::is_same_v<T, double> ? CUDA_R_64F : CUDA_R_32F;
}

template <class T>
std::string routine(const char* generic, const char* legacy_op, cusolver_api api) {
  if (api == cusolver_api::generic64) return std::string("cusolverDn") + generic + (std::is_same_v<T, double> ? "<double>" : "<float>");
  return std::string("cusolverDn") + (std::is_same_v<T, double> ? "D" : "S") + legacy_op;
}

int legacy_int(std::int64_t v, const char* what) {
  if (v > 2147483647) throw invalid_argument(std::string(what) + " = " + std::to_string(v) +
                                             " overflows the legacy 32-bit cuSOLVER API; use the generic 64-bit API");
  return static_cast<int>(v);
}

// The legacy API counts the workspace in an int of elements; a size past 2^31 - 1 would come
// back wrapped, and allocating it as a size_t would ask for exabytes.
template <class T>
std::size_t legacy_workspace_bytes(int lwork, const char* op, std::int64_t n) {
  if (lwork < 0)
    throw invalid_argument(routine<T>("", op, cusolver_api::legacy32) + "_bufferSize: the workspace for n = " +
                           std::to_string(n) +
                           " overflows the legacy 32-bit API's int lwork; use the generic 64-bit API");
  return static_cast<std::size_t>(lwork) * sizeof(T);
}

std::int64_t to_host_info(const device_buffer<int>& info, std::size_t index, cudaStream_t stream) {
  int h[2] = {0, 0};
  SB_CUDA_CHECK(cudaMemcpyAsync(h, info.data(), info.size_bytes(), cudaMemcpyDeviceToHost, stream));
  SB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return h[index];
}

}  // namespace

const char* to_string(cusolver_api api) noexcept { return api == cusolver_api::generic64 ? "generic64" : "legacy32"; }

cusolver_api parse_cusolver_api(const std::string& text) {
  if (text == "generic64") return cusolver_api::generic64;
  if (text == "legacy32") return cusolver_api::legacy32;
  throw invalid_argument("unknown cuSOLVER API '" + text + "' (expected generic64 or legacy32)");
}

context::context() : solver_(stream_.get()), blas_(stream_.get()) {}

// ---- LU ---------------------------------------------------------------------------------

template <class T>
workspace_size lu_solver<T>::query(const context& ctx, std::int64_t n, cusolver_api api) {
  workspace_size ws;
  if (api == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXgetrf_bufferSize(ctx.solver(), ctx.params(), n, n, data_type<T>(), nullptr, n,
                                                  data_type<T>(), &ws.device_bytes, &ws.host_bytes));
  } else {
    int lwork = 0;
    const int ni = legacy_int(n, "n");
    if constexpr (std::is_same_v<T, double>)
      SB_CUSOLVER_CHECK(cusolverDnDgetrf_bufferSize(ctx.solver(), ni, ni, nullptr, ni, &lwork));
    else
      SB_CUSOLVER_CHECK(cusolverDnSgetrf_bufferSize(ctx.solver(), ni, ni, nullptr, ni, &lwork));
    ws.device_bytes = legacy_workspace_bytes<T>(lwork, "getrf", n);
  }
  return ws;
}

template <class T>
lu_solver<T>::lu_solver(const context& ctx, std::int64_t n, std::int64_t nrhs, cusolver_api api)
    : ctx_(ctx), n_(checked_size("n", n, INT64_MAX / 2)), nrhs_(checked_size("nrhs", nrhs, INT64_MAX / 2)), api_(api) {
  const workspace_size ws = query(ctx, n, api);
  work_ = device_buffer<std::byte>(ws.device_bytes);
  host_work_.resize(ws.host_bytes);
  const auto un = static_cast<std::size_t>(n);
  if (api == cusolver_api::generic64) ipiv64_ = device_buffer<std::int64_t>(un);
  else ipiv32_ = device_buffer<int>(un);
  info_ = device_buffer<int>(2);
  SB_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, info_.size_bytes(), ctx.stream()));
}

template <class T>
void lu_solver<T>::factor(T* a) {
  if (api_ == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXgetrf(ctx_.solver(), ctx_.params(), n_, n_, data_type<T>(), a, n_, ipiv64_.data(),
                                       data_type<T>(), work_.data(), work_.size(), host_work_.data(),
                                       host_work_.size(), info_.data()));
  } else {
    const int n = static_cast<int>(n_);
    if constexpr (std::is_same_v<T, double>)
      SB_CUSOLVER_CHECK(cusolverDnDgetrf(ctx_.solver(), n, n, a, n, reinterpret_cast<T*>(work_.data()),
                                         ipiv32_.data(), info_.data()));
    else
      SB_CUSOLVER_CHECK(cusolverDnSgetrf(ctx_.solver(), n, n, a, n, reinterpret_cast<T*>(work_.data()),
                                         ipiv32_.data(), info_.data()));
  }
}

template <class T>
void lu_solver<T>::solve(const T* lu, T* b) {
  if (api_ == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXgetrs(ctx_.solver(), ctx_.params(), CUBLAS_OP_N, n_, nrhs_, data_type<T>(), lu, n_,
                                       ipiv64_.data(), data_type<T>(), b, n_, info_.data() + 1));
  } else {
    const int n = static_cast<int>(n_), k = legacy_int(nrhs_, "nrhs");
    if constexpr (std::is_same_v<T, double>)
      SB_CUSOLVER_CHECK(cusolverDnDgetrs(ctx_.solver(), CUBLAS_OP_N, n, k, lu, n, ipiv32_.data(), b, n,
                                         info_.data() + 1));
    else
      SB_CUSOLVER_CHECK(cusolverDnSgetrs(ctx_.solver(), CUBLAS_OP_N, n, k, lu, n, ipiv32_.data(), b, n,
                                         info_.data() + 1));
  }
}

template <class T>
void lu_solver<T>::check_info() const {
  throw_on_info(routine<T>("Xgetrf", "getrf", api_), to_host_info(info_, 0, ctx_.stream()), factorization::lu);
  throw_on_info(routine<T>("Xgetrs", "getrs", api_), to_host_info(info_, 1, ctx_.stream()), factorization::lu);
}

template <class T>
std::size_t lu_solver<T>::device_bytes() const noexcept {
  return work_.size_bytes() + ipiv64_.size_bytes() + ipiv32_.size_bytes() + info_.size_bytes();
}

// ---- Cholesky ----------------------------------------------------------------------------

template <class T>
workspace_size cholesky_solver<T>::query(const context& ctx, std::int64_t n, cusolver_api api) {
  workspace_size ws;
  if (api == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(ctx.solver(), ctx.params(), CUBLAS_FILL_MODE_LOWER, n,
                                                  data_type<T>(), nullptr, n, data_type<T>(), &ws.device_bytes,
                                                  &ws.host_bytes));
  } else {
    int lwork = 0;
    const int ni = legacy_int(n, "n");
    if constexpr (std::is_same_v<T, double>)
      SB_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(ctx.solver(), CUBLAS_FILL_MODE_LOWER, ni, nullptr, ni, &lwork));
    else
      SB_CUSOLVER_CHECK(cusolverDnSpotrf_bufferSize(ctx.solver(), CUBLAS_FILL_MODE_LOWER, ni, nullptr, ni, &lwork));
    ws.device_bytes = legacy_workspace_bytes<T>(lwork, "potrf", n);
  }
  return ws;
}

template <class T>
cholesky_solver<T>::cholesky_solver(const context& ctx, std::int64_t n, std::int64_t nrhs, cusolver_api api)
    : ctx_(ctx), n_(checked_size("n", n, INT64_MAX / 2)), nrhs_(checked_size("nrhs", nrhs, INT64_MAX / 2)), api_(api) {
  const workspace_size ws = query(ctx, n, api);
  work_ = device_buffer<std::byte>(ws.device_bytes);
  host_work_.resize(ws.host_bytes);
  info_ = device_buffer<int>(2);
  SB_CUDA_CHECK(cudaMemsetAsync(info_.data(), 0, info_.size_bytes(), ctx.stream()));
}

template <class T>
void cholesky_solver<T>::factor(T* a) {
  if (api_ == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXpotrf(ctx_.solver(), ctx_.params(), CUBLAS_FILL_MODE_LOWER, n_, data_type<T>(), a,
                                       n_, data_type<T>(), work_.data(), work_.size(), host_work_.data(),
                                       host_work_.size(), info_.data()));
  } else {
    const int n = static_cast<int>(n_);
    const int lwork = static_cast<int>(work_.size() / sizeof(T));
    if constexpr (std::is_same_v<T, double>)
      SB_CUSOLVER_CHECK(cusolverDnDpotrf(ctx_.solver(), CUBLAS_FILL_MODE_LOWER, n, a, n,
                                         reinterpret_cast<T*>(work_.data()), lwork, info_.data()));
    else
      SB_CUSOLVER_CHECK(cusolverDnSpotrf(ctx_.solver(), CUBLAS_FILL_MODE_LOWER, n, a, n,
                                         reinterpret_cast<T*>(work_.data()), lwork, info_.data()));
  }
}

template <class T>
void cholesky_solver<T>::solve(const T* l, T* b) {
  if (api_ == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXpotrs(ctx_.solver(), ctx_.params(), CUBLAS_FILL_MODE_LOWER, n_, nrhs_,
                                       data_type<T>(), l, n_, data_type<T>(), b, n_, info_.data() + 1));
  } else {
    const int n = static_cast<int>(n_), k = legacy_int(nrhs_, "nrhs");
    if constexpr (std::is_same_v<T, double>)
      SB_CUSOLVER_CHECK(cusolverDnDpotrs(ctx_.solver(), CUBLAS_FILL_MODE_LOWER, n, k, l, n, b, n, info_.data() + 1));
    else
      SB_CUSOLVER_CHECK(cusolverDnSpotrs(ctx_.solver(), CUBLAS_FILL_MODE_LOWER, n, k, l, n, b, n, info_.data() + 1));
  }
}

template <class T>
void cholesky_solver<T>::check_info() const {
  throw_on_info(routine<T>("Xpotrf", "potrf", api_), to_host_info(info_, 0, ctx_.stream()), factorization::cholesky);
  throw_on_info(routine<T>("Xpotrs", "potrs", api_), to_host_info(info_, 1, ctx_.stream()), factorization::cholesky);
}

template <class T>
std::size_t cholesky_solver<T>::device_bytes() const noexcept {
  return work_.size_bytes() + info_.size_bytes();
}

// ---- GEMM ---------------------------------------------------------------------------------

template <class T>
void gemm(const context& ctx, std::int64_t n, const T* a, const T* b, T* c) {
  const T one = 1, zero = 0;
  // cublas?gemm_64 takes 64-bit sizes (CUDA 12+), so large n needs no special case.
  if constexpr (std::is_same_v<T, double>)
    SB_CUBLAS_CHECK(cublasDgemm_64(ctx.blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
  else
    SB_CUBLAS_CHECK(cublasSgemm_64(ctx.blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
}

template class lu_solver<float>;
template class lu_solver<double>;
template class cholesky_solver<float>;
template class cholesky_solver<double>;
template void gemm(const context&, std::int64_t, const float*, const float*, float*);
template void gemm(const context&, std::int64_t, const double*, const double*, double*);

}  // namespace solvebench::cuda
