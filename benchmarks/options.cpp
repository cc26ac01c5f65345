// Flag and environment parsing with clear errors (usage_error -> exit 2).
#include "options.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace solvebench::bench {
namespace {

// Largest n any row accepts: the 32-bit LAPACK index type.
constexpr std::int64_t max_size = 2147483647;

std::int64_t parse_int(const std::string& what, const std::string& item, std::int64_t lo, std::int64_t hi) {
  if (item.empty()) throw usage_error(what + ": empty value");
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(item.c_str(), &end, 10);
  if (end == item.c_str() || *end != '\0')
    throw usage_error(what + ": '" + item + "' is not an integer");
  if (errno == ERANGE || v > hi)
    throw usage_error(what + ": " + item + " is too large (at most " + std::to_string(hi) + ")");
  if (v < lo) throw usage_error(what + ": " + item + " must be at least " + std::to_string(lo));
  return v;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, sep)) parts.push_back(item);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

struct setting {
  const char* flag;  // "--sizes"
  const char* env;   // "SOLVE_BENCH_SIZES"
  void (*apply)(options&, const std::string& what, const std::string& value);
};

const setting settings[] = {
    {"--sizes", "SOLVE_BENCH_SIZES",
     [](options& o, const std::string& w, const std::string& v) { o.sizes = parse_size_list(w, v, max_size); }},
    {"--nrhs", "SOLVE_BENCH_NRHS",
     [](options& o, const std::string& w, const std::string& v) { o.nrhs = parse_size_list(w, v, max_size); }},
    {"--seed", "SOLVE_BENCH_SEED",
     [](options& o, const std::string& w, const std::string& v) {
       o.seed = static_cast<std::uint64_t>(parse_int(w, v, 0, INT64_MAX));
     }},
    {"--kind", "SOLVE_BENCH_KIND",
     [](options& o, const std::string& w, const std::string& v) {
       try {
         o.kind = parse_matrix_kind(v);
       } catch (const std::exception& e) {
         throw usage_error(w + ": " + e.what());
       }
     }},
    {"--precisions", "SOLVE_BENCH_PRECISIONS",
     [](options& o, const std::string& w, const std::string& v) {
       o.precisions = split(v, ',');
       for (const auto& p : o.precisions)
         if (p != "d" && p != "s") throw usage_error(w + ": '" + p + "' is not a precision (expected d, s or d,s)");
     }},
    {"--cusolver_api", "SOLVE_BENCH_CUSOLVER_API",
     [](options& o, const std::string& w, const std::string& v) {
       if (v != "generic64" && v != "legacy32")
         throw usage_error(w + ": '" + v + "' is not a cuSOLVER API (expected generic64 or legacy32)");
       o.cusolver_api = v;
     }},
    {"--mixed_kinds", "SOLVE_BENCH_MIXED_KINDS",
     [](options& o, const std::string& w, const std::string& v) {
       o.mixed_kinds.clear();
       for (const auto& k : split(v, ',')) {
         try {
           o.mixed_kinds.push_back(parse_matrix_kind(k));
         } catch (const std::exception& e) {
           throw usage_error(w + ": " + e.what());
         }
       }
     }},
    {"--refine", "SOLVE_BENCH_REFINE",
     [](options& o, const std::string& w, const std::string& v) {
       o.refine = split(v, ',');
       for (const auto& r : o.refine)
         if (r != "classical" && r != "gmres" && r != "classical_gmres" && r != "gmres_gmres")
           throw usage_error(w + ": '" + r + "' is not a refinement solver (classical, gmres, classical_gmres, "
                             "gmres_gmres)");
     }},
    {"--irs_max_iters", "SOLVE_BENCH_IRS_MAX_ITERS",
     [](options& o, const std::string& w, const std::string& v) { o.irs_max_iters = parse_int(w, v, 1, 10000); }},
    {"--batch_n", "SOLVE_BENCH_BATCH_N",
     [](options& o, const std::string& w, const std::string& v) { o.batch_n = parse_size_list(w, v, 46340); }},
    {"--batch_count", "SOLVE_BENCH_BATCH_COUNT",
     [](options& o, const std::string& w, const std::string& v) { o.batch_count = parse_size_list(w, v, 1 << 24); }},
    {"--rows_out", "SOLVE_BENCH_ROWS_OUT",
     [](options& o, const std::string& w, const std::string& v) {
       if (v.empty()) throw usage_error(w + ": empty path");
       o.rows_out = v;
     }},
};

}  // namespace

std::vector<std::int64_t> parse_size_list(const std::string& what, const std::string& text, std::int64_t max) {
  std::vector<std::int64_t> out;
  for (const auto& item : split(text, ',')) out.push_back(parse_int(what, item, 1, max));
  if (out.empty()) throw usage_error(what + ": empty list");
  return out;
}

options parse_options(int argc, char** argv, const std::vector<std::string>& gb_flags) {
  options opt;
  for (const auto& s : settings)
    if (const char* v = std::getenv(s.env)) s.apply(opt, std::string("environment variable ") + s.env, v);

  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    bool known = false;
    for (const auto& s : settings) {
      if (key != s.flag) continue;
      if (eq == std::string::npos) throw usage_error(std::string(s.flag) + " needs a value: " + s.flag + "=...");
      s.apply(opt, s.flag, arg.substr(eq + 1));
      known = true;
    }
    if (!known) throw usage_error("unknown argument '" + arg + "'");
  }
  for (const auto& f : gb_flags) {
    if (f.rfind("--benchmark_out=", 0) == 0) opt.benchmark_out = f.substr(16);
    if (f.rfind("--benchmark_format=", 0) == 0) opt.display_format = f.substr(19);
  }
  if (opt.display_format != "console" && opt.display_format != "json")
    throw usage_error("--benchmark_format: '" + opt.display_format + "' is not supported (console or json)");
  return opt;
}

std::string rows_log_path(const options& opt) {
  if (!opt.rows_out.empty()) return opt.rows_out;
  if (opt.benchmark_out.empty()) return "";
  std::string base = opt.benchmark_out;
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) base.resize(base.size() - 5);
  return base + ".rows.jsonl";
}

// The default sweep must finish in a few minutes on a 2-core machine and in ten on the H200;
// the GPU goes two sizes further, where it pulls away. Shared sizes pair in compare.py.
std::vector<std::int64_t> cpu_sizes(const options& opt) {
  if (!opt.sizes.empty()) return opt.sizes;
  return {256, 1024, 4096};
}

std::vector<std::int64_t> gpu_sizes(const options& opt) {
  if (!opt.sizes.empty()) return opt.sizes;
  return {256, 1024, 4096, 8192, 16384};
}

std::vector<std::int64_t> cpu_mixed_sizes(const options& opt) {
  if (!opt.sizes.empty()) return opt.sizes;
  return {1024, 4096};
}

std::vector<std::int64_t> gpu_mixed_sizes(const options& opt) {
  if (!opt.sizes.empty()) return opt.sizes;
  return {4096, 16384, 32768};
}

std::string usage_text() {
  return R"(usage: solve_bench [solve_bench flags] [Google Benchmark flags]

Dense Ax = b on the CPU (LAPACKE/OpenBLAS) and the GPU (cuSOLVER), rows named
<backend>/<op>/n:N[/nrhs:K], e.g. CPU/dgesv/n:4096/nrhs:1/manual_time.

solve_bench flags (each also read from the environment variable in brackets; flags win):
  --sizes=N[,N...]       matrix orders [SOLVE_BENCH_SIZES]
                         default CPU: 256,1024,4096; GPU: 256,1024,4096,8192,16384
  --nrhs=K[,K...]        right-hand sides for the solve rows [SOLVE_BENCH_NRHS] (default 1)
  --precisions=d,s       which of double (d) and single (s) to run [SOLVE_BENCH_PRECISIONS]
  --kind=KIND            matrix kind for every row: uniform, diagdom, spd; singular and nan
                         (bad input, to see the error paths)
                         [SOLVE_BENCH_KIND] (default: uniform for LU/GEMM, spd for Cholesky)
  --seed=S               generator seed, recorded in the JSON context [SOLVE_BENCH_SEED]
  --cusolver_api=API     generic64 (cusolverDnX*, 64-bit, default) or legacy32
                         (cusolverDn?getrf...) for the GPU rows [SOLVE_BENCH_CUSOLVER_API]
  --mixed_kinds=K,...    matrix kinds of the mixed-precision rows [SOLVE_BENCH_MIXED_KINDS]
                         (default uniform,diagdom; spd too on request; sizes: --sizes, else CPU 1024,4096 and
                         GPU 4096,16384,32768)
  --refine=R,...         GPU refinement solvers: classical, gmres, classical_gmres, gmres_gmres
                         [SOLVE_BENCH_REFINE] (default classical,gmres)
  --irs_max_iters=N      refinement iteration cap [SOLVE_BENCH_IRS_MAX_ITERS] (default 50)
  --batch_n=N,...        orders of the batched rows [SOLVE_BENCH_BATCH_N] (default 4,8,...,256)
  --batch_count=B,...    systems per batch [SOLVE_BENCH_BATCH_COUNT] (default 100,1000,10000)
  --rows_out=PATH        JSON-lines log of finished rows [SOLVE_BENCH_ROWS_OUT]
                         (default: next to --benchmark_out, X.json -> X.rows.jsonl)

Google Benchmark flags keep working, e.g.
  --benchmark_filter=REGEX  --benchmark_repetitions=N
  --benchmark_min_time=SECONDS (solve_bench's default: 0.25 s; Google Benchmark 1.8+ spells it 0.25s)
  --benchmark_out=FILE --benchmark_out_format=json  --benchmark_enable_random_interleaving=true

Exit status: 0 when every row ran and passed its residual check, 1 when a row failed
(its error is in the output and the JSON), 2 for bad flags or environment values.
)";
}

}  // namespace solvebench::bench
