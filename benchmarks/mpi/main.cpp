// solve_bench_mpi: ScaLAPACK rows under mpirun. Every rank runs every row; only rank 0
// prints and writes files. Exit: 0 ok, 1 a row failed, 2 bad flags, 3 ranks out of step.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "harness.hpp"
#include "mpi/mpi_options.hpp"
#include "mpi/mpi_solve.hpp"
#include "solvebench/config.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/scalapack.hpp"

namespace sb = solvebench;
namespace sp = solvebench::scalapack;
namespace bench = solvebench::bench;

namespace {

// Google Benchmark's reporter for ranks other than 0: they run every row (they must, for
// the collectives) but say nothing.
class silent_reporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

template <class V>
std::string join(const std::vector<V>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// A problem found on some rank (flags, environment, an output file that cannot be written),
// as every rank learns it: the first failing rank's message, or "" when none failed.
std::string first_problem(const std::string& mine) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int first = mine.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return "";
  int length = static_cast<int>(mine.size());
  MPI_Bcast(&length, 1, MPI_INT, first, MPI_COMM_WORLD);
  std::string text = rank == first ? mine : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(text.data(), length, MPI_CHAR, first, MPI_COMM_WORLD);
  return first == 0 ? text : "rank " + std::to_string(first) + ": " + text;
}

void add_context(const bench::mpi_options& opt, const sp::process_grid& grid) {
  const auto blas = sb::lapack::blas_runtime_info();
  const auto mpi = sp::mpi_runtime_info(grid.comm());  // collective: every rank calls it
  const auto add = [](const char* key, const std::string& value) { benchmark::AddCustomContext(key, value); };
  add("solve_bench_version", SOLVE_BENCH_VERSION);
  add("solve_bench_build_type", SOLVE_BENCH_BUILD_TYPE);
  add("mpi_ranks", std::to_string(grid.ranks()));
  add("mpi_grid", std::to_string(grid.shape().rows) + "x" + std::to_string(grid.shape().cols));
  add("mpi_hosts", mpi.hosts);
  add("mpi_library", mpi.mpi_library);
  add("mpi_standard", mpi.mpi_standard);
  add("scalapack_library", mpi.scalapack_library);
  add("scalapack_version", std::string(SOLVE_BENCH_SCALAPACK_VERSION).empty()
                               ? "unknown (ScaLAPACK cannot report it; see scalapack_library)"
                               : SOLVE_BENCH_SCALAPACK_VERSION " (known at build time; ScaLAPACK cannot report it)");
  add("blas_vendor", blas.vendor);
  add("blas_version", blas.version);
  add("blas_config", blas.blas_config);
  add("blas_core", blas.blas_core);
  add("blas_threads", std::to_string(blas.blas_threads));
  add("blas_threads_meaning", blas.vendor + " threads per rank (--blas_threads)");
  add("blas_library", mpi.blas_library);
  add("lapack_version", blas.lapack_version);
  add("lapack_library", blas.lapack_library);
  add("seed", std::to_string(opt.common.seed));
  add("matrix_kind_lu", opt.common.kind ? sb::to_string(*opt.common.kind) : "uniform");
  add("matrix_kind_cholesky", opt.common.kind ? sb::to_string(*opt.common.kind) : "spd");
  add("mpi_sizes", join(bench::mpi_sizes(opt)));
  add("mpi_nb", join(opt.nb));
  add("iterations", "chosen by Google Benchmark from the max-over-ranks times, so the same on every rank");
  add("timing", "MPI_Barrier, then each rank's steady_clock around the ScaLAPACK call; the row's time is "
                "the maximum over ranks (MPI_Allreduce MAX)");
}

int run(const sp::mpi_session& mpi, int argc, char** argv) {
  const bool root = mpi.rank() == 0;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      if (root) std::cout << bench::mpi_usage_text();
      return 0;
    }

  // Google Benchmark opens --benchmark_out on every process that is given it; only rank 0
  // may, or the ranks would truncate each other's file (on a shared file system).
  std::vector<std::string> gb_flags;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const bool gb = std::strncmp(argv[i], "--benchmark_", 12) == 0;
    if (gb) gb_flags.emplace_back(argv[i]);
    if (!root && gb && std::strncmp(argv[i], "--benchmark_out", 15) == 0) continue;
    args.push_back(argv[i]);
  }
  if (!root) unsetenv("BENCHMARK_OUT");
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&args_count, args.data());

  bench::mpi_options opt;
  std::string problem;
  try {
    opt = bench::parse_mpi_options(args_count, args.data(), gb_flags);
    if (root && !opt.common.benchmark_out.empty() && !std::ofstream(opt.common.benchmark_out, std::ios::app))
      problem = "cannot write --benchmark_out=" + opt.common.benchmark_out;
  } catch (const bench::usage_error& e) {
    problem = e.what();
  }
  problem = first_problem(problem);
  if (!problem.empty()) {
    if (root) std::cerr << "solve_bench_mpi: " << problem << "\n\n" << bench::mpi_usage_text();
    return 2;
  }

  // One OpenBLAS thread per rank by default: P ranks on P cores, none oversubscribed.
  sb::lapack::set_blas_threads(opt.blas_threads);
  const sp::process_grid grid(MPI_COMM_WORLD);
  bench::register_mpi_benchmarks(opt, grid);
  add_context(opt, grid);

  std::unique_ptr<benchmark::BenchmarkReporter> reporter;
  try {
    if (root)
      reporter = std::make_unique<bench::row_log_reporter>(bench::make_display_reporter(opt.common.display_format),
                                                           bench::rows_log_path(opt.common));
    else
      reporter = std::make_unique<silent_reporter>();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  problem = first_problem(problem);
  if (!problem.empty()) {
    if (root) std::cerr << "solve_bench_mpi: " << problem << "\n";
    return 2;
  }
  benchmark::RunSpecifiedBenchmarks(reporter.get());
  bench::fixtures().clear();  // before the grid goes
  benchmark::Shutdown();

  const auto& failed = bench::failed_rows();  // the same on every rank: errors are agreed
  if (failed.empty()) return 0;
  if (root) {
    std::cerr << "solve_bench_mpi: " << failed.size() << " row(s) failed:\n";
    for (const auto& f : failed) std::cerr << "  " << f << "\n";
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  sp::mpi_session mpi(argc, argv);  // MPI_Finalize after run() has returned
  return run(mpi, argc, argv);
}
