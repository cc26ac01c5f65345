// A CPU LAPACK and its BLAS loaded at run time, each into a link-map namespace of its own
// (dlmopen(LM_ID_NEWLM)), beside the one the process links: BLIS + reference LAPACK, reference
// BLAS + LAPACK, another OpenBLAS build, all in one process. In its own namespace a library's
// symbols (dgemm_, dgetrf_, ...) resolve to its own objects, not to the linked OpenBLAS that the
// global scope would give them; it is called through its Fortran interface (the LP64 ABI that
// Debian's and Ubuntu's builds share: 32-bit integers, hidden string lengths), by pointer.
//
// glibc gives the process at most 16 namespaces, and a library with initial-exec TLS may not
// fit a new one (dlmopen then fails with "cannot allocate memory in static TLS block"): a
// library that cannot be loaded is an error naming it, for the caller to skip.
//
// A thread that a namespace's libc starts on a stack it cached gets the dynamic TLS block of the
// thread before it freed by the namespace's free(), though the loader allocated it with the main
// libc's malloc(): BLIS with two threads (it starts them at every call) corrupted the heap within
// a few calls here (glibc 2.36, LoadedLibrary.TwoLibraries... under BLIS_NUM_THREADS=2). Without
// a stack cache no stack is reused; glibc reads its tunables once, when the process starts, so a
// library that runs more than one thread is loaded only in a process started with
// GLIBC_TUNABLES holding `uncached_thread_stacks` (solve_bench restarts itself with it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "solvebench/lapack.hpp"
#include "solvebench/matrix.hpp"

namespace solvebench::lapack {

// Where a library's shared objects are: its BLAS, and its LAPACK where the BLAS does not carry
// one (OpenBLAS does). The LAPACK's own libblas.so.3 then resolves to the BLAS loaded first into
// the same namespace, not to the system's alternative.
struct library_files {
  std::string name;     // "blis", "reference", "openblas-serial": the rows' CPU[name]
  std::string blas;     // absolute path of the BLAS shared object
  std::string lapack;   // absolute path of the LAPACK shared object; "" when the BLAS has it
  std::string vendor;   // what it is, where its own service functions cannot say ("Netlib")
  std::string package;  // the Debian / Ubuntu package that installs it
  // The variable it reads its thread count from when it starts ("BLIS_NUM_THREADS"; "" none),
  // and the count it runs where that is unset and it cannot be asked.
  std::string threads_env;
  int default_threads = 1;
  // An object of the same build that answers what `blas` cannot (Debian's BLIS libblas.so.3
  // exports the BLAS alone; libblis.so.4 beside it has bli_info_get_version_str): asked for the
  // vendor, version and kernels only, never for threads, which are its own copy's. "" none.
  std::string about;
};

// The libraries solve_bench knows (Debian's and Ubuntu's multiarch paths for this machine's
// architecture), in the order --cpu_libraries=auto takes them.
const std::vector<library_files>& known_libraries();

inline constexpr const char* uncached_thread_stacks = "glibc.pthread.stack_cache_size=0";
// Whether this process started with GLIBC_TUNABLES holding it (its initial environment).
bool thread_stacks_uncached();

class loaded_library {
 public:
  // Loads `files` into a fresh namespace; throws solvebench::error naming the file and the reason
  // (not installed, no namespace left, a routine missing, more than one thread in a process
  // whose thread stacks are cached: see above).
  explicit loaded_library(const library_files& files);
  ~loaded_library();
  loaded_library(const loaded_library&) = delete;
  loaded_library& operator=(const loaded_library&) = delete;

  const library_files& files() const noexcept;
  // What it says about itself, read from the loaded objects (vendor, version, the resolved
  // files of dgemm_ and dgetrf_, LAPACK's ilaver()); blas_threads as of this call.
  runtime_info info() const;
  // The threads it runs: as it says, else its variable's value, else its default_threads.
  int threads() const;

  // As lapack.hpp's, through this library: the same shapes checked, info as typed errors.
  template <class T>
  void gesv(host_matrix<T>& a, std::vector<index_t>& ipiv, host_matrix<T>& b) const;
  template <class T>
  void getrf(host_matrix<T>& a, std::vector<index_t>& ipiv) const;
  template <class T>
  void getrs(const host_matrix<T>& lu, const std::vector<index_t>& ipiv, host_matrix<T>& b) const;
  template <class T>
  void posv(host_matrix<T>& a, host_matrix<T>& b) const;
  template <class T>
  void potrf(host_matrix<T>& a) const;
  template <class T>
  void potrs(const host_matrix<T>& l, host_matrix<T>& b) const;
  template <class T>
  void gemm(const host_matrix<T>& a, const host_matrix<T>& b, host_matrix<T>& c) const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace solvebench::lapack
