// Flag and environment parsing with clear errors (usage_error -> exit 2), and the help text.
#include "core/options.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <unistd.h>

#include "checks/history.hpp"
#include "checks/load.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "solvebench/conditioned.hpp"
#include "solvebench/errors.hpp"
#include "solvebench/precision.hpp"

namespace solvebench::bench {
namespace {

// Largest n any row accepts: the 32-bit LAPACK index type.
constexpr std::int64_t max_size = 2147483647;

std::int64_t parse_int(const std::string& what, const std::string& item, std::int64_t lo, std::int64_t hi) {
  if (item.empty()) throw usage_error(what + ": empty value");
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(item.c_str(), &end, 10);
  if (end == item.c_str() || *end != '\0') throw usage_error(what + ": '" + item + "' is not an integer");
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

// A library parse error (invalid_argument listing the accepted values) as a usage error.
template <class Parse>
auto as_usage(const std::string& what, Parse&& parse) {
  try {
    return parse();
  } catch (const invalid_argument& e) {
    throw usage_error(what + ": " + e.what());
  }
}

template <class T, class Name>
std::string join_names(const std::vector<T>& values, Name&& name) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ",") + std::string(name(v));
  return s;
}

}  // namespace

std::string escape_controls(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) out += format("\\x%02x", u);
    else out += c;
  }
  return out;
}

std::string join(const std::vector<std::int64_t>& values) {
  return join_names(values, [](std::int64_t v) { return std::to_string(v); });
}

std::vector<std::int64_t> parse_size_list(const std::string& what, const std::string& text, std::int64_t max) {
  std::vector<std::int64_t> out;
  for (const auto& item : split(text, ',')) {
    const auto v = parse_int(what, item, 1, max);
    if (std::find(out.begin(), out.end(), v) != out.end())
      throw usage_error(what + ": " + item + " appears twice (each size once)");
    out.push_back(v);
  }
  if (out.empty()) throw usage_error(what + ": empty list");
  return out;
}

namespace {
// --sizes=scan:LO..HI or --nrhs=scan:LO..HI: the coarse grid, the range kept; one axis at a time.
std::vector<std::int64_t> scan_grid(common_options& o, const char* axis, const std::string& what,
                                    const std::string& value) {
  const auto range = parse_scan_range(axis, value.substr(5), max_size);
  if (!range) throw usage_error(what + ": '" + value + "' is not scan:LO..HI with 1 <= LO < HI");
  if (o.scan)
    throw usage_error(what + ": a scan of " + o.scan->axis + " is already asked for; scan one axis at a time");
  o.scan = range;
  return coarse_grid(range->lo, range->hi);
}
std::string format_seconds(double s) { return std::to_string(static_cast<long long>(s)); }
}  // namespace

bool common_options::has(const char* precision) const {
  for (const auto& p : precisions)
    if (p == precision) return true;
  return false;
}

std::vector<flag> common_flags(common_options& o, const std::string& sizes_help) {
  return {
      {"--sizes", "N[,N...]|max|scan:LO..HI", "SOLVE_BENCH_SIZES",
       "matrix orders (" + sizes_help +
           "); max: each family at the largest n its device's free memory and its "
           "library's limits allow, said at the start of the run; scan:LO..HI: a coarse grid from LO to HI, "
           "then sizes bisecting each pair of neighbours whose time per flop jumps beyond their noise, each "
           "cliff said as an interval (docs/cliffs.md)",
       [&o](const std::string& w, const std::string& v) {
         o.sizes_max = v == "max";
         if (o.scan && o.scan->axis == "n") o.scan.reset();
         if (v.rfind("scan:", 0) == 0) o.sizes = scan_grid(o, "n", w, v);
         else o.sizes = o.sizes_max ? std::vector<std::int64_t>{} : parse_size_list(w, v, max_size);
       },
       [&o] { return join(o.default_sizes); }()},
      {"--nrhs", "K[,K...]|scan:LO..HI", "SOLVE_BENCH_NRHS", "right-hand sides of the solve rows (scan: as --sizes)",
       [&o](const std::string& w, const std::string& v) {
         if (o.scan && o.scan->axis == "nrhs") o.scan.reset();
         o.nrhs = v.rfind("scan:", 0) == 0 ? scan_grid(o, "nrhs", w, v) : parse_size_list(w, v, max_size);
       },
       [&o] { return join(o.nrhs); }()},
      {"--scan_extra", "N", "SOLVE_BENCH_SCAN_EXTRA",
       "a scan's bound on the rows it adds to its coarse grid, bisecting between suspect neighbours",
       [&o](const std::string& w, const std::string& v) {
         o.scan_extra = static_cast<int>(parse_int(w, v, 0, 100000));
       },
       [&o] { return std::to_string(o.scan_extra); }()},
      {"--scan_budget", "SECONDS", "SOLVE_BENCH_SCAN_BUDGET",
       "a scan starts no further pass of bisection once the run has taken this long",
       [&o](const std::string& w, const std::string& v) {
         o.scan_budget_s = static_cast<double>(parse_int(w, v, 0, 10000000));
       },
       [&o] { return format_seconds(o.scan_budget_s); }()},
      {"--precisions", "d,s", "SOLVE_BENCH_PRECISIONS", "double (d) and/or single (s)",
       [&o](const std::string& w, const std::string& v) {
         o.precisions = split(v, ',');
         if (o.precisions.empty())
           throw usage_error(w + ": empty list (expected some of " + precision_letters_text() + ")");
         for (const auto& p : o.precisions)
           if (!is_precision_letter(p))
             throw usage_error(w + ": '" + p + "' is not a precision (expected some of " + precision_letters_text() +
                               ")");
       },
       [&o] { return join_names(o.precisions, [](const std::string& p) { return p; }); }()},
      {"--kind", "KIND", "SOLVE_BENCH_KIND",
       "matrix kind of the dense solve rows (mixed-precision rows: --mixed_kinds; batched rows keep theirs): "
       "uniform, diagdom, spd; singular and nan (bad input, to see the error paths)",
       [&o](const std::string& w, const std::string& v) { o.kind = as_usage(w, [&] { return parse_matrix_kind(v); }); },
       [] { return std::string("uniform for LU and GEMM, spd for Cholesky"); }()},
      {"--seed", "S", "SOLVE_BENCH_SEED", "generator seed, recorded in the JSON context",
       [&o](const std::string& w, const std::string& v) {
         o.seed = static_cast<std::uint64_t>(parse_int(w, v, 0, INT64_MAX));
       },
       [&o] { return std::to_string(o.seed); }()},
      {"--rows_out", "PATH", "SOLVE_BENCH_ROWS_OUT",
       "JSON-lines log of finished rows (PATH.partial while the run goes)",
       [&o](const std::string& w, const std::string& v) {
         if (v.empty()) throw usage_error(w + ": empty path");
         o.rows_out = v;
       },
       [] { return std::string("next to --benchmark_out, X.json -> X.rows.jsonl"); }()},
      {"--resume", "LOG", "SOLVE_BENCH_RESUME",
       "continue an interrupted run: the rows in LOG (its X.rows.jsonl.partial) are skipped, new rows appended",
       [&o](const std::string& w, const std::string& v) {
         if (v.empty()) throw usage_error(w + ": empty path");
         o.resume = v;
       },
       [] { return std::string("none"); }()},
      {"--rounds", "R", "SOLVE_BENCH_ROUNDS",
       "rounds per row and process: the rows run R times in an order shuffled per round (from --seed), each "
       "time with their problem built anew; the spread of the rounds' medians gives the row's +-, what a re-run "
       "would see (--benchmark_repetitions=R says the same); a row whose calls are long gets fewer; given "
       "without --processes, the R rounds run in one process",
       [&o](const std::string& w, const std::string& v) {
         o.rounds = static_cast<int>(parse_int(w, v, 1, 10000));
         o.rounds_given = true;
       },
       [&o] { return std::to_string(o.rounds); }()},
      {"--processes", "K", "SOLVE_BENCH_PROCESSES",
       "processes, one after another, each running every row's rounds and appending them to the same rows "
       "log; the last one judges and writes; the +- then holds what differs between processes (thread pools, "
       "memory, the GPU context and the library's choices, the minutes each runs in)",
       [&o](const std::string& w, const std::string& v) {
         o.processes = static_cast<int>(parse_int(w, v, 1, 100));
         o.processes_given = true;
       },
       [&o] { return std::to_string(o.processes); }()},
      {"--span", "S", "SOLVE_BENCH_SPAN",
       "seconds over which the processes start: process k of K starts k*S/(K-1) s after the first at the "
       "earliest (it waits, idle), so the +- holds what the machine does over S s, not only over the seconds "
       "the rows take (a VM whose speed moves over minutes); 0 runs them back to back, quickest, with a +- "
       "that holds only those seconds; given, it needs --processes of 2 or more",
       [&o](const std::string& w, const std::string& v) {
         o.span_s = static_cast<int>(parse_int(w, v, 0, 86400));
         o.span_given = true;
       },
       [&o] {
         return o.span_s > 0 ? std::to_string(o.span_s) + " with 2 or more processes, else 0"
                             : std::string("0: one after another");
       }()},
      {"--history", "STORE", "SOLVE_BENCH_HISTORY",
       "a tools/track store: each row's +- is at least the spread between the runs of it on record (one run's, "
       "for a machine whose speed moves for longer than a run: only a record of many runs shows it); the "
       "context's noise_history names the record",
       [&o](const std::string&, const std::string& v) { o.history = v; },
       [] { return std::string("none: the run's own rounds and processes"); }()},
      {"--testbed", "NAME", "SOLVE_BENCH_TESTBED", "the testbed of --history's store whose record the rows are held to",
       [&o](const std::string&, const std::string& v) { o.testbed = v; },
       [] { return std::string("the host's name, else the store's only testbed"); }()},
      {"--progress", "MODE", "SOLVE_BENCH_PROGRESS",
       "progress on stderr: auto (one line redrawn on a terminal, else lines), lines, off (errors still shown)",
       [&o](const std::string& w, const std::string& v) {
         if (v != "auto" && v != "lines" && v != "off")
           throw usage_error(w + ": '" + v + "' is not one of auto, lines, off");
         o.progress = v;
       },
       [&o] { return o.progress; }()},
  };
}

std::vector<flag> gpu_flags(gpu_options& o) {
  return {
      {"--cusolver_api", "API", "SOLVE_BENCH_CUSOLVER_API",
       "generic64 (cusolverDnX*, 64-bit) or legacy32 (cusolverDn?getrf...) for the GPU rows",
       [&o](const std::string& w, const std::string& v) { o.api = as_usage(w, [&] { return parse_cusolver_api(v); }); },
       [&o] { return std::string(to_string(o.api)); }()},
  };
}

std::vector<flag> mixed_flags(mixed_options& o) {
  return {
      {"--mixed_kinds", "K[,K...]", "SOLVE_BENCH_MIXED_KINDS", "matrix kinds of the mixed-precision rows",
       [&o](const std::string& w, const std::string& v) {
         o.kinds.clear();
         for (const auto& k : split(v, ',')) o.kinds.push_back(as_usage(w, [&] { return parse_matrix_kind(k); }));
       },
       [&o] {
         return join_names(o.kinds, [](matrix_kind k) { return to_string(k); }) + "; sizes: --sizes, else CPU " +
                join(o.cpu_sizes) + " and GPU " + join(o.gpu_sizes);
       }()},
      {"--refine", "R[,R...]", "SOLVE_BENCH_REFINE",
       "GPU refinement solvers: classical, gmres, classical_gmres, gmres_gmres; none (no refinement: the "
       "low-precision solve alone, checked at its own precision: the floor under every refined solve)",
       [&o](const std::string& w, const std::string& v) {
         o.refine.clear();
         for (const auto& r : split(v, ',')) o.refine.push_back(as_usage(w, [&] { return parse_refinement(r); }));
       },
       [&o] { return join_names(o.refine, [](refinement r) { return to_string(r); }); }()},
      {"--cond", "C[,C...]", "SOLVE_BENCH_COND",
       "2-norm condition numbers of extra mixed-precision rows (cond:C): A = U S V^T, S geometric, and b = A x "
       "for a known x, so the rows report the forward error",
       [&o](const std::string& w, const std::string& v) {
         o.conds.clear();
         for (const auto& c : split(v, ',')) {
           const double cond = as_usage(w, [&] { return parse_condition_number(c); });
           if (!(cond <= 1e16))
             throw usage_error(w + ": " + c + " is beyond 1e16, past what fp64 can resolve (1/eps = 9e15)");
           o.conds.push_back(cond);
         }
       },
       [&o] { return o.conds.empty() ? std::string("none") : std::string("given"); }()},
      {"--irs_api", "A[,A...]", "SOLVE_BENCH_IRS_API",
       "GPU mixed-precision interfaces: expert (cusolverDnIRSXgesv), simple (cusolverDn<t1><t2>gesv, rows /api:simple)",
       [&o](const std::string& w, const std::string& v) {
         o.apis.clear();
         for (const auto& a : split(v, ',')) o.apis.push_back(as_usage(w, [&] { return parse_irs_api(a); }));
       },
       [&o] { return join_names(o.apis, [](irs_api a) { return to_string(a); }); }()},
      {"--irs_tol", "X[,X...]", "SOLVE_BENCH_IRS_TOL",
       "refinement tolerances of extra expert-API rows (tol:X); none: cuSOLVER's default",
       [&o](const std::string& w, const std::string& v) {
         o.tolerances.clear();
         for (const auto& t : split(v, ',')) {
           char* end = nullptr;
           const double x = std::strtod(t.c_str(), &end);
           if (t.empty() || *end != '\0' || !(x > 0) || !std::isfinite(x))
             throw usage_error(w + ": '" + t + "' is not a positive, finite number");
           o.tolerances.push_back(x);
         }
       },
       [] { return std::string("none"); }()},
      {"--irs_max_iters", "N", "SOLVE_BENCH_IRS_MAX_ITERS", "refinement iteration cap (then the fp64 fallback)",
       [&o](const std::string& w, const std::string& v) { o.irs_max_iters = parse_int(w, v, 1, 10000); },
       [&o] { return std::to_string(o.irs_max_iters); }()},
  };
}

std::vector<std::pair<std::string, std::string>> mixed_matrices(const mixed_options& o) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto k : o.kinds) out.emplace_back("kind", to_string(k));
  for (auto c : o.conds) out.emplace_back("cond", format_condition_number(c));
  return out;
}

std::vector<flag> batched_flags(batched_options& o) {
  return {
      {"--batch_n", "N[,N...]", "SOLVE_BENCH_BATCH_N", "orders of the batched rows (--sizes does not bound them)",
       [&o](const std::string& w, const std::string& v) { o.n = o.cpu_n = parse_size_list(w, v, 46340); },
       [&o] { return "GPU " + join(o.n) + ", CPU " + join(o.cpu_n); }()},
      {"--batch_count", "B[,B...]", "SOLVE_BENCH_BATCH_COUNT", "systems per batch",
       [&o](const std::string& w, const std::string& v) { o.count = o.cpu_count = parse_size_list(w, v, 1 << 24); },
       [&o] { return "GPU " + join(o.count) + ", CPU " + join(o.cpu_count); }()},
  };
}

std::vector<flag> mgpu_flags(mgpu_options& o) {
  return {
      {"--mgpu_sizes", "N[,N...]", "SOLVE_BENCH_MGPU_SIZES",
       "matrix orders of the multi-GPU rows (cusolverMg, MGPU/...); none: no such rows",
       [&o](const std::string& w, const std::string& v) {
         o.sizes = v == "none" ? std::vector<std::int64_t>{} : parse_size_list(w, v, max_size);
       },
       [&o] { return o.sizes.empty() ? std::string("none") : join(o.sizes); }()},
      {"--mgpu_gpus", "G[,G...]", "SOLVE_BENCH_MGPU_GPUS", "GPU counts of the multi-GPU rows",
       [&o](const std::string& w, const std::string& v) { o.gpus = parse_size_list(w, v, 1024); },
       [&o] { return o.gpus.empty() ? std::string("1 up to the devices present") : join(o.gpus); }()},
      {"--mgpu_tiles", "T[,T...]", "SOLVE_BENCH_MGPU_TILES", "column tile sizes of the multi-GPU rows (at most 512)",
       [&o](const std::string& w, const std::string& v) { o.tiles = parse_size_list(w, v, 512); },
       [&o] { return join(o.tiles); }()},
  };
}

std::vector<flag> ceilings_flags(ceilings_options& o) {
  return {
      {"--ceilings", "on|off", "SOLVE_BENCH_CEILINGS",
       "on: also time the pieces of blocked LU and Cholesky (GEMM at m x nb x m, the m x nb panel, the "
       "triangular solve of width nb, the nb x nb Cholesky block) at each device's dense sizes, so that the "
       "factorization and driver rows of n >= " +
           std::to_string(limits::bound_min_blocks) + " nb get their bound and headroom (docs/ceilings.md)",
       [&o](const std::string& w, const std::string& v) {
         if (v != "on" && v != "off") throw usage_error(w + ": '" + v + "' is not on or off");
         o.probes = v == "on";
       },
       [&o] { return std::string(o.probes ? "on" : "off") + ", nb " + std::to_string(o.nb); }()},
  };
}

namespace {

// Every SOLVE_BENCH_* variable a program of the suite reads: each binary's flags (the groups here
// and solve_bench_mpi's), the tools' own and the test hooks. One exported for another program of
// the suite is left alone; any other name is a misspelling (SOLVE_BENCH_SIZS), refused.
bool suite_variable(const std::string& name) {
  static const char* const others[] = {
      "SOLVE_BENCH_NB",                   // solve_bench_mpi --nb
      "SOLVE_BENCH_BLAS_THREADS",         // solve_bench_mpi --blas_threads
      "SOLVE_BENCH_CPU_LIBRARIES",        // solve_bench --cpu_libraries (cpu_library/)
      "SOLVE_BENCH_CHECKS",               // tools/regress, tools/report: which solve_bench_checks
      "SOLVE_BENCH_MPIEXEC",              // tools/mpi_scaling.py: the launcher
      "SOLVE_BENCH_CMAKE_ARGS",           // tools/quickstart: more CMake arguments
      "SOLVE_BENCH_OUT",                  // tools/quickstart: the JSON file
      "SOLVE_BENCH_RANKS",                // tools/quickstart mpi: the ranks
      "SOLVE_BENCH_REEXEC_DEPTH",         // the driver's re-execution for deferred rows
      "SOLVE_BENCH_REEXEC_STARTED",       // ... and for the next of --processes: when the run started
      "SOLVE_BENCH_REEXEC_TEMPORARY",     // ... and whether its rows log is a temporary
      "SOLVE_BENCH_INJECT_FAULT",         // solve_bench_fault_injection (tests)
      "SOLVE_BENCH_TEST_SLOWDOWN",        // a planted regression (the gate's tests)
      "SOLVE_BENCH_IGNORE_IRS_LIMIT",     // tools/device/irs_limit.sh
      "SOLVE_BENCH_GPU_HOLD_US",          // the GPU hold before each timed call (device_hold.hpp)
      "SOLVE_BENCH_SET_OMP_WAIT_POLICY",  // solve_bench set OMP_WAIT_POLICY itself (environment.hpp)
  };
  if (std::any_of(std::begin(others), std::end(others), [&](const char* v) { return name == v; })) return true;
  common_options common;
  gpu_options gpu;
  mixed_options mixed;
  batched_options batched;
  mgpu_options mgpu;
  ceilings_options ceilings;
  for (const auto& group : {common_flags(common, ""), gpu_flags(gpu), mixed_flags(mixed), batched_flags(batched),
                            mgpu_flags(mgpu), ceilings_flags(ceilings)})
    for (const auto& f : group)
      if (name == f.env) return true;
  return false;
}

}  // namespace

namespace {
// --history's record, read before the run: a wrong store or testbed fails now, not after the rows ran.
void settle_history(common_options& o) {
  if (o.history.empty()) {
    if (!o.testbed.empty())
      throw usage_error("--testbed=" + o.testbed + " needs --history=STORE, the store it is a testbed of");
    return;
  }
  run_summary here;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) here.context["host_name"] = host;
  try {
    o.testbed = testbed_for(o.history, o.testbed, here);
    o.record = std::make_shared<const run_history>(load_history(o.history, o.testbed));
  } catch (const load_error& e) {
    throw usage_error(std::string("--history: ") + e.what());
  }
}
}  // namespace

void parse_flags(const std::vector<flag>& flags, int argc, char** argv, common_options& common, char** env) {
  for (char** e = env; e && *e; ++e) {
    const std::string entry = *e, name = entry.substr(0, entry.find('='));
    if (name.rfind("SOLVE_BENCH_", 0) == 0 && !suite_variable(name))
      throw usage_error("environment variable " + name +
                        " names no flag of this binary nor a variable of another program of the suite");
  }
  for (const auto& f : flags)
    if (const char* v = std::getenv(f.env)) f.apply(std::string("environment variable ") + f.env, v);

  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    bool known = false;
    for (const auto& f : flags) {
      if (key != f.name) continue;
      if (eq == std::string::npos) throw usage_error(std::string(f.name) + " needs a value: " + f.name + "=...");
      f.apply(f.name, arg.substr(eq + 1));
      known = true;
    }
    if (!known) throw usage_error("unknown argument '" + arg + "'");
  }
  settle_history(common);
}

std::string flags_help(const std::vector<flag>& flags) {
  std::string out;
  for (const auto& f : flags) {
    std::string lead = std::string("  ") + f.name + "=" + f.value;
    lead.resize(std::max<std::size_t>(lead.size() + 1, 25), ' ');
    // The text flows at 100 columns under the help column (wrap keeps a leading indent, not the lead's padding).
    const std::string text =
        wrap(std::string(lead.size(), ' ') + f.help + " [" + f.env + "]", 100, std::string(25, ' '));
    out += lead + text.substr(lead.size()) + "\n" +
           wrap(std::string(25, ' ') + "(default " + f.default_text + ")", 100, std::string(25, ' ')) + "\n";
  }
  return out;
}

}  // namespace solvebench::bench
