// Facts about the machine that decide whether a CPU number is fair, read once at start and put
// in the run's JSON context, where the audit (checks/audit.hpp) reads them back.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace solvebench::bench {

// The variables that override the thread count, core type or thread placement a BLAS would
// pick for itself.
inline constexpr const char* thread_env_variables[] = {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_CORETYPE",
                                                       "GOTO_NUM_THREADS",     "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                                                       "BLIS_ARCH_TYPE",       "OMP_PROC_BIND",   "OMP_PLACES",
                                                       "GOMP_CPU_AFFINITY",    "KMP_AFFINITY"};

// Cores this process may run on (its affinity mask, which taskset and cgroups narrow), not the
// machine's count.
int cores_available();

// "NAME=value;NAME=value" for each of thread_env_variables that is set; "" when none is.
std::string thread_env();

// The distinct cpufreq governors of the CPUs under cpu_root, sorted and comma-separated
// ("performance", "powersave,schedutil"); "" when none can be read (containers, VMs).
std::string cpu_governors(const std::string& cpu_root = "/sys/devices/system/cpu");

// libgomp's idle threads spin after each parallel region (GOMP_SPINCOUNT), beside the timed calls
// that follow it: solve_bench's generators and checks run in OpenMP, the timed BLAS in threads of
// its own. On the 2-core VM (2026-12-02, 10 processes of the CPU rows at n = 256, 1024, two
// OpenBLAS threads) another process's median fell inside a process's +- in 76% of pairs as
// libgomp spins by default and in 92% with OMP_WAIT_POLICY=passive. So solve_bench runs passive
// when the environment does not set the policy and the BLAS is known to thread without OpenMP
// (an OpenMP BLAS's idle threads are its own, as in a user's program; an unknown one's may be).
// True when it set the variable: libgomp reads it once, when it loads, so the caller re-executes.
bool quiet_idle_openmp();

// {"cores_available", ...}, {"thread_env", ...}, {"cpu_governor", ...}, {"omp_wait_policy", ...}
// for the JSON context.
std::vector<std::pair<std::string, std::string>> environment_facts();

}  // namespace solvebench::bench
