// The cores available (lib: cpu_facts.hpp), the thread variables, the cpufreq governors and the
// huge page settings (lib: matrix.hpp).
#include "core/environment.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "solvebench/cpu_facts.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/matrix.hpp"

namespace solvebench::bench {

int cores_available() { return cpu::cores_available(); }

std::string thread_env() {
  std::string out;
  for (const char* name : thread_env_variables)
    if (const char* value = std::getenv(name)) out += (out.empty() ? "" : ";") + std::string(name) + "=" + value;
  return out;
}

std::string cpu_governors(const std::string& cpu_root) {
  namespace fs = std::filesystem;
  std::set<std::string> governors;
  std::error_code ec;
  for (fs::directory_iterator it(cpu_root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos)
      continue;
    std::ifstream in(it->path() / "cpufreq" / "scaling_governor");
    std::string governor;
    if (in >> governor) governors.insert(governor);
  }
  std::string out;
  for (const auto& g : governors) out += (out.empty() ? "" : ",") + g;
  return out;
}

namespace {
constexpr char wait_policy[] = "OMP_WAIT_POLICY", set_by_us[] = "SOLVE_BENCH_SET_OMP_WAIT_POLICY";

// Whether the BLAS is known to thread without OpenMP (Debian's -pthread and -serial builds of
// OpenBLAS and BLIS): an unknown vendor (MKL, whose threads may be OpenMP's) is not.
bool blas_threads_apart_from_openmp() {
  const std::string variant = lapack::blas_runtime_info().blas_variant;
  const auto ends_with = [&](const std::string& tail) {
    return variant.size() >= tail.size() && variant.compare(variant.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with("-pthread") || ends_with("-serial");
}

std::string wait_policy_fact() {
  const char* policy = std::getenv(wait_policy);
  if (!policy) return "";
  if (std::getenv(set_by_us)) return std::string(policy) + " (set by solve_bench: its generators' idle threads)";
  return std::string(policy) + " (the environment's)";
}
}  // namespace

bool quiet_idle_openmp() {
  if (std::getenv(wait_policy) || !blas_threads_apart_from_openmp()) return false;
  return setenv(wait_policy, "passive", 1) == 0 && setenv(set_by_us, "1", 1) == 0;
}

std::vector<std::pair<std::string, std::string>> environment_facts() {
  std::vector<std::pair<std::string, std::string>> facts{{"cores_available", std::to_string(cores_available())},
                                                         {"thread_env", thread_env()},
                                                         {"cpu_governor", cpu_governors()},
                                                         {"omp_wait_policy", wait_policy_fact()}};
  for (auto& fact : host_memory_facts()) facts.push_back(std::move(fact));
  return facts;
}

}  // namespace solvebench::bench
