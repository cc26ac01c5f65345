// CPU libraries loaded into namespaces of their own (lapack_loaded.hpp): dlmopen, the Fortran
// routines looked up by name in s, d, c and z, and the library's own account of itself.
#include "solvebench/lapack_loaded.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <complex>
#include <cstddef>
#include <cstdlib>
#include <fstream>
#include <type_traits>

#include "blas_vendor.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::lapack {
namespace {

#if defined(__x86_64__)
#define SB_MULTIARCH "/usr/lib/x86_64-linux-gnu/"
#elif defined(__aarch64__)
#define SB_MULTIARCH "/usr/lib/aarch64-linux-gnu/"
#else
#define SB_MULTIARCH "/usr/lib/"
#endif

using len_t = std::size_t;  // gfortran's hidden length of a CHARACTER argument

// The LP64 Fortran interface of each routine, for T in s, d, c, z.
template <class T>
struct fortran {
  void (*gesv)(const int*, const int*, T*, const int*, int*, T*, const int*, int*) = nullptr;
  void (*getrf)(const int*, const int*, T*, const int*, int*, int*) = nullptr;
  void (*getrs)(const char*, const int*, const int*, const T*, const int*, const int*, T*, const int*, int*,
                len_t) = nullptr;
  void (*posv)(const char*, const int*, const int*, T*, const int*, T*, const int*, int*, len_t) = nullptr;
  void (*potrf)(const char*, const int*, T*, const int*, int*, len_t) = nullptr;
  void (*potrs)(const char*, const int*, const int*, const T*, const int*, T*, const int*, int*, len_t) = nullptr;
  void (*gemm)(const char*, const char*, const int*, const int*, const int*, const T*, const T*, const int*, const T*,
               const int*, const T*, T*, const int*, len_t, len_t) = nullptr;
};

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dl error";
}

int to_int(const std::string& what, std::int64_t v) { return static_cast<int>(checked_size(what, v, max_n)); }

Lmid_t ns_of(void* handle) {
  Lmid_t ns = 0;
  if (dlinfo(handle, RTLD_DI_LMID, &ns) != 0) throw error("dlinfo: " + dl_error());
  return ns;
}

template <class T>
std::string routine(const char* op) {
  return std::string(1, precision<T>::letter) + op + "_";
}

}  // namespace

const std::vector<library_files>& known_libraries() {
  static const std::vector<library_files> known = {
      {"blis", SB_MULTIARCH "blis-pthread/libblas.so.3", SB_MULTIARCH "lapack/liblapack.so.3", "BLIS",
       "libblis4-pthread liblapack3", "BLIS_NUM_THREADS", 1, SB_MULTIARCH "blis-pthread/libblis.so.4"},
      {"blis-openmp", SB_MULTIARCH "blis-openmp/libblas.so.3", SB_MULTIARCH "lapack/liblapack.so.3", "BLIS",
       "libblis4-openmp liblapack3", "BLIS_NUM_THREADS", 1, SB_MULTIARCH "blis-openmp/libblis.so.4"},
      {"openblas", SB_MULTIARCH "openblas-pthread/libopenblas.so.0", "", "OpenBLAS", "libopenblas0-pthread",
       "OPENBLAS_NUM_THREADS", 1, ""},
      {"openblas-serial", SB_MULTIARCH "openblas-serial/libopenblas.so.0", "", "OpenBLAS", "libopenblas0-serial", "", 1,
       ""},
      {"openblas-openmp", SB_MULTIARCH "openblas-openmp/libopenblas.so.0", "", "OpenBLAS", "libopenblas0-openmp",
       "OPENBLAS_NUM_THREADS", 1, ""},
      {"reference", SB_MULTIARCH "blas/libblas.so.3", SB_MULTIARCH "lapack/liblapack.so.3", "Netlib",
       "libblas3 liblapack3", "", 1, ""},
  };
  return known;
}

struct loaded_library::state {
  library_files files;
  void* blas = nullptr;
  void* lapack = nullptr;  // == blas where the BLAS carries LAPACK
  detail::vendor_facts vendor;
  std::string lapack_version, lapack_library;
  fortran<float> s;
  fortran<double> d;
  fortran<std::complex<float>> c;
  fortran<std::complex<double>> z;

  template <class T>
  const fortran<T>& calls() const {
    if constexpr (std::is_same_v<T, float>) return s;
    else if constexpr (std::is_same_v<T, double>) return d;
    else if constexpr (std::is_same_v<T, std::complex<float>>) return c;
    else return z;
  }

  template <class F>
  void find(F& out, void* handle, const std::string& name) {
    out = reinterpret_cast<F>(dlsym(handle, name.c_str()));
    if (!out) throw error(files.name + ": " + name + " not found in " + (handle == blas ? files.blas : files.lapack));
  }
  template <class T>
  void find_all(fortran<T>& f) {
    find(f.gesv, lapack, routine<T>("gesv"));
    find(f.getrf, lapack, routine<T>("getrf"));
    find(f.getrs, lapack, routine<T>("getrs"));
    find(f.posv, lapack, routine<T>("posv"));
    find(f.potrf, lapack, routine<T>("potrf"));
    find(f.potrs, lapack, routine<T>("potrs"));
    find(f.gemm, blas, routine<T>("gemm"));
  }
};

bool thread_stacks_uncached() {
  // /proc/self/environ is the environment the process started with, NUL-separated.
  std::ifstream in("/proc/self/environ", std::ios::binary);
  const std::string key = "GLIBC_TUNABLES=", want = std::string(":") + uncached_thread_stacks + ":";
  for (std::string entry; std::getline(in, entry, '\0');)
    if (entry.compare(0, key.size(), key) == 0 &&
        (":" + entry.substr(key.size()) + ":").find(want) != std::string::npos)
      return true;
  return false;
}

loaded_library::loaded_library(const library_files& files) : s_(std::make_unique<state>()) {
  s_->files = files;
  const char* asked = files.threads_env.empty() ? nullptr : std::getenv(files.threads_env.c_str());
  const int starts = asked && *asked ? std::max(1, std::atoi(asked)) : files.default_threads;
  if (starts > 1 && !thread_stacks_uncached())
    throw error(files.name + ": " + std::to_string(starts) + " threads (" + files.threads_env +
                ") in a namespace of its own need a process started with GLIBC_TUNABLES=" + uncached_thread_stacks +
                " (otherwise its libc frees the loader's TLS blocks with the wrong malloc); start it so, or set " +
                files.threads_env + "=1");
  // RTLD_LOCAL in a fresh namespace: the BLAS's symbols bind the LAPACK loaded after it into the
  // same namespace (by its libblas.so.3 soname), and nothing outside it.
  s_->blas = dlmopen(LM_ID_NEWLM, files.blas.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!s_->blas) throw error(files.name + ": cannot load " + files.blas + ": " + dl_error());
  s_->lapack = s_->blas;
  if (!files.lapack.empty()) {
    s_->lapack = dlmopen(ns_of(s_->blas), files.lapack.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!s_->lapack) throw error(files.name + ": cannot load " + files.lapack + ": " + dl_error());
  }
  s_->find_all(s_->s);
  s_->find_all(s_->d);
  s_->find_all(s_->c);
  s_->find_all(s_->z);
  s_->vendor = detail::vendor_facts_in(s_->blas, reinterpret_cast<const void*>(s_->d.gemm));
  if (s_->vendor.info.vendor == "unknown" && !files.about.empty())
    if (void* about = dlmopen(ns_of(s_->blas), files.about.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
      const detail::vendor_facts told = detail::vendor_facts_in(about, dlsym(about, "dgemm_"));
      if (told.info.vendor != "unknown") {
        runtime_info& i = s_->vendor.info;
        i.vendor = told.info.vendor;
        i.version = told.info.version;
        i.blas_core = told.info.blas_core;
        i.blas_variant = told.info.blas_variant;
        i.blas_config = told.info.blas_config + " (as " + told.info.blas_library + " of the same build says)";
        i.why_threads_fixed = s_->files.blas + " exports no thread control: its threads come from " +
                              (files.threads_env.empty() ? "nothing" : files.threads_env);
      }
    }
  void (*ilaver)(int*, int*, int*) = nullptr;
  s_->find(ilaver, s_->lapack, "ilaver_");
  int major = 0, minor = 0, patch = 0;
  ilaver(&major, &minor, &patch);
  s_->lapack_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  s_->lapack_library = detail::library_file(reinterpret_cast<const void*>(s_->d.getrf));
}

// The namespace stays loaded until the process ends: its BLAS may keep a pool of threads, and
// unloading code under running threads is a crash; the handles are the loader's, not the heap's.
loaded_library::~loaded_library() = default;

const library_files& loaded_library::files() const noexcept { return s_->files; }

runtime_info loaded_library::info() const {
  runtime_info out = s_->vendor.info;
  if (out.vendor == "unknown" && !s_->files.vendor.empty()) out.vendor = s_->files.vendor;
  // A library that cannot say its version (reference BLAS): the one in its file name, libblas.so.3.11.0.
  const auto so = out.blas_library.rfind(".so.");
  if (out.version.empty() && so != std::string::npos && out.blas_library.find('.', so + 4) != std::string::npos)
    out.version = out.blas_library.substr(so + 4);
  out.blas_threads = threads();
  out.lapack_version = s_->lapack_version;
  out.lapack_library = s_->lapack_library;
  return out;
}

int loaded_library::threads() const {
  if (const int n = s_->vendor.threads(); n > 0) return n;
  const char* v = s_->files.threads_env.empty() ? nullptr : std::getenv(s_->files.threads_env.c_str());
  if (v && *v) return std::max(1, std::atoi(v));
  return s_->files.default_threads;
}

namespace {

template <class T>
int square(const char* op, const host_matrix<T>& a) {
  if (a.rows() != a.cols())
    throw invalid_argument(routine<T>(op) + ": A must be square, got " + std::to_string(a.rows()) + " x " +
                           std::to_string(a.cols()));
  return to_int(routine<T>(op) + ": n", a.rows());
}
template <class T>
int rhs(const char* op, int n, const host_matrix<T>& b) {
  if (b.rows() != n)
    throw invalid_argument(routine<T>(op) + ": B has " + std::to_string(b.rows()) + " rows, A has " +
                           std::to_string(n));
  return to_int(routine<T>(op) + ": nrhs", b.cols());
}
void pivots(const std::string& op, int n, std::size_t have) {
  if (have != static_cast<std::size_t>(n))
    throw invalid_argument(op + ": ipiv holds " + std::to_string(have) + " entries, n = " + std::to_string(n));
}

}  // namespace

template <class T>
void loaded_library::gesv(host_matrix<T>& a, std::vector<index_t>& ipiv, host_matrix<T>& b) const {
  const int n = square("gesv", a), k = rhs("gesv", n, b);
  pivots(routine<T>("gesv"), n, ipiv.size());
  int info = 0;
  s_->calls<T>().gesv(&n, &k, a.data(), &n, ipiv.data(), b.data(), &n, &info);
  throw_on_info(routine<T>("gesv"), info, factorization::lu);
}

template <class T>
void loaded_library::getrf(host_matrix<T>& a, std::vector<index_t>& ipiv) const {
  const int n = square("getrf", a);
  pivots(routine<T>("getrf"), n, ipiv.size());
  int info = 0;
  s_->calls<T>().getrf(&n, &n, a.data(), &n, ipiv.data(), &info);
  throw_on_info(routine<T>("getrf"), info, factorization::lu);
}

template <class T>
void loaded_library::getrs(const host_matrix<T>& lu, const std::vector<index_t>& ipiv, host_matrix<T>& b) const {
  const int n = square("getrs", lu), k = rhs("getrs", n, b);
  pivots(routine<T>("getrs"), n, ipiv.size());
  int info = 0;
  s_->calls<T>().getrs("N", &n, &k, lu.data(), &n, ipiv.data(), b.data(), &n, &info, 1);
  throw_on_info(routine<T>("getrs"), info, factorization::lu);
}

// Cholesky on the lower triangle, as lapack.hpp's.
template <class T>
void loaded_library::posv(host_matrix<T>& a, host_matrix<T>& b) const {
  const int n = square("posv", a), k = rhs("posv", n, b);
  int info = 0;
  s_->calls<T>().posv("L", &n, &k, a.data(), &n, b.data(), &n, &info, 1);
  throw_on_info(routine<T>("posv"), info, factorization::cholesky);
}

template <class T>
void loaded_library::potrf(host_matrix<T>& a) const {
  const int n = square("potrf", a);
  int info = 0;
  s_->calls<T>().potrf("L", &n, a.data(), &n, &info, 1);
  throw_on_info(routine<T>("potrf"), info, factorization::cholesky);
}

template <class T>
void loaded_library::potrs(const host_matrix<T>& l, host_matrix<T>& b) const {
  const int n = square("potrs", l), k = rhs("potrs", n, b);
  int info = 0;
  s_->calls<T>().potrs("L", &n, &k, l.data(), &n, b.data(), &n, &info, 1);
  throw_on_info(routine<T>("potrs"), info, factorization::cholesky);
}

template <class T>
void loaded_library::gemm(const host_matrix<T>& a, const host_matrix<T>& b, host_matrix<T>& c) const {
  if (a.cols() != b.rows() || c.rows() != a.rows() || c.cols() != b.cols())
    throw invalid_argument(routine<T>("gemm") + ": shape mismatch");
  const int m = to_int("gemm: m", a.rows()), n = to_int("gemm: n", b.cols()), k = to_int("gemm: k", a.cols());
  const T one = 1, zero = 0;
  s_->calls<T>().gemm("N", "N", &m, &n, &k, &one, a.data(), &m, b.data(), &k, &zero, c.data(), &m, 1, 1);
}

#define SB_INSTANTIATE(T)                                                                                         \
  template void loaded_library::gesv(host_matrix<T>&, std::vector<index_t>&, host_matrix<T>&) const;              \
  template void loaded_library::getrf(host_matrix<T>&, std::vector<index_t>&) const;                              \
  template void loaded_library::getrs(const host_matrix<T>&, const std::vector<index_t>&, host_matrix<T>&) const; \
  template void loaded_library::posv(host_matrix<T>&, host_matrix<T>&) const;                                     \
  template void loaded_library::potrf(host_matrix<T>&) const;                                                     \
  template void loaded_library::potrs(const host_matrix<T>&, host_matrix<T>&) const;                              \
  template void loaded_library::gemm(const host_matrix<T>&, const host_matrix<T>&, host_matrix<T>&) const;
SB_INSTANTIATE(float)
SB_INSTANTIATE(double)
SB_INSTANTIATE(std::complex<float>)
SB_INSTANTIATE(std::complex<double>)
#undef SB_INSTANTIATE

}  // namespace solvebench::lapack
