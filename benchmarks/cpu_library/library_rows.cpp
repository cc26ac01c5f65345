// The loaded libraries' rows: which libraries (--cpu_libraries), loading each into a namespace of
// its own, its thread count, its facts in every row, and the same dense sweep as the CPU rows.
#include "cpu_library/library_rows.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "core/harness.hpp"
#include "core/sweep.hpp"
#include "cpu/cpu_rows.hpp"
#include "cpu_library/library_adapters.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/row_monitor.hpp"

namespace solvebench::bench::cpu_library {
namespace {

template <class T>
using lu_rows = solve_adapter<T, lu<T>>;
template <class T>
using cholesky_rows = solve_adapter<T, cholesky<T>>;

std::string known_names() {
  std::string out;
  for (const auto& l : lapack::known_libraries()) out += (out.empty() ? "" : ", ") + l.name;
  return out;
}

const lapack::library_files* known(const std::string& name) {
  for (const auto& l : lapack::known_libraries())
    if (l.name == name) return &l;
  return nullptr;
}

std::vector<std::string> split_names(const std::string& what, const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, end - start);
    if (name.empty()) throw usage_error(what + ": an empty library name in '" + text + "'");
    if (name != "none" && name != "auto" && !known(name))
      throw usage_error(what + ": unknown library '" + name + "' (known: none, auto, " + known_names() + ")");
    out.push_back(name);
    start = end + 1;
  }
  if (out.size() > 1)
    for (const auto& n : out)
      if (n == "none" || n == "auto") throw usage_error(what + ": '" + n + "' stands alone, got '" + text + "'");
  return out;
}

// Every fact of a library that its rows carry (the run's context has the linked library's too).
nlohmann::ordered_json fields_of(const std::string& name, const lapack::runtime_info& i) {
  nlohmann::ordered_json f = nlohmann::ordered_json::object();
  f["cpu_library"] = name;
  f["blas_vendor"] = i.vendor;
  f["blas_version"] = i.version;
  f["blas_variant"] = i.blas_variant;
  f["blas_core"] = i.blas_core;
  f["blas_config"] = i.blas_config;
  f["blas_threads"] = i.blas_threads;
  f["blas_library"] = i.blas_library;
  f["lapack_version"] = i.lapack_version;
  f["lapack_library"] = i.lapack_library;
  return f;
}

std::string summary(const lapack::runtime_info& i) {
  return i.vendor + (i.version.empty() ? "" : " " + i.version) +
         (i.blas_variant.empty() ? "" : " (" + i.blas_variant + ")") + ", " + std::to_string(i.blas_threads) +
         (i.blas_threads == 1 ? " thread, " : " threads, ") + i.blas_library + " + LAPACK " + i.lapack_version + " " +
         i.lapack_library;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

// A loaded library's rows' backend: the CPU rows' probe (energy, other processes' load) and
// its facts. Its rows are described as the linked library's (cpu::halves_desc, driver_desc),
// with its name in the backend ("CPU[blis]") and in the library ("lapack[blis]", "blas[blis]"
// for GEMM), so that a rule pairing rows of one library (a driver with its halves) pairs these
// among themselves, and one reading the CPU side reads them as the CPU side.
class library_backend final : public row_backend {
 public:
  explicit library_backend(std::unique_ptr<lapack::loaded_library> lib)
      : row_backend("CPU[" + lib->files().name + "] rows", make_cpu_row_monitor()), lib_(std::move(lib)) {
    const std::string tag = "[" + lib_->files().name + "]";
    names_ = {"CPU" + tag, "CPU-driver" + tag, cpu::halves_desc.library + tag, cpu::halves_desc.gemm_library + tag,
              cpu::driver_desc.library + tag};
    set_row_fields(fields_of(lib_->files().name, lib_->info()));
  }
  const lapack::loaded_library* library() const { return lib_.get(); }
  backend_desc halves() const {
    backend_desc d = cpu::halves_desc;
    d.name = names_[0].c_str();
    d.library = names_[2].c_str();
    d.gemm_library = names_[3].c_str();
    return d;
  }
  backend_desc driver() const {
    backend_desc d = cpu::driver_desc;
    d.name = names_[1].c_str();
    d.library = names_[4].c_str();
    return d;
  }

 private:
  std::unique_ptr<lapack::loaded_library> lib_;
  std::vector<std::string> names_;  // what the descriptions point into, for the process's life
};

// A library's threads: its own variable where the user set it; else, before it is loaded (it
// reads the variable as it starts), as many as the linked BLAS runs, so that libraries are
// compared like for like. A library without one runs what it runs (reference BLAS: 1).
void choose_threads(const lapack::library_files& f) {
  if (f.threads_env.empty()) return;
  if (const char* v = std::getenv(f.threads_env.c_str()); v && *v) return;
  setenv(f.threads_env.c_str(), std::to_string(std::max(1, lapack::blas_threads())).c_str(), 0);
}

}  // namespace

// The flag and its variable, read by flags() and, before the flags are parsed, by the restart.
constexpr char flag_name[] = "--cpu_libraries", flag_env[] = "SOLVE_BENCH_CPU_LIBRARIES";

void restart_for_namespaces(char** argv) {
  const auto asks = [](const char* v) { return v && *v && std::strcmp(v, "none") != 0; };
  bool asked = asks(std::getenv(flag_env));
  const std::string given = std::string(flag_name) + "=";
  for (char** a = argv + 1; *a; ++a)
    if (std::strncmp(*a, given.c_str(), given.size()) == 0) asked = asks(*a + given.size());  // the last one wins
  if (!asked || lapack::thread_stacks_uncached()) return;
  const char* had = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = (had && *had ? std::string(had) + ":" : "") + lapack::uncached_thread_stacks;
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only where it failed
}

std::vector<flag> flags(options& o) {
  return {{flag_name, "LIST", flag_env,
           "CPU libraries to load beside the linked one, each in a namespace of its own, with rows CPU[name]/... "
           "and CPU-driver[name]/... of the dense solves, their halves and GEMM: none, auto (every one "
           "installed), or names from " +
               known_names(),
           [&o](const std::string& w, const std::string& v) { o.names = split_names(w, v); }, "none"}};
}

registration register_rows(session& run, const common_options& opt, const options& libs) {
  registration out;
  const lapack::runtime_info linked = lapack::blas_runtime_info();
  run.cpu_backend().set_row_fields(fields_of("linked", linked));

  std::vector<const lapack::library_files*> chosen;
  for (const auto& name : libs.names) {
    if (name == "auto")
      for (const auto& l : lapack::known_libraries()) chosen.push_back(&l);
    else if (name != "none") chosen.push_back(known(name));
  }
  if (chosen.empty()) return out;
  if (opt.sizes_max) {
    out.notes.push_back("--cpu_libraries: no rows at --sizes=max (a reference BLAS takes hours there): give --sizes");
    out.context.emplace_back("cpu_libraries", "none: --sizes=max");
    return out;
  }
  std::string ran, skipped;
  const auto skip = [&](const lapack::library_files& f, const std::string& why) {
    out.notes.push_back("--cpu_libraries: " + f.name + " skipped: " + why);
    skipped += (skipped.empty() ? "" : "; ") + f.name + ": " + why;
  };
  sweep_space space{opt.precisions, opt.sizes_or_default(), opt.nrhs, opt.kind, opt.seed, nullptr};
  for (const auto* f : chosen) {
    if (same_file(f->blas, linked.blas_library)) {
      skip(*f, "it is the linked library (" + linked.blas_library + "), whose rows are CPU/...");
      continue;
    }
    std::string missing;
    for (const auto& file : {f->blas, f->lapack})
      if (!file.empty() && !std::filesystem::exists(file)) missing += (missing.empty() ? "" : ", ") + file;
    if (!missing.empty()) {
      skip(*f, "not installed (" + missing + "; package " + f->package + ")");
      continue;
    }
    std::unique_ptr<lapack::loaded_library> lib;
    choose_threads(*f);
    try {
      lib = std::make_unique<lapack::loaded_library>(*f);
    } catch (const error& e) {
      skip(*f, e.what());
      continue;
    }
    // The session keeps the backend (and so the namespace's handles) until it ends.
    library_backend& b = run.own(std::make_unique<library_backend>(std::move(lib)));
    const lapack::runtime_info info = b.library()->info();
    out.notes.push_back("--cpu_libraries: " + f->name + ": " + summary(info));
    ran += (ran.empty() ? "" : "; ") + f->name + ": " + summary(info);
    auto* hooks = &b;
    register_sweep(run, space,
                   declare<bind<timed::halves, lu_rows, &ops::gesv, &ops::getrf, &ops::getrs>,
                           bind<timed::halves, cholesky_rows, &ops::posv, &ops::potrf, &ops::potrs>,
                           bind<timed::multiply, gemm_adapter, &ops::gemm>>(b.halves(), hooks, {}, b.library()),
                   declare<bind<timed::driver, lu_rows, &ops::gesv>, bind<timed::driver, cholesky_rows, &ops::posv>>(
                       b.driver(), hooks, {}, b.library()));
  }
  out.context.emplace_back("cpu_libraries", ran.empty() ? "none" : ran);
  if (!skipped.empty()) out.context.emplace_back("cpu_libraries_skipped", skipped);
  return out;
}

}  // namespace solvebench::bench::cpu_library
