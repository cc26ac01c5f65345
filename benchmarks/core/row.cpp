// Row names from axes.
#include "core/row.hpp"

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

problem make_problem(const row_spec& spec, const operation& op, std::optional<matrix_kind> requested_kind,
                     std::uint64_t seed) {
  problem p{&op, spec.integer("n", 1), spec.integer("nrhs", 1), spec.integer("batch", 1), op.default_kind(), seed,
            spec.name()};
  if (const auto kind = spec.text("kind")) p.kind = parse_matrix_kind(*kind);
  else if (requested_kind) p.kind = *requested_kind;
  return p;
}

}  // namespace solvebench::bench
