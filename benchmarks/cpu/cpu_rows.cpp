// The CPU rows: dense solves (as their two halves), the halves alone and GEMM; the one-call
// LAPACKE drivers beside them (CPU-driver/...); mixed precision beside plain dgesv on the same
// matrix; batches of small systems.
#include "cpu/cpu_rows.hpp"

#include "core/batched.hpp"
#include "cpu/cpu_adapters.hpp"

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
}

namespace {

// `honour_kind`: --kind applies (solve rows); batches always take their operation's kind.
template <class Adapter>
void add(const row_spec& spec, const operation& op, const common_options& opt, bool honour_kind = true) {
  const problem p = make_problem(spec, op, honour_kind ? opt.kind : std::nullopt, opt.seed);
  register_row(spec, [p] { return std::make_unique<solve_fixture<Adapter>>(p); }, &cpu_backend());
}

// The adapter an operation of the solve family runs on, chosen once here.
template <class T>
void add_solve_row(const row_spec& spec, const operation& op, const common_options& opt) {
  if (op.multiplies) add<gemm_adapter<T>>(spec, op, opt);
  else if (op.family == factorization::cholesky) add<solve_adapter<T, cholesky<T>>>(spec, op, opt);
  else add<solve_adapter<T, lu<T>>>(spec, op, opt);
}

}  // namespace

void register_rows(const common_options& opt, const mixed_options& mixed, const batched_options& batched) {
  for_each_precision(opt.precisions, [&](auto precision) {
    using T = typename decltype(precision)::type;
    for (const operation* op : ops::solve_family)
      for (auto n : opt.sizes_or_default())
        for (const auto& spec : solve_rows<T>("CPU", *op, n, opt.nrhs)) add_solve_row<T>(spec, *op, opt);
    for (const operation* op : {&ops::gesv, &ops::posv})
      for (auto n : opt.sizes_or_default())
        for (auto k : opt.nrhs) {
          const auto spec = row_spec::of<T>("CPU-driver", *op).add("n", n).add("nrhs", k);
          if (op->family == factorization::cholesky) add<driver_adapter<T, cholesky<T>>>(spec, *op, opt);
          else add<driver_adapter<T, lu<T>>>(spec, *op, opt);
        }
  }, real_precisions{});  // no complex rows here yet

  if (opt.has("d"))  // mixed precision: fp64 in and out
    for (auto n : opt.sizes.empty() ? mixed.cpu_sizes : opt.sizes)
      for (const auto& [axis, matrix] : mixed_matrices(mixed)) {
        const auto plain = row_spec::of<double>("CPU", ops::gesv).add("n", n).add("nrhs", 1).add(axis, matrix);
        add<solve_adapter<double, lu<double>>>(plain, ops::gesv, opt);
        auto refined = row_spec("CPU", "dsgesv").add("n", n).add("nrhs", 1).add(axis, matrix);
        add<dsgesv_adapter>(refined.add("refine", "classical"), ops::gesv, opt);
      }

  for_each_precision(opt.precisions, [&](auto precision) {
    using T = typename decltype(precision)::type;
    for (const operation* op : {&ops::gesv_batched, &ops::posv_batched})
      for (auto n : batched.n)
        for (auto count : batched.count)
          add<batched_adapter<T>>(row_spec::of<T>("CPU", *op).add("n", n).add("batch", count), *op, opt, false);
  }, real_precisions{});  // no complex rows here yet
}

}  // namespace solvebench::bench::cpu
