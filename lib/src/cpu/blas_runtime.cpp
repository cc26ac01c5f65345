// Which BLAS and LAPACK this process really runs, read from the libraries themselves.
//
// The library CMake linked is not always the one that runs: Debian's alternatives choose what
// libblas.so.3 and liblapack.so.3 are, LD_LIBRARY_PATH can put another first, and FlexiBLAS
// loads a backend of its own choosing. So nothing here is fixed at build time: each vendor is
// recognised by its own service functions, looked up with dlsym, and the one that counts is
// the one in the shared object that provides dgemm_ (several can be loaded at once: e.g.
// liblapacke pulls in libblas.so.3, whichever library that is).
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

#include "blas_vendor.hpp"
#include "solvebench/lapack.hpp"

extern "C" {
// Standard BLAS and LAPACK symbols: every vendor has them; linked, not looked up, so that
// their addresses are the ones the solves call.
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void ilaver_(int* major, int* minor, int* patch);
}

namespace solvebench::lapack {
namespace {

// The service functions of each vendor, as their headers declare them (openblas_config.h,
// mkl_service.h, blis.h, flexiblas_api.h).
using cstr_fn = const char* (*)();
using int_fn = int (*)();
using set_int_fn = void (*)(int);
using mkl_version_fn = void (*)(char*, int);
using blis_get_fn = std::int64_t (*)();  // dim_t: 64-bit in every x86-64 and arm64 BLIS build
using blis_set_fn = void (*)(std::int64_t);
using blis_arch_id_fn = int (*)();  // arch_t, an enum
using blis_arch_name_fn = const char* (*)(int);
using flexiblas_version_fn = void (*)(int*, int*, int*);
using flexiblas_backend_fn = int (*)(char*, std::size_t);

template <class F>
F lookup(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

// The shared object (or the executable, for a static library) that holds `address`.
struct object {
  const void* base = nullptr;
  std::string path;
};

object object_of(const void* address) {
  Dl_info where{};
  if (address == nullptr || dladdr(address, &where) == 0) return {};
  return {where.dli_fbase, where.dli_fname ? where.dli_fname : ""};
}

const object& executable() {
  static const object self = object_of(reinterpret_cast<const void*>(&object_of));
  return self;
}

// The file itself, not the name the loader went through: Debian's libopenblas.so.0 is a link
// through /etc/alternatives to openblas-pthread/ or openblas-serial/, and which one is the cause.
std::string describe(const object& o) {
  if (o.base == nullptr) return "unknown";
  if (o.base == executable().base) return o.path + " (linked statically)";
  std::error_code ec;
  const auto real = std::filesystem::canonical(o.path, ec);
  return ec ? o.path : real.string();
}

// "OpenBLAS 0.3.21 DYNAMIC_ARCH ..." -> "0.3.21"; "... Version 2024.0.0 Product ..." -> "2024.0.0".
std::string word_after(const std::string& text, const std::string& marker) {
  const auto at = text.find(marker);
  if (at == std::string::npos) return {};
  const auto begin = at + marker.size();
  return text.substr(begin, text.find(' ', begin) - begin);
}

// One vendor's answers, and how to set its thread count (null where it has no way).
struct vendor_calls {
  std::string vendor;
  object library;
  std::string version, config, core, variant, why_threads_fixed;
  int_fn get_threads = nullptr;
  set_int_fn set_threads = nullptr;
  blis_get_fn blis_get_threads = nullptr;
  blis_set_fn blis_set_threads = nullptr;
};

// Each recogniser looks in `handle` (RTLD_DEFAULT: every loaded object) and fills `out` when
// its vendor is there. FlexiBLAS comes first: it also exports openblas_set_num_threads and
// mkl_set_num_threads, forwarding them to its backend.
bool flexiblas(void* handle, vendor_calls& out) {
  const auto version = lookup<flexiblas_version_fn>(handle, "flexiblas_get_version");
  if (!version) return false;
  int major = 0, minor = 0, patch = 0;
  version(&major, &minor, &patch);
  out.vendor = "FlexiBLAS";
  out.library = object_of(reinterpret_cast<const void*>(version));
  out.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  if (const auto backend = lookup<flexiblas_backend_fn>(handle, "flexiblas_current_backend")) {
    char name[256] = {};
    if (backend(name, sizeof name) > 0) out.core = name;
  }
  out.config = "FlexiBLAS " + out.version + ", backend " + (out.core.empty() ? "unknown" : out.core);
  out.get_threads = lookup<int_fn>(handle, "flexiblas_get_num_threads");
  out.set_threads = lookup<set_int_fn>(handle, "flexiblas_set_num_threads");
  return true;
}

bool mkl(void* handle, vendor_calls& out) {
  const auto version = lookup<mkl_version_fn>(handle, "MKL_Get_Version_String");
  if (!version) return false;
  char text[512] = {};
  version(text, static_cast<int>(sizeof text));
  out.vendor = "MKL";
  out.library = object_of(reinterpret_cast<const void*>(version));
  out.config = text;
  out.version = word_after(out.config, "Version ");
  out.get_threads = lookup<int_fn>(handle, "MKL_Get_Max_Threads");
  out.set_threads = lookup<set_int_fn>(handle, "MKL_Set_Num_Threads");
  return true;
}

bool blis(void* handle, vendor_calls& out) {
  const auto version = lookup<cstr_fn>(handle, "bli_info_get_version_str");
  if (!version) return false;
  out.vendor = "BLIS";
  out.library = object_of(reinterpret_cast<const void*>(version));
  out.version = version();
  const auto arch_id = lookup<blis_arch_id_fn>(handle, "bli_arch_query_id");
  const auto arch_name = lookup<blis_arch_name_fn>(handle, "bli_arch_string");
  if (arch_id && arch_name) out.core = arch_name(arch_id());
  out.config = "BLIS " + out.version + (out.core.empty() ? "" : " " + out.core);
  const auto openmp = lookup<blis_get_fn>(handle, "bli_info_get_enable_openmp");
  const auto pthreads = lookup<blis_get_fn>(handle, "bli_info_get_enable_pthreads");
  if (openmp && pthreads) out.variant = openmp() ? "blis-openmp" : pthreads() ? "blis-pthread" : "blis-serial";
  out.blis_get_threads = lookup<blis_get_fn>(handle, "bli_thread_get_num_threads");
  out.blis_set_threads = lookup<blis_set_fn>(handle, "bli_thread_set_num_threads");
  return true;
}

bool openblas(void* handle, vendor_calls& out) {
  const auto config = lookup<cstr_fn>(handle, "openblas_get_config");
  if (!config) return false;
  out.vendor = "OpenBLAS";
  out.library = object_of(reinterpret_cast<const void*>(config));
  out.config = config();
  out.version = word_after(out.config, "OpenBLAS ");
  if (const auto core = lookup<cstr_fn>(handle, "openblas_get_corename")) out.core = core();
  // openblas_get_parallel(): 0 sequential, 1 pthreads, 2 OpenMP (Debian's openblas-serial,
  // -pthread and -openmp packages).
  if (const auto parallel = lookup<int_fn>(handle, "openblas_get_parallel")) {
    const int p = parallel();
    out.variant = p == 0 ? "openblas-serial" : p == 1 ? "openblas-pthread" : p == 2 ? "openblas-openmp" : "";
  }
  out.get_threads = lookup<int_fn>(handle, "openblas_get_num_threads");
  out.set_threads = lookup<set_int_fn>(handle, "openblas_set_num_threads");
  return true;
}

// The vendor whose service functions sit in dgemm_'s own object (`blas`), asked through `own`,
// a handle whose search scope holds that object; an empty vendor when none is recognised.
vendor_calls recognise_in(void* own, const object& blas) {
  using recogniser = bool (*)(void*, vendor_calls&);
  for (const auto recognise : {recogniser{flexiblas}, recogniser{mkl}, recogniser{blis}, recogniser{openblas}}) {
    vendor_calls found;
    if (recognise(own, found) && found.library.base == blas.base) return found;
  }
  return {};
}

vendor_calls unknown_vendor(const object& blas) {
  vendor_calls found;
  found.vendor = "unknown";
  found.config = "no vendor service functions beside dgemm_ in " + describe(blas);
  found.why_threads_fixed = "the BLAS in " + describe(blas) + " has no thread control solve_bench knows";
  return found;
}

vendor_calls find_vendor() {
  const object blas = object_of(reinterpret_cast<const void*>(&dgemm_));
  // The vendor whose service functions sit in dgemm_'s own object is the one doing the work.
  // Asking that object's handle first finds its functions even where another loaded library
  // exports the same names earlier in the global search order. (A BLAS linked statically
  // sits in the executable, whose handle is dlopen(nullptr).)
  const bool in_executable = blas.base != nullptr && blas.base == executable().base;
  void* own = nullptr;
  if (in_executable) own = dlopen(nullptr, RTLD_LAZY);
  else if (!blas.path.empty()) own = dlopen(blas.path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (own) {
    vendor_calls found = recognise_in(own, blas);
    dlclose(own);
    if (!found.vendor.empty()) return found;
  }
  // Otherwise (MKL's split libraries: dgemm_ in libmkl_intel_lp64, the service functions in
  // libmkl_core) take a vendor found anywhere, but only MKL, whose name the object carries:
  // an OpenBLAS that liblapacke merely pulled in beside a reference BLAS must not be named.
  vendor_calls found;
  if (blas.path.find("mkl") != std::string::npos && mkl(RTLD_DEFAULT, found)) return found;
  return unknown_vendor(blas);
}

const vendor_calls& vendor() {
  static const vendor_calls v = [] {
    vendor_calls found = find_vendor();
    if (found.why_threads_fixed.empty() && !found.set_threads && !found.blis_set_threads)
      found.why_threads_fixed = found.vendor + " in " + describe(found.library) + " exports no thread setter";
    return found;
  }();
  return v;
}

int threads_of(const vendor_calls& v) {
  if (v.get_threads) return v.get_threads();
  if (v.blis_get_threads) {
    // BLIS says -1 until a count is set (by the API or BLIS_NUM_THREADS): it then runs one thread.
    const std::int64_t n = v.blis_get_threads();
    return n < 1 ? 1 : static_cast<int>(n);
  }
  return 0;
}

void set_threads_of(const vendor_calls& v, int threads) {
  if (v.set_threads) v.set_threads(threads);
  else if (v.blis_set_threads) v.blis_set_threads(threads);
}

}  // namespace

namespace detail {

std::string library_file(const void* address) { return describe(object_of(address)); }

vendor_facts vendor_facts_in(void* handle, const void* dgemm) {
  const object blas = object_of(dgemm);
  vendor_calls v = recognise_in(handle, blas);
  if (v.vendor.empty()) v = unknown_vendor(blas);
  if (v.why_threads_fixed.empty() && !v.set_threads && !v.blis_set_threads)
    v.why_threads_fixed = v.vendor + " in " + describe(v.library) + " exports no thread setter";
  vendor_facts out;
  out.info.vendor = v.vendor;
  out.info.version = v.version;
  out.info.blas_config = v.config;
  out.info.blas_core = v.core;
  out.info.blas_variant = v.variant;
  out.info.blas_library = describe(blas);
  out.info.why_threads_fixed = v.why_threads_fixed;
  out.threads = [v] { return threads_of(v); };
  out.set_threads = [v](int threads) { set_threads_of(v, threads); };
  out.info.blas_threads = out.threads();
  return out;
}

}  // namespace detail

runtime_info blas_runtime_info() {
  const vendor_calls& v = vendor();
  runtime_info info;
  info.vendor = v.vendor;
  info.version = v.version;
  info.blas_config = v.config;
  info.blas_core = v.core;
  info.blas_variant = v.variant;
  info.blas_threads = blas_threads();
  info.blas_library = describe(object_of(reinterpret_cast<const void*>(&dgemm_)));
  int major = 0, minor = 0, patch = 0;
  ilaver_(&major, &minor, &patch);
  info.lapack_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  info.lapack_library = describe(object_of(reinterpret_cast<const void*>(&dgetrf_)));
  info.why_threads_fixed = v.why_threads_fixed;
  return info;
}

void set_blas_threads(int threads) { set_threads_of(vendor(), threads); }

int blas_threads() { return threads_of(vendor()); }

}  // namespace solvebench::lapack
