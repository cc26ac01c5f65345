// solve_bench_mpi: ScaLAPACK rows under mpirun. Every rank runs every row; only rank 0
// prints and writes files. Exit: 0 ok, 1 a row failed, 2 bad flags, 3 ranks out of step.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <optional>
#include <string>

#include "core/driver.hpp"
#include "core/escaped.hpp"
#include "mpi/mpi_options.hpp"
#include "mpi/mpi_rows.hpp"
#include "solvebench/config.hpp"
#include "solvebench/lapack.hpp"
#include "solvebench/scalapack.hpp"

namespace bench = solvebench::bench;
namespace sp = solvebench::scalapack;

namespace {

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

// The root's text (the rows log a resumed run continues) on every rank.
std::string from_rank0(const std::string& text) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  unsigned long long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string out = rank == 0 ? text : std::string(static_cast<std::size_t>(length), ' ');
  if (length > 0) MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

void add_context(const bench::common_options& opt, const bench::mpi::options& mpi, const sp::process_grid& grid) {
  const auto info = sp::mpi_runtime_info(grid.comm());  // collective: every rank calls it
  const auto add = [](const char* key, const std::string& value) { benchmark::AddCustomContext(key, value); };
  add("mpi_ranks", std::to_string(grid.ranks()));
  add("mpi_grid", std::to_string(grid.shape().rows) + "x" + std::to_string(grid.shape().cols));
  add("mpi_hosts", info.hosts);
  add("mpi_library", info.mpi_library);
  add("mpi_standard", info.mpi_standard);
  add("scalapack_library", info.scalapack_library);
  add("scalapack_version", std::string(SOLVE_BENCH_SCALAPACK_VERSION).empty()
                               ? "unknown (ScaLAPACK cannot report it; see scalapack_library)"
                               : SOLVE_BENCH_SCALAPACK_VERSION " (known at build time; ScaLAPACK cannot report it)");
  add("blas_threads_meaning", "BLAS threads per rank (--blas_threads)");  // blas_library: the common context
  add("mpi_sizes", bench::join(opt.sizes_or_default()));
  add("mpi_nb", bench::join(mpi.nb));
  add("iterations", "chosen by Google Benchmark from the max-over-ranks times, so the same on every rank");
  add("timing",
      "MPI_Barrier, then each rank's steady_clock around the ScaLAPACK call; the row's time is "
      "the maximum over ranks (MPI_Allreduce MAX)");
}

int run(const sp::mpi_session& session, int argc, char** argv) {
  bench::common_options common;
  bench::mpi::options mpi;
  std::optional<sp::process_grid> grid;

  bench::program p;
  p.name = "solve_bench_mpi";
  p.about =
      "usage: mpirun -np P solve_bench_mpi [flags] [Google Benchmark flags]\n\n"
      "Dense Ax = b with ScaLAPACK over MPI (p?gesv, p?posv) on a near-square process grid of\n"
      "the P ranks, rows named MPI/<op>/n:N/nrhs:K/ranks:P/nb:NB, e.g.\n"
      "MPI/dgesv/n:4096/nrhs:1/ranks:4/nb:64/manual_time. Only rank 0 prints and writes files.\n"
      "--benchmark_enable_random_interleaving is refused: every rank would shuffle on its own.\n";
  p.common = &common;
  for (auto group : {bench::common_flags(common, "the same as solve_bench's CPU rows, so MPI rows meet CPU rows"),
                     bench::mpi::flags(mpi)})
    p.flags.insert(p.flags.end(), group.begin(), group.end());
  p.root = session.rank() == 0;
  p.ranks_in_step = true;
  p.can_reexec = false;  // no GPU context to lose; a rank that dies takes the job with it
  p.agree = first_problem;
  p.from_root = from_rank0;
  p.check_gb_flags = bench::mpi::check_gb_flags;
  p.register_rows = [&](bench::session& run) {
    // One BLAS thread per rank by default: P ranks on P cores, none oversubscribed.
    solvebench::lapack::set_blas_threads(mpi.blas_threads);
    grid.emplace(MPI_COMM_WORLD);
    bench::mpi::register_rows(run, common, mpi, *grid);
  };
  p.add_context = [&](const bench::session&) { add_context(common, mpi, *grid); };
  p.release = [&] { grid.reset(); };
  return bench::run_program(p, argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  sp::mpi_session session(argc, argv);  // MPI_Finalize after everything in run has gone
  // An exception on one rank leaves the others waiting in a collective: MPI_Abort ends the job
  // (status 1), before the session's MPI_Finalize could wait for them.
  return bench::run_guarded(
      "solve_bench_mpi", [&] { return run(session, argc, argv); },
      [] { MPI_Abort(MPI_COMM_WORLD, bench::escaped_exception_status); });
}
