// The CPU rows, declared as data: dense solves (as their two halves), the halves alone and GEMM;
// the one-call LAPACKE drivers beside them (CPU-driver/...); mixed precision beside plain dgesv
// on the same matrix; batches of small systems.
#include "cpu/cpu_rows.hpp"

#include "core/batched.hpp"
#include "core/sweep.hpp"
#include "cpu/cpu_adapters.hpp"
#include "cpu/cpu_probes.hpp"

namespace solvebench::bench::cpu {

template <class T>
double batched_adapter<T>::residual() {
  const auto worst = batch_worst_residual(a0_.data(), b_.data(), b0_.data(), p_.n, p_.count);
  worst_index_ = worst.index;
  check_residual(p_.row + " (worst system " + std::to_string(worst.index) + ")", worst.resid);
  return worst.resid;
}

template <class T>
void batched_adapter<T>::add_counters(benchmark::State& state) const {
  add_batch_counters(state, p_.n, p_.count, worst_index_);
  state.counters["batch_threads"] = static_cast<double>(ws_.team_ran());  // the loop's team, as it ran
}

namespace {

template <class T>
using lu_rows = solve_adapter<T, lu<T>>;
template <class T>
using cholesky_rows = solve_adapter<T, cholesky<T>>;
template <class T>
using lu_driver = driver_adapter<T, lu<T>>;
template <class T>
using cholesky_driver = driver_adapter<T, cholesky<T>>;

constexpr const backend_desc& cpu = halves_desc;
constexpr const backend_desc& cpu_driver = driver_desc;
constexpr backend_desc cpu_mixed{
    "CPU",   row_role::reference, row_device::cpu, row_placement::resident, row_path::driver,
    "lapack"};  // LAPACKE_dsgesv: one call
constexpr backend_desc cpu_batched{
    "CPU", row_role::reference, row_device::cpu, row_placement::resident, row_path::batched, "lapack"};

// --sizes=max: what the host can still hand out, less a tenth for everything else.
std::uint64_t usable_host_bytes() { return host_memory_available_bytes() / 10 * 9; }

template <class T>
std::optional<std::int64_t> largest_cpu_n(session& run, const backend_desc& b, const operation& op,
                                          const common_options& opt) {
  const std::uint64_t usable = usable_host_bytes();
  const auto bytes = [&](std::int64_t n) -> std::uint64_t {
    const problem p = make_problem(make_row_id<T>(b, op, n, opt.nrhs.front()), op, opt.kind, opt.seed);
    return op.multiplies ? gemm_adapter<T>::bytes(p) : solve_adapter<T, lu<T>>::bytes(p);
  };
  const auto n = largest_fitting_n(bytes, usable, lapack::max_n);
  if (n) run.note_largest(std::string(b.name) + "/" + precision<T>::letter + op.name, *n, bytes(*n), usable);
  return n;
}

template <class Adapter, timed Kind>
void add(session& run, const row_id& id, const operation& op, std::optional<matrix_kind> kind, std::uint64_t seed) {
  const problem p = make_problem(id, op, kind, seed);
  run.register_row(
      id, [p] { return std::make_unique<solve_fixture<Adapter, Kind>>(p); }, &run.cpu_backend());
}

// --ceilings=on: the pieces of blocked LU and Cholesky at each dense size, and the nb x nb block once.
constexpr backend_desc cpu_probe{"CPU",           row_role::reference,
                                 row_device::cpu, row_placement::resident,
                                 row_path::probe, "lapack"};

template <class Adapter, class T>
void add_probe(session& run, const operation& op, std::int64_t n, std::int64_t nb, const char* library,
               std::uint64_t seed) {
  row_id id = make_row_id<T>(cpu_probe, op, n);
  id.library = library;
  add<Adapter, timed::probe>(run, add_axis(id, "nb", nb), op, std::nullopt, seed);
}

void register_probes(session& run, const common_options& opt, std::int64_t nb) {
  if (opt.sizes_max) return;  // the probes follow a list of sizes
  for_each_precision(
      opt.precisions,
      [&](auto precision) {
        using T = typename decltype(precision)::type;
        for (const auto n : opt.sizes_or_default()) {
          if (n < nb) continue;
          add_probe<update_probe<T>, T>(run, ops::gemm_update, n, nb, "blas", opt.seed);
          add_probe<panel_probe<T>, T>(run, ops::getrf_panel, n, nb, "lapack", opt.seed);
          add_probe<trsm_probe<T>, T>(run, ops::trsm_panel, n, nb, "blas", opt.seed);
        }
        add_probe<block_probe<T>, T>(run, ops::potrf_block, nb, nb, "lapack", opt.seed);
      },
      real_precisions{});  // the bound is for real precisions
}

}  // namespace

void register_rows(session& run, const common_options& opt, const mixed_options& mixed, const batched_options& batched,
                   const ceilings_options& ceilings) {
  sweep_space space{opt.precisions, opt.sizes_or_default(), opt.nrhs, opt.kind, opt.seed, nullptr};
  if (opt.sizes_max)
    space.largest = [&](const backend_desc& b, const operation& op, char letter) {
      std::optional<std::int64_t> n;
      for_each_precision(std::vector<std::string>{std::string(1, letter)},
                         [&](auto tag) { n = largest_cpu_n<typename decltype(tag)::type>(run, b, op, opt); });
      return n;
    };
  register_sweep(run, space,
                 declare<bind<timed::halves, lu_rows, &ops::gesv, &ops::getrf, &ops::getrs>,
                         bind<timed::halves, cholesky_rows, &ops::posv, &ops::potrf, &ops::potrs>,
                         bind<timed::multiply, gemm_adapter, &ops::gemm>>(cpu, &run.cpu_backend(), {}),
                 declare<bind<timed::driver, lu_driver, &ops::gesv>, bind<timed::driver, cholesky_driver, &ops::posv>>(
                     cpu_driver, &run.cpu_backend(), {}));

  std::vector<std::int64_t> mixed_sizes = opt.sizes.empty() ? mixed.cpu_sizes : opt.sizes;
  if (opt.sizes_max && opt.has("d")) {
    const problem probe =
        make_problem(make_row_id<double>(cpu_mixed, ops::gesv, 1, 1), ops::gesv, std::nullopt, opt.seed);
    const auto bytes = [&](std::int64_t m) {
      problem p = probe;
      p.n = m;
      return std::max(dsgesv_adapter::bytes(p), solve_adapter<double, lu<double>>::bytes(p));
    };
    const std::uint64_t usable = usable_host_bytes();
    const auto n = largest_fitting_n(bytes, usable, lapack::max_n);
    if (n) run.note_largest("CPU mixed precision (dsgesv, and dgesv beside it)", *n, bytes(*n), usable);
    mixed_sizes = n ? std::vector<std::int64_t>{*n} : std::vector<std::int64_t>{};
  }
  if (opt.has("d"))  // mixed precision: fp64 in and out, beside plain dgesv on the same matrix
    for (auto n : mixed_sizes)
      for (const auto& [axis, matrix] : mixed_matrices(mixed)) {
        row_id plain = make_row_id<double>(cpu, ops::gesv, n, 1);
        add<lu_rows<double>, timed::halves>(run, add_axis(plain, axis, matrix), ops::gesv, std::nullopt, opt.seed);
        row_id refined = make_row_id<double>(cpu_mixed, ops::gesv, n, 1);
        refined.factor = factor_letter(factor_precision::fp32);
        add_axis(add_axis(refined, axis, matrix), "refine", "classical");
        add<dsgesv_adapter, timed::driver>(run, refined, ops::gesv, std::nullopt, opt.seed);
      }

  for_each_precision(
      opt.precisions,
      [&](auto precision) {
        using T = typename decltype(precision)::type;
        for (const operation* op : {&ops::gesv_batched, &ops::posv_batched})
          for (auto n : batched.cpu_n)
            for (auto count : batched.cpu_count) {
              row_id id = make_row_id<T>(cpu_batched, *op, n);
              add<batched_adapter<T>, timed::driver>(run, add_axis(id, "batch", count), *op, std::nullopt, opt.seed);
            }
      },
      real_precisions{});  // batched solvers: s and d
  if (ceilings.probes) register_probes(run, opt, ceilings.nb);
}

}  // namespace solvebench::bench::cpu
