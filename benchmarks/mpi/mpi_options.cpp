// Distributed flags, with the same error style as solve_bench's (usage_error -> exit 2).
#include "mpi/mpi_options.hpp"

#include <cstdlib>

namespace solvebench::bench::mpi {
namespace {

bool is_false(const std::string& v) { return v == "false" || v == "0" || v == "no" || v == "off"; }

}  // namespace

std::vector<flag> flags(options& o) {
  return {
      {"--nb", "NB[,NB...]", "SOLVE_BENCH_NB", "ScaLAPACK block sizes",
       [&o](const std::string& w, const std::string& v) { o.nb = parse_size_list(w, v, 1 << 20); },
       [&o] { return join(o.nb); }()},
      {"--blas_threads", "K", "SOLVE_BENCH_BLAS_THREADS",
       "BLAS threads per rank (1: one rank per core; use K > 1 with fewer ranks than cores)",
       [&o](const std::string& w, const std::string& v) {
         const auto values = parse_size_list(w, v, 1024);
         if (values.size() != 1) throw usage_error(w + ": expected one value, got '" + v + "'");
         o.blas_threads = static_cast<int>(values[0]);
       },
       [&o] { return std::to_string(o.blas_threads); }()},
  };
}

void check_gb_flags(const std::vector<std::string>& gb_flags) {
  for (const auto& f : gb_flags)
    if (f.rfind("--benchmark_enable_random_interleaving", 0) == 0) {
      const auto eq = f.find('=');
      if (eq == std::string::npos || !is_false(f.substr(eq + 1)))
        throw usage_error(
            "--benchmark_enable_random_interleaving is not supported under MPI: every rank "
            "shuffles on its own, so the ranks would run different rows");
    }
  if (const char* v = std::getenv("BENCHMARK_ENABLE_RANDOM_INTERLEAVING"); v && !is_false(v))
    throw usage_error(
        "BENCHMARK_ENABLE_RANDOM_INTERLEAVING is not supported under MPI (the ranks would "
        "run different rows)");
}

}  // namespace solvebench::bench::mpi
