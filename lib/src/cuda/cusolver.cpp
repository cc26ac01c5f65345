// cuSOLVER/cuBLAS calls (s, d, c, z): workspace once, info read after the fact, typed errors.
#include "solvebench/cusolver.hpp"

#include <complex>

#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::cuda {
namespace {

using zcomplex = std::complex<double>;
using ccomplex = std::complex<float>;

constexpr cudaDataType data_type(const double*) { return CUDA_R_64F; }
constexpr cudaDataType data_type(const float*) { return CUDA_R_32F; }
constexpr cudaDataType data_type(const zcomplex*) { return CUDA_C_64F; }
constexpr cudaDataType data_type(const ccomplex*) { return CUDA_C_32F; }
template <class T>
constexpr cudaDataType data_type() {
  return data_type(static_cast<const T*>(nullptr));
}

// The legacy 32-bit API, one line per routine and precision.
using handle = cusolverDnHandle_t;
constexpr auto lower = CUBLAS_FILL_MODE_LOWER;
cusolverStatus_t getrf_work(handle h, int n, const double*, int* lwork) {
  return cusolverDnDgetrf_bufferSize(h, n, n, nullptr, n, lwork);
}
cusolverStatus_t getrf_work(handle h, int n, const float*, int* lwork) {
  return cusolverDnSgetrf_bufferSize(h, n, n, nullptr, n, lwork);
}
cusolverStatus_t getrf(handle h, int n, double* a, void* w, int* p, int* info) {
  return cusolverDnDgetrf(h, n, n, a, n, static_cast<double*>(w), p, info);
}
cusolverStatus_t getrf(handle h, int n, float* a, void* w, int* p, int* info) {
  return cusolverDnSgetrf(h, n, n, a, n, static_cast<float*>(w), p, info);
}
cusolverStatus_t getrs(handle h, int n, int k, const double* a, const int* p, double* b, int* info) {
  return cusolverDnDgetrs(h, CUBLAS_OP_N, n, k, a, n, p, b, n, info);
}
cusolverStatus_t getrs(handle h, int n, int k, const float* a, const int* p, float* b, int* info) {
  return cusolverDnSgetrs(h, CUBLAS_OP_N, n, k, a, n, p, b, n, info);
}
cusolverStatus_t potrf_work(handle h, int n, const double*, int* lwork) {
  return cusolverDnDpotrf_bufferSize(h, lower, n, nullptr, n, lwork);
}
cusolverStatus_t potrf_work(handle h, int n, const float*, int* lwork) {
  return cusolverDnSpotrf_bufferSize(h, lower, n, nullptr, n, lwork);
}
cusolverStatus_t potrf(handle h, int n, double* a, void* w, int lwork, int* info) {
  return cusolverDnDpotrf(h, lower, n, a, n, static_cast<double*>(w), lwork, info);
}
cusolverStatus_t potrf(handle h, int n, float* a, void* w, int lwork, int* info) {
  return cusolverDnSpotrf(h, lower, n, a, n, static_cast<float*>(w), lwork, info);
}
cusolverStatus_t potrs(handle h, int n, int k, const double* a, double* b, int* info) {
  return cusolverDnDpotrs(h, lower, n, k, a, n, b, n, info);
}
cusolverStatus_t potrs(handle h, int n, int k, const float* a, float* b, int* info) {
  return cusolverDnSpotrs(h, lower, n, k, a, n, b, n, info);
}
cublasStatus_t gemm64(cublasHandle_t h, std::int64_t n, const double* a, const double* b, double* c) {
  const double one = 1, zero = 0;
  return cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}
cublasStatus_t gemm64(cublasHandle_t h, std::int64_t n, const float* a, const float* b, float* c) {
  const float one = 1, zero = 0;
  return cublasSgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
}

// Complex: std::complex<R> has cuComplex's layout (two Rs), so the pointers are reinterpreted.
// Cholesky is on the lower triangle of a Hermitian matrix.
cuDoubleComplex* cu(zcomplex* p) { return reinterpret_cast<cuDoubleComplex*>(p); }
const cuDoubleComplex* cu(const zcomplex* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }
cuComplex* cu(ccomplex* p) { return reinterpret_cast<cuComplex*>(p); }
const cuComplex* cu(const ccomplex* p) { return reinterpret_cast<const cuComplex*>(p); }
cusolverStatus_t getrf_work(handle h, int n, const zcomplex*, int* lwork) {
  return cusolverDnZgetrf_bufferSize(h, n, n, nullptr, n, lwork);
}
cusolverStatus_t getrf_work(handle h, int n, const ccomplex*, int* lwork) {
  return cusolverDnCgetrf_bufferSize(h, n, n, nullptr, n, lwork);
}
cusolverStatus_t getrf(handle h, int n, zcomplex* a, void* w, int* p, int* info) {
  return cusolverDnZgetrf(h, n, n, cu(a), n, static_cast<cuDoubleComplex*>(w), p, info);
}
cusolverStatus_t getrf(handle h, int n, ccomplex* a, void* w, int* p, int* info) {
  return cusolverDnCgetrf(h, n, n, cu(a), n, static_cast<cuComplex*>(w), p, info);
}
cusolverStatus_t getrs(handle h, int n, int k, const zcomplex* a, const int* p, zcomplex* b, int* info) {
  return cusolverDnZgetrs(h, CUBLAS_OP_N, n, k, cu(a), n, p, cu(b), n, info);
}
cusolverStatus_t getrs(handle h, int n, int k, const ccomplex* a, const int* p, ccomplex* b, int* info) {
  return cusolverDnCgetrs(h, CUBLAS_OP_N, n, k, cu(a), n, p, cu(b), n, info);
}
cusolverStatus_t potrf_work(handle h, int n, const zcomplex*, int* lwork) {
  return cusolverDnZpotrf_bufferSize(h, lower, n, nullptr, n, lwork);
}
cusolverStatus_t potrf_work(handle h, int n, const ccomplex*, int* lwork) {
  return cusolverDnCpotrf_bufferSize(h, lower, n, nullptr, n, lwork);
}
cusolverStatus_t potrf(handle h, int n, zcomplex* a, void* w, int lwork, int* info) {
  return cusolverDnZpotrf(h, lower, n, cu(a), n, static_cast<cuDoubleComplex*>(w), lwork, info);
}
cusolverStatus_t potrf(handle h, int n, ccomplex* a, void* w, int lwork, int* info) {
  return cusolverDnCpotrf(h, lower, n, cu(a), n, static_cast<cuComplex*>(w), lwork, info);
}
cusolverStatus_t potrs(handle h, int n, int k, const zcomplex* a, zcomplex* b, int* info) {
  return cusolverDnZpotrs(h, lower, n, k, cu(a), n, cu(b), n, info);
}
cusolverStatus_t potrs(handle h, int n, int k, const ccomplex* a, ccomplex* b, int* info) {
  return cusolverDnCpotrs(h, lower, n, k, cu(a), n, cu(b), n, info);
}
cublasStatus_t gemm64(cublasHandle_t h, std::int64_t n, const zcomplex* a, const zcomplex* b, zcomplex* c) {
  const cuDoubleComplex one{1, 0}, zero{0, 0};
  return cublasZgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, cu(a), n, cu(b), n, &zero, cu(c), n);
}
cublasStatus_t gemm64(cublasHandle_t h, std::int64_t n, const ccomplex* a, const ccomplex* b, ccomplex* c) {
  const cuComplex one{1, 0}, zero{0, 0};
  return cublasCgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, cu(a), n, cu(b), n, &zero, cu(c), n);
}

// The generic API's type in messages: cusolverDnXgetrf<double>, cusolverDnXgetrf<complex<float>>.
template <class T>
const char* type_text() {
  switch (precision<T>::letter) {
    case 's': return "float";
    case 'd': return "double";
    case 'c': return "complex<float>";
    default: return "complex<double>";
  }
}

template <class T>
std::string routine(const char* generic, const char* legacy_op, cusolver_api api) {
  if (api == cusolver_api::generic64) return std::string("cusolverDn") + generic + "<" + type_text<T>() + ">";
  return nvidia_routine_name<T>("cusolverDn", legacy_op);
}

int legacy_int(std::int64_t v, const char* what) {
  if (v > 2147483647)
    throw invalid_argument(std::string(what) + " = " + std::to_string(v) +
                           " overflows the legacy 32-bit cuSOLVER API; use the generic 64-bit API");
  return static_cast<int>(v);
}

// The legacy API counts the workspace in an int of elements; a size past 2^31 - 1 would come
// back wrapped, and allocating it as a size_t would ask for exabytes.
template <class T>
std::size_t legacy_workspace_bytes(int lwork, const char* op, std::int64_t n) {
  if (lwork < 0)
    throw invalid_argument(routine<T>("", op, cusolver_api::legacy32) +
                           "_bufferSize: the workspace for n = " + std::to_string(n) +
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
    SB_CUSOLVER_CHECK(getrf_work(ctx.solver(), legacy_int(n, "n"), static_cast<const T*>(nullptr), &lwork));
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
                                       data_type<T>(), work_.data(), work_.size(), host_work_.data(), host_work_.size(),
                                       info_.data()));
  } else {
    SB_CUSOLVER_CHECK(getrf(ctx_.solver(), static_cast<int>(n_), a, work_.data(), ipiv32_.data(), info_.data()));
  }
}

template <class T>
void lu_solver<T>::solve(const T* lu, T* b) {
  if (api_ == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXgetrs(ctx_.solver(), ctx_.params(), CUBLAS_OP_N, n_, nrhs_, data_type<T>(), lu, n_,
                                       ipiv64_.data(), data_type<T>(), b, n_, info_.data() + 1));
  } else {
    SB_CUSOLVER_CHECK(
        getrs(ctx_.solver(), static_cast<int>(n_), legacy_int(nrhs_, "nrhs"), lu, ipiv32_.data(), b, info_.data() + 1));
  }
}

template <class T>
void lu_solver<T>::check_info() const {
  throw_on_info(routine<T>("Xgetrf", "getrf", api_), to_host_info(info_, 0, ctx_.stream()), factorization::lu);
  throw_on_info(routine<T>("Xgetrs", "getrs", api_), to_host_info(info_, 1, ctx_.stream()), factorization::lu);
}

// ---- Cholesky ----------------------------------------------------------------------------

template <class T>
workspace_size cholesky_solver<T>::query(const context& ctx, std::int64_t n, cusolver_api api) {
  workspace_size ws;
  if (api == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXpotrf_bufferSize(ctx.solver(), ctx.params(), CUBLAS_FILL_MODE_LOWER, n, data_type<T>(),
                                                  nullptr, n, data_type<T>(), &ws.device_bytes, &ws.host_bytes));
  } else {
    int lwork = 0;
    SB_CUSOLVER_CHECK(potrf_work(ctx.solver(), legacy_int(n, "n"), static_cast<const T*>(nullptr), &lwork));
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
    SB_CUSOLVER_CHECK(cusolverDnXpotrf(ctx_.solver(), ctx_.params(), CUBLAS_FILL_MODE_LOWER, n_, data_type<T>(), a, n_,
                                       data_type<T>(), work_.data(), work_.size(), host_work_.data(), host_work_.size(),
                                       info_.data()));
  } else {
    const int lwork = static_cast<int>(work_.size() / sizeof(T));
    SB_CUSOLVER_CHECK(potrf(ctx_.solver(), static_cast<int>(n_), a, work_.data(), lwork, info_.data()));
  }
}

template <class T>
void cholesky_solver<T>::solve(const T* l, T* b) {
  if (api_ == cusolver_api::generic64) {
    SB_CUSOLVER_CHECK(cusolverDnXpotrs(ctx_.solver(), ctx_.params(), CUBLAS_FILL_MODE_LOWER, n_, nrhs_, data_type<T>(),
                                       l, n_, data_type<T>(), b, n_, info_.data() + 1));
  } else {
    SB_CUSOLVER_CHECK(potrs(ctx_.solver(), static_cast<int>(n_), legacy_int(nrhs_, "nrhs"), l, b, info_.data() + 1));
  }
}

template <class T>
void cholesky_solver<T>::check_info() const {
  throw_on_info(routine<T>("Xpotrf", "potrf", api_), to_host_info(info_, 0, ctx_.stream()), factorization::cholesky);
  throw_on_info(routine<T>("Xpotrs", "potrs", api_), to_host_info(info_, 1, ctx_.stream()), factorization::cholesky);
}

// ---- GEMM ---------------------------------------------------------------------------------

template <class T>
void gemm(const context& ctx, std::int64_t n, const T* a, const T* b, T* c) {
  // cublas?gemm_64 takes 64-bit sizes (CUDA 12+), so large n needs no special case.
  SB_CUBLAS_CHECK(gemm64(ctx.blas(), n, a, b, c));
}

#define SB_INSTANTIATE(T)            \
  template class lu_solver<T>;       \
  template class cholesky_solver<T>; \
  template void gemm(const context&, std::int64_t, const T*, const T*, T*);
SOLVE_BENCH_FOR_EACH_PRECISION(SB_INSTANTIATE)
#undef SB_INSTANTIATE

}  // namespace solvebench::cuda
