// CPU libraries loaded beside the linked one (lapack_loaded.hpp): two of them solve in one
// process, each through its own objects, each answer checked; what cannot load is named.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "solvebench/errors.hpp"
#include "solvebench/generate.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/lapack_loaded.hpp"
#include "solvebench/residual.hpp"

namespace sb = solvebench;
namespace lapack = solvebench::lapack;

namespace {

const lapack::library_files& known(const std::string& name) {
  for (const auto& l : lapack::known_libraries())
    if (l.name == name) return l;
  throw std::logic_error("no known library " + name);
}

bool installed(const lapack::library_files& f) {
  return std::filesystem::exists(f.blas) && (f.lapack.empty() || std::filesystem::exists(f.lapack));
}

// One library's dgesv on a random system, checked as the rows check it.
template <class T>
double solve_residual(const lapack::loaded_library& lib, std::int64_t n) {
  const auto a0 = sb::generate_matrix<T>(sb::matrix_kind::uniform, n, 7);
  const auto b0 = sb::generate_rhs<T>(n, 2, 7);
  auto a = a0;
  auto b = b0;
  std::vector<lapack::index_t> ipiv(static_cast<std::size_t>(n));
  lib.gesv(a, ipiv, b);
  return sb::hpl_scaled_residual(a0, b, b0);
}

// What loading `files` throws; a failure of the test where it loads.
std::string load_error(const lapack::library_files& files) {
  try {
    const lapack::loaded_library lib(files);
  } catch (const sb::error& e) {
    return e.what();
  }
  ADD_FAILURE() << files.name << " loaded";
  return "";
}

}  // namespace

// BLIS's thread count as the test sets it, restored after: BLIS reads it when it starts.
class blis_threads {
 public:
  explicit blis_threads(int n) : had_(std::getenv("BLIS_NUM_THREADS") != nullptr) {
    if (had_) old_ = std::getenv("BLIS_NUM_THREADS");
    setenv("BLIS_NUM_THREADS", std::to_string(n).c_str(), 1);
  }
  ~blis_threads() { had_ ? setenv("BLIS_NUM_THREADS", old_.c_str(), 1) : unsetenv("BLIS_NUM_THREADS"); }
  blis_threads(const blis_threads&) = delete;
  blis_threads& operator=(const blis_threads&) = delete;

 private:
  bool had_;
  std::string old_;
};

// AddressSanitizer's malloc is neither libc's: a namespace's thread start frees into it (docs/cpu-libraries.md).
#if defined(__SANITIZE_ADDRESS__)
constexpr int threaded = 1;
#else
constexpr int threaded = 2;
#endif

TEST(LoadedLibrary, TwoLibrariesSolveInOneProcessEachWithItsOwnObjects) {
  const auto blis = known("blis");
  const auto reference = known("reference");
  if (!installed(blis) || !installed(reference))
    GTEST_SKIP() << "needs BLIS and reference BLAS + LAPACK (libblis4-pthread libblas3 liblapack3)";
  if (!lapack::thread_stacks_uncached())
    GTEST_SKIP() << "BLIS runs two threads here only where GLIBC_TUNABLES=" << lapack::uncached_thread_stacks
                 << " (ctest sets it; LoadedLibrary.SeveralThreadsNeedUncachedStacks runs without it)";
  const blis_threads two(threaded);
  const lapack::loaded_library a(blis), b(reference);
  EXPECT_EQ(a.threads(), threaded);
  // Each call starts BLIS's threads anew: with cached stacks, a few of these corrupted the heap.
  for (int k = 0; k < 8; ++k) EXPECT_LT(solve_residual<double>(a, 301), 16.0);
  EXPECT_LT(solve_residual<double>(b, 301), 16.0);
  EXPECT_LT(solve_residual<std::complex<float>>(a, 65), 16.0);
  const lapack::runtime_info ia = a.info(), ib = b.info(), linked = lapack::blas_runtime_info();
  // Each library's dgemm_ is its own file, not the linked library's.
  EXPECT_NE(ia.blas_library, ib.blas_library);
  EXPECT_NE(ia.blas_library, linked.blas_library);
  EXPECT_NE(ib.blas_library, linked.blas_library);
  EXPECT_NE(ia.blas_library.find("blis"), std::string::npos) << ia.blas_library;
  EXPECT_NE(ib.lapack_library.find("/lapack/liblapack.so.3"), std::string::npos) << ib.lapack_library;
  EXPECT_EQ(ia.vendor, "BLIS");
  EXPECT_FALSE(ia.version.empty());
  EXPECT_EQ(ib.vendor, "Netlib");
  EXPECT_EQ(ib.blas_threads, 1);
  EXPECT_EQ(ib.lapack_version, ia.lapack_version);
  // The linked library still answers, after the others were loaded.
  auto m = sb::generate_matrix<double>(sb::matrix_kind::uniform, 64, 3);
  const auto m0 = m;
  auto r = sb::generate_rhs<double>(64, 1, 3);
  const auto r0 = r;
  std::vector<lapack::index_t> ipiv(64);
  lapack::gesv(m, ipiv, r);
  EXPECT_LT(sb::hpl_scaled_residual(m0, r, r0), 16.0);
}

TEST(LoadedLibrary, SeveralThreadsNeedUncachedStacks) {
  const auto blis = known("blis");
  if (!installed(blis)) GTEST_SKIP() << "needs BLIS and reference LAPACK (libblis4-pthread liblapack3)";
  if (lapack::thread_stacks_uncached()) GTEST_SKIP() << "this process's thread stacks are not cached";
  const blis_threads two(2);
  const std::string why = load_error(blis);  // two threads and cached thread stacks: refused
  EXPECT_NE(why.find("GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0"), std::string::npos) << why;
  const blis_threads one(1);
  const lapack::loaded_library lib(blis);  // one thread starts none: loads
  EXPECT_LT(solve_residual<double>(lib, 64), 16.0);
}

TEST(LoadedLibrary, FactorsSolveAndMultiplyThroughTheLibrary) {
  const auto reference = known("reference");
  if (!installed(reference)) GTEST_SKIP() << "needs reference BLAS + LAPACK (libblas3 liblapack3)";
  const lapack::loaded_library lib(reference);
  const std::int64_t n = 97;
  const auto s0 = sb::generate_matrix<float>(sb::matrix_kind::spd, n, 11);
  const auto b0 = sb::generate_rhs<float>(n, 3, 11);
  auto l = s0;
  auto b = b0;
  lib.potrf(l);
  lib.potrs(l, b);
  EXPECT_LT(sb::hpl_scaled_residual(s0, b, b0), 16.0);
  const auto x = sb::generate_matrix<double>(sb::matrix_kind::uniform, n, 12);
  const auto y = sb::generate_matrix<double>(sb::matrix_kind::uniform, n, 13);
  sb::host_matrix<double> c(n, n);
  lib.gemm(x, y, c);
  EXPECT_LT(sb::gemm_scaled_residual(x, y, c), 16.0);
}

TEST(LoadedLibrary, SingularMatrixNamesThePivot) {
  const auto reference = known("reference");
  if (!installed(reference)) GTEST_SKIP() << "needs reference BLAS + LAPACK (libblas3 liblapack3)";
  const lapack::loaded_library lib(reference);
  sb::host_matrix<double> zero(4, 4);
  std::vector<lapack::index_t> ipiv(4);
  try {
    lib.getrf(zero, ipiv);
    FAIL() << "a zero matrix factored";
  } catch (const sb::singular_matrix& e) {
    EXPECT_NE(std::string(e.what()).find("dgetrf_"), std::string::npos) << e.what();
  }
}

TEST(LoadedLibrary, AMissingFileIsAnErrorNamingIt) {
  lapack::library_files missing = known("reference");
  missing.name = "nowhere";
  missing.blas = "/nonexistent/libblas.so.3";
  const std::string why = load_error(missing);
  EXPECT_NE(why.find("nowhere: cannot load /nonexistent/libblas.so.3"), std::string::npos) << why;
}
