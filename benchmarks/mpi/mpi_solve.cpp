// MPI rows: ScaLAPACK p?gesv and p?posv, timed as the slowest rank sees them.
#include "mpi/mpi_solve.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"
#include "operations.hpp"
#include "solvebench/residual.hpp"

namespace solvebench::bench {
namespace {

namespace sp = solvebench::scalapack;

// The steps of a row that every rank must reach together.
enum class step : std::uint64_t { set_up = 1, iteration = 2, check = 3 };

const char* to_string(step s) {
  switch (s) {
    case step::set_up: return "set-up";
    case step::iteration: return "an iteration";
    case step::check: return "the residual check";
  }
  return "?";
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

// Every rank must run the same rows, iterations and steps in the same order, or the next
// ScaLAPACK call waits forever for a partner. They do by construction: the rows and flags
// are the same everywhere, errors are agreed collectively, and Google Benchmark picks each
// process's iteration count from the times we feed it, which are the same on every rank
// (the maximum over ranks). This checks it before each step and aborts with a message,
// rather than hang, should that ever break.
void require_lockstep(MPI_Comm comm, const std::string& row, step s) {
  const std::uint64_t id = fnv1a(row) * 4 + static_cast<std::uint64_t>(s);
  std::uint64_t seen[2] = {id, ~id};  // MAX of both: the largest and (negated) smallest id
  MPI_Allreduce(MPI_IN_PLACE, seen, 2, MPI_UINT64_T, MPI_MAX, comm);
  if (seen[0] == id && ~seen[1] == id) return;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::fprintf(stderr,
               "solve_bench_mpi: rank %d is at %s of %s but other ranks are elsewhere; "
               "aborting instead of hanging\n",
               rank, to_string(s), row.c_str());
  MPI_Abort(comm, 3);
}

template <class T>
class mpi_fixture {
 public:
  mpi_fixture(const sp::process_grid& grid, operation op, std::int64_t n, std::int64_t nrhs, sp::index_t nb,
              matrix_kind kind, std::uint64_t seed, std::string row)
      : grid_(grid), op_(op), n_(n), nrhs_(nrhs), row_(std::move(row)) {
    require_lockstep(grid.comm(), row_, step::set_up);
    sp::on_every_rank(grid.comm(), [&] {
      checked_size("n", n, sp::max_n);
      checked_size("nrhs", nrhs, sp::max_n);
      checked_size("nb", nb, sp::max_n);
    });
    // A, its untouched copy, and during the check one double-sized temporary (the fp64
    // residual of fp32 rows widens A; fp64 rows use the copy itself): 16 bytes an entry.
    const auto blocks = [&](std::int64_t m, int procs) { return ((m + nb - 1) / nb + procs - 1) / procs * nb; };
    const auto local_a = static_cast<std::uint64_t>(blocks(n, grid.shape().rows)) *
                         static_cast<std::uint64_t>(blocks(n, grid.shape().cols));
    sp::require_node_memory(grid.comm(), local_a * 16);
    sp::on_every_rank(grid.comm(), [&] {
      a0_ = sp::generate_matrix<T>(grid, kind, n, nb, seed);
      b0_ = sp::generate_rhs<T>(grid, n, nrhs, nb, seed);
      a_ = a0_;
      b_ = b0_;
      ipiv_ = sp::pivots_for(a_);
    });
    run_once();  // warm-up: BLACS buffers, OpenBLAS threads and first touch stay out of the numbers
  }

  double run_once() {
    a_.assign(a0_);  // restore what the previous call overwrote; not timed
    b_.assign(b0_);
    require_lockstep(grid_.comm(), row_, step::iteration);
    MPI_Barrier(grid_.comm());  // all ranks start the clock together
    const auto t0 = std::chrono::steady_clock::now();
    const sp::index_t info = op_ == operation::gesv ? sp::gesv_info(a_, ipiv_, b_) : sp::posv_info(a_, b_);
    const double seconds = seconds_since(t0);
    sp::throw_on_grid_info(grid_, sp::routine_name<T>(to_string(op_)), info,
                           op_ == operation::gesv ? factorization::lu : factorization::cholesky);
    return sp::max_over_ranks(grid_.comm(), seconds);  // the call took as long as its slowest rank
  }

  double check() {
    require_lockstep(grid_.comm(), row_, step::check);
    const double resid = sp::hpl_scaled_residual(grid_, a0_, b_, b0_);  // the same on every rank
    check_residual(row_, resid);
    return resid;
  }

  double flops() const { return bench::flops(op_, n_, nrhs_); }

  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(n_);
    state.counters["nrhs"] = static_cast<double>(nrhs_);
    state.counters["ranks"] = grid_.ranks();
    state.counters["nb"] = static_cast<double>(a0_.block());
  }

 private:
  const sp::process_grid& grid_;
  operation op_;
  std::int64_t n_, nrhs_;
  std::string row_;
  sp::distributed_matrix<T> a0_, a_, b0_, b_;
  std::vector<sp::index_t> ipiv_;
};

template <class T>
void register_precision(const mpi_options& opt, const sp::process_grid& grid) {
  const auto sizes = mpi_sizes(opt);
  for (operation op : {operation::gesv, operation::posv}) {
    auto* family = benchmark::RegisterBenchmark(
        family_name<T>("MPI", op).c_str(), [op, &opt, &grid](benchmark::State& state) {
          const std::int64_t n = state.range(0), nrhs = state.range(1), nb = state.range(3);
          const std::string row = row_name<T>("MPI", op, n, nrhs) + "/ranks:" + std::to_string(grid.ranks()) +
                                  "/nb:" + std::to_string(nb);
          run_row<mpi_fixture<T>>(state, row, [&] {
            return std::make_unique<mpi_fixture<T>>(grid, op, n, nrhs, static_cast<sp::index_t>(nb),
                                                    kind_for(op, opt.common.kind), opt.common.seed, row);
          });
        });
    family->UseManualTime()->Unit(benchmark::kMillisecond)->ArgNames({"n", "nrhs", "ranks", "nb"});
    for (auto n : sizes)
      for (auto k : opt.common.nrhs)
        for (auto nb : opt.nb) family->Args({n, k, grid.ranks(), nb});
  }
}

}  // namespace

void register_mpi_benchmarks(const mpi_options& opt, const sp::process_grid& grid) {
  for (const auto& p : opt.common.precisions) {
    if (p == "d") register_precision<double>(opt, grid);
    if (p == "s") register_precision<float>(opt, grid);
  }
}

}  // namespace solvebench::bench
