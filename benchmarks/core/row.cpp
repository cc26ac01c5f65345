// Row names from axes.
#include "core/row.hpp"

#include <cmath>

#include "solvebench/conditioned.hpp"

namespace solvebench::bench {

std::string row_spec::name() const {
  std::string out = backend_ + "/" + op_;
  for (const auto& [key, value] : axes_) out += "/" + key + ":" + value;
  return out;
}

std::optional<std::string> row_spec::text(const std::string& key) const {
  for (const auto& [k, v] : axes_)
    if (k == key) return v;
  return std::nullopt;
}

std::int64_t row_spec::integer(const std::string& key, std::int64_t fallback) const {
  const auto v = text(key);
  return v ? std::stoll(*v) : fallback;
}

conditioned_spec conditioned_matrix(const problem& p) {
  return make_conditioned(p.n, p.cond, p.seed, conditioned_default_reflectors, std::sqrt(static_cast<double>(p.n)));
}

problem make_problem(const row_spec& spec, const operation& op, std::optional<matrix_kind> requested_kind,
                     std::uint64_t seed) {
  problem p{&op, spec.integer("n", 1), spec.integer("nrhs", 1), spec.integer("batch", 1), op.default_kind(), seed,
            spec.name()};
  if (const auto kind = spec.text("kind")) p.kind = parse_matrix_kind(*kind);
  else if (requested_kind) p.kind = *requested_kind;
  if (const auto cond = spec.text("cond")) p.cond = parse_condition_number(*cond);
  return p;
}

}  // namespace solvebench::bench
