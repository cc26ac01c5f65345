// Distributed flags, with the same error style as solve_bench's (usage_error -> exit 2).
#include "mpi/mpi_options.hpp"

#include <cstdlib>
#include <cstring>

namespace solvebench::bench {
namespace {

// One integer in [lo, hi] (parse_size_list does the checking and names the culprit).
std::int64_t parse_one(const std::string& what, const std::string& text, std::int64_t lo, std::int64_t hi) {
  const auto values = parse_size_list(what, text, hi);
  if (values.size() != 1) throw usage_error(what + ": expected one value, got '" + text + "'");
  if (values[0] < lo) throw usage_error(what + ": " + text + " must be at least " + std::to_string(lo));
  return values[0];
}

struct mpi_setting {
  const char* flag;
  const char* env;
  void (*apply)(mpi_options&, const std::string& what, const std::string& value);
};

const mpi_setting mpi_settings[] = {
    {"--nb", "SOLVE_BENCH_NB",
     [](mpi_options& o, const std::string& w, const std::string& v) { o.nb = parse_size_list(w, v, 1 << 20); }},
    {"--blas_threads", "SOLVE_BENCH_BLAS_THREADS",
     [](mpi_options& o, const std::string& w, const std::string& v) {
       o.blas_threads = static_cast<int>(parse_one(w, v, 1, 1024));
     }},
};

bool is_false(const std::string& v) { return v == "false" || v == "0" || v == "no" || v == "off"; }

}  // namespace

mpi_options parse_mpi_options(int argc, char** argv, const std::vector<std::string>& gb_flags) {
  mpi_options opt;
  for (const auto& s : mpi_settings)
    if (const char* v = std::getenv(s.env)) s.apply(opt, std::string("environment variable ") + s.env, v);

  // Take our flags out, leave the rest (and unknown ones) to parse_options.
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string key = arg.substr(0, arg.find('='));
    bool ours = false;
    for (const auto& s : mpi_settings) {
      if (key != s.flag) continue;
      if (arg.find('=') == std::string::npos)
        throw usage_error(std::string(s.flag) + " needs a value: " + s.flag + "=...");
      s.apply(opt, s.flag, arg.substr(arg.find('=') + 1));
      ours = true;
    }
    if (!ours) rest.push_back(argv[i]);
  }
  opt.common = parse_options(static_cast<int>(rest.size()), rest.data(), gb_flags);

  // Each process shuffles on its own: ranks would start different rows and wait forever.
  for (const auto& f : gb_flags)
    if (f.rfind("--benchmark_enable_random_interleaving", 0) == 0) {
      const auto eq = f.find('=');
      if (eq == std::string::npos || !is_false(f.substr(eq + 1)))
        throw usage_error("--benchmark_enable_random_interleaving is not supported under MPI: every rank "
                          "shuffles on its own, so the ranks would run different rows");
    }
  if (const char* v = std::getenv("BENCHMARK_ENABLE_RANDOM_INTERLEAVING"); v && !is_false(v))
    throw usage_error("BENCHMARK_ENABLE_RANDOM_INTERLEAVING is not supported under MPI (the ranks would "
                      "run different rows)");
  return opt;
}

std::vector<std::int64_t> mpi_sizes(const mpi_options& opt) { return cpu_sizes(opt.common); }

std::string mpi_usage_text() {
  return R"(usage: mpirun -np P solve_bench_mpi [flags] [Google Benchmark flags]

Dense Ax = b with ScaLAPACK over MPI (p?gesv, p?posv) on a near-square process grid of
the P ranks, rows named MPI/<op>/n:N/nrhs:K/ranks:P/nb:NB, e.g.
MPI/dgesv/n:4096/nrhs:1/ranks:4/nb:64/manual_time. Only rank 0 prints and writes files.

flags (each also read from the environment variable in brackets; flags win):
  --sizes=N[,N...]       matrix orders [SOLVE_BENCH_SIZES] (default 256,512,1024,2048,4096)
  --nb=NB[,NB...]        ScaLAPACK block sizes [SOLVE_BENCH_NB] (default 64)
  --nrhs=K[,K...]        right-hand sides [SOLVE_BENCH_NRHS] (default 1)
  --precisions=d,s       double (d) and/or single (s) [SOLVE_BENCH_PRECISIONS]
  --kind=KIND            uniform, diagdom, spd, singular [SOLVE_BENCH_KIND]
                         (default: uniform for gesv, spd for posv)
  --seed=S               generator seed [SOLVE_BENCH_SEED]
  --blas_threads=K       OpenBLAS threads per rank [SOLVE_BENCH_BLAS_THREADS] (default 1:
                         one rank per core; use K > 1 with fewer ranks than cores)
  --rows_out=PATH        JSON-lines log of finished rows [SOLVE_BENCH_ROWS_OUT]

Google Benchmark flags keep working (--benchmark_filter, --benchmark_repetitions,
--benchmark_min_time, --benchmark_out=FILE --benchmark_out_format=json), except
--benchmark_enable_random_interleaving.

Exit status: 0 when every row ran and passed its residual check, 1 when a row failed,
2 for bad flags or environment values, 3 if the ranks fell out of step (a bug: reported
instead of hanging).
)";
}

}  // namespace solvebench::bench
