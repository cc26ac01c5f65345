// MPI rows: ScaLAPACK p?gesv and p?posv on every rank, timed as the slowest rank sees them.
#include "mpi/mpi_rows.hpp"

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/harness.hpp"
#include "core/session.hpp"
#include "core/sweep.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::bench::mpi {
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

// p?gesv / p?posv: the bare call (its INFO agreed after the fact), one right-hand side block.
template <class T>
struct lu {
  explicit lu(const sp::distributed_matrix<T>& a) : ipiv(sp::pivots_for(a)) {}
  sp::index_t call(sp::distributed_matrix<T>& a, sp::distributed_matrix<T>& b) { return sp::gesv_info(a, ipiv, b); }
  std::vector<sp::index_t> ipiv;
};
template <class T>
struct cholesky {
  explicit cholesky(const sp::distributed_matrix<T>&) {}
  sp::index_t call(sp::distributed_matrix<T>& a, sp::distributed_matrix<T>& b) { return sp::posv_info(a, b); }
};

// Names the first NaN/Inf entry of this rank's pieces of `m` by its global place, as the CPU
// rows do, instead of a residual of inf after the solve. Local: on_every_rank agrees on it.
template <class T>
void require_finite_pieces(const char* name, const sp::distributed_matrix<T>& m) {
  for (std::int64_t j = 0; j < m.local_cols(); ++j)
    for (std::int64_t i = 0; i < m.local_rows(); ++i)
      if (const T v = m.local(i, j); !std::isfinite(v))
        throw non_finite_input(name, m.global_row(i), m.global_col(j), static_cast<double>(v));
}

// A and B block-cyclic over the grid, each rank generating its pieces from global indices.
// The timed region: a barrier, then each rank's clock around the ScaLAPACK driver; the row's
// time is the slowest rank's.
template <class T, class Driver>
class adapter {
 public:
  adapter(const problem& p, const sp::process_grid& grid) : p_(p), grid_(grid) {
    const auto nb = static_cast<sp::index_t>(p.integer("nb", 64));
    require_lockstep(grid.comm(), p.row, step::set_up);
    sp::on_every_rank(grid.comm(), [&] {
      checked_size("n", p.n, sp::max_n);
      checked_size("nrhs", p.nrhs, sp::max_n);
      checked_size("nb", nb, sp::max_n);
    });
    // A, its untouched copy, and during the check one double-sized temporary (the fp64
    // residual of fp32 rows widens A; fp64 rows use the copy itself): 16 bytes an entry.
    const auto blocks = [&](std::int64_t m, int procs) { return ((m + nb - 1) / nb + procs - 1) / procs * nb; };
    const auto local_a = static_cast<std::uint64_t>(blocks(p.n, grid.shape().rows)) *
                         static_cast<std::uint64_t>(blocks(p.n, grid.shape().cols));
    sp::require_node_memory(grid.comm(), local_a * 16);
    sp::on_every_rank(grid.comm(), [&] {
      a0_ = sp::generate_matrix<T>(grid, p.kind, p.n, nb, p.seed);
      b0_ = sp::generate_rhs<T>(grid, p.n, p.nrhs, nb, p.seed);
      require_finite_pieces("A", a0_);
      a_ = a0_;
      b_ = b0_;
      driver_.emplace(a_);
    });
  }
  void restore(bool, bool) {
    a_.assign(a0_);
    b_.assign(b0_);
  }
  void start() {
    require_lockstep(grid_.comm(), p_.row, step::iteration);
    MPI_Barrier(grid_.comm());  // all ranks start the clock together
    t0_ = std::chrono::steady_clock::now();
  }
  void factor_and_solve() { info_ = driver_->call(a_, b_); }
  double stop() { return sp::max_over_ranks(grid_.comm(), seconds_since(t0_)); }  // as long as its slowest rank
  // The first collective after the timed loop: the lockstep check comes first, so ranks that
  // ran different iteration counts abort with a message instead of mismatching collectives.
  void check_info() const {
    require_lockstep(grid_.comm(), p_.row, step::check);
    sp::throw_on_grid_info(grid_, sp::routine_name<T>(p_.op->name), info_, p_.op->family);
  }
  double residual() { return sp::hpl_scaled_residual(grid_, a0_, b_, b0_); }  // the same on every rank
  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(p_.n);
    state.counters["nrhs"] = static_cast<double>(p_.nrhs);
    state.counters["ranks"] = grid_.ranks();
    state.counters["nb"] = static_cast<double>(a0_.block());
  }

 private:
  problem p_;
  const sp::process_grid& grid_;
  sp::distributed_matrix<T> a0_, a_, b0_, b_;
  std::optional<Driver> driver_;
  sp::index_t info_ = 0;
  std::chrono::steady_clock::time_point t0_;
};

template <class T>
using lu_rows = adapter<T, lu<T>>;
template <class T>
using cholesky_rows = adapter<T, cholesky<T>>;

constexpr backend_desc mpi{"MPI",      row_role::spread, row_device::cpu, row_placement::resident, row_path::driver,
                           "scalapack"};

}  // namespace

void register_rows(session& run, const common_options& opt, const options& mpi_opt, const sp::process_grid& grid) {
  const sweep_space space{opt.precisions, opt.sizes_or_default(), opt.nrhs, opt.kind, opt.seed, nullptr};
  register_sweep<real_precisions>(
      run, space,
      declare<bind<timed::driver, lu_rows, &ops::gesv>, bind<timed::driver, cholesky_rows, &ops::posv>>(
          mpi, nullptr, {axis("ranks", std::vector<int>{grid.ranks()}), axis("nb", mpi_opt.nb)}, std::cref(grid)));
}

}  // namespace solvebench::bench::mpi
