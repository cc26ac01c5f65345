// Declarative sweeps: a backend is declared as data (its description, and which adapter times
// which operations, and how), and one registration forms the product of precisions,
// operations, sizes, right-hand sides and the backend's own axes, nvbench-style. Nothing here
// switches over operations; a binding whose adapter lacks what its operations need does not
// compile (core/fixture.hpp's contract).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/fixture.hpp"
#include "core/harness.hpp"
#include "core/row.hpp"
#include "core/session.hpp"

namespace solvebench::bench {

// Adapter<T> times operations Ops, calling what Kind says (core/fixture.hpp).
template <timed Kind, template <class> class Adapter, const operation*... Ops>
struct bind {
  static_assert(sizeof...(Ops) > 0, "a binding names at least one operation");
  static_assert((((Kind == timed::multiply) == Ops->multiplies) && ...), "timed::multiply binds GEMM and nothing else");
  static_assert((((Kind == timed::probe) == Ops->probe) && ...), "timed::probe binds the probes (ops::probes) alone");
  static_assert(((Kind != timed::driver || (Ops->factors && Ops->solves)) && ...),
                "timed::driver binds operations that factor and solve (gesv, posv)");
  static bool handles(const operation& op) { return ((&op == Ops) || ...); }
  template <class T, class... Extra>
  static fixture_factory factory(const problem& p, const Extra&... extra) {
    return [p, extra...] { return std::make_unique<solve_fixture<Adapter<T>, Kind>>(p, extra...); };
  }
};

// An axis of a backend's own (gpus, tile, ranks, nb ...): its rows are the product of them all,
// in the order given, after n and nrhs.
struct axis_values {
  std::string key;
  std::vector<std::string> values;
};
template <class V>
axis_values axis(std::string key, const std::vector<V>& values) {
  axis_values a{std::move(key), {}};
  for (const auto& v : values) {
    if constexpr (std::is_arithmetic_v<V>) a.values.push_back(std::to_string(v));
    else a.values.push_back(v);
  }
  return a;
}

// A backend as data: its description, its hooks around each row (row_backend: probes, the GPU's
// context health), what every adapter's constructor takes after the problem, its own axes, and
// its bindings (Bindings... are bind<> types).
template <class Extras, class... Bindings>
struct backend_rows {
  backend_desc desc;
  row_backend* hooks = nullptr;
  Extras extras;
  std::vector<axis_values> axes;
};
template <class... Bindings, class... Extra>
backend_rows<std::tuple<Extra...>, Bindings...> declare(backend_desc desc, row_backend* hooks,
                                                        std::vector<axis_values> axes, Extra... extra) {
  return {desc, hooks, std::tuple<Extra...>(std::move(extra)...), std::move(axes)};
}

// The sweep a set of backends shares: which precisions, sizes, right-hand sides and matrices.
struct sweep_space {
  std::vector<std::string> precisions;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> nrhs;
  std::optional<matrix_kind> kind;  // --kind, for every row; else each operation's default
  std::uint64_t seed;
  // --sizes=max: the order each backend, operation and precision runs at instead of `sizes`
  // (the largest that fits: largest_fitting_n), none to leave the row out.
  std::function<std::optional<std::int64_t>(const backend_desc&, const operation&, char precision)> largest;
};

namespace sweep_detail {

inline void axis_product(const std::vector<axis_values>& axes, std::size_t k, row_id& id,
                         const std::function<void(const row_id&)>& emit) {
  if (k == axes.size()) {
    emit(id);
    return;
  }
  for (const auto& v : axes[k].values) {
    id.axes.emplace_back(axes[k].key, v);
    axis_product(axes, k + 1, id, emit);
    id.axes.pop_back();
  }
}

template <class T, class Extras, class Binding, class... Rest>
bool add_with(session& run, const backend_rows<Extras, Binding, Rest...>& b, const operation& op, const problem& p) {
  if (Binding::handles(op)) {
    const auto make = std::apply([&](const auto&... e) { return Binding::template factory<T>(p, e...); }, b.extras);
    run.register_row(p.id, make, b.hooks);
    return true;
  }
  if constexpr (sizeof...(Rest) > 0)
    return add_with<T>(run, backend_rows<Extras, Rest...>{b.desc, b.hooks, b.extras, b.axes}, op, p);
  return false;
}

template <class T, class Extras, class... Bindings>
void add_rows(session& run, const backend_rows<Extras, Bindings...>& b, const operation& op, const sweep_space& s) {
  if (!(Bindings::handles(op) || ...)) return;
  std::vector<std::int64_t> sizes = s.sizes;
  if (s.largest) {
    sizes.clear();
    if (const auto n = s.largest(b.desc, op, precision<T>::letter)) sizes.push_back(*n);
  }
  for (auto n : sizes) {
    std::vector<std::optional<std::int64_t>> rhs;
    if (op.has_rhs()) rhs.assign(s.nrhs.begin(), s.nrhs.end());
    else rhs.emplace_back();
    for (const auto& k : rhs) {
      row_id id = make_row_id<T>(b.desc, op, n, k);
      axis_product(b.axes, 0, id,
                   [&](const row_id& full) { add_with<T>(run, b, op, make_problem(full, op, s.kind, s.seed)); });
    }
  }
}

}  // namespace sweep_detail

// Registers in `run`, for each precision, each backend in turn, each operation of the dense family it
// binds, each n, each nrhs (operations that solve), each combination of its own axes: a row.
// Types: the precisions these backends' adapters are built for (precision.hpp's lists).
template <class Types = all_precisions, class... Backends>
void register_sweep(session& run, const sweep_space& s, const Backends&... backends) {
  for_each_precision(
      s.precisions,
      [&](auto precision) {
        using T = typename decltype(precision)::type;
        const auto one = [&](const auto& b) {
          for (const operation* op : ops::solve_family) sweep_detail::add_rows<T>(run, b, *op, s);
        };
        (one(backends), ...);
      },
      Types{});
}

}  // namespace solvebench::bench
