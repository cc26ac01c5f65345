// The energy counters every row monitor reports the same way.
#include "solvebench/row_monitor.hpp"

namespace solvebench {

std::vector<std::pair<std::string, double>> energy_counters(double joules, double flops_per_iteration,
                                                            long long iterations) {
  if (!(joules > 0) || iterations <= 0) return {};
  const double per_solve = joules / static_cast<double>(iterations);
  std::vector<std::pair<std::string, double>> out{{"J/solve", per_solve}};
  if (flops_per_iteration > 0) out.emplace_back("GFLOP/J", flops_per_iteration / 1e9 / per_solve);
  return out;
}

}  // namespace solvebench
