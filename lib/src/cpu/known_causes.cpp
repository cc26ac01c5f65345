// The known causes as a table: one row per library defect, read by known_driver_cause.
#include "solvebench/known_causes.hpp"

#include <cctype>
#include <cstdio>
#include <tuple>

namespace solvebench::cpu {
namespace {

using version = std::tuple<int, int, int>;

// A driver that drops to one thread below a size: confirmed on [first, last_confirmed], likely
// on the versions after it up to `fixed` (exclusive), where nobody has measured it yet.
struct driver_cause {
  const char* vendor;  // as the library's blas_vendor fact names it (any case, within the fact)
  version first, last_confirmed, fixed;
  long long threshold_double, threshold_single;  // n * nrhs below which the driver runs one thread (d, z; s, c)
  const char* what;                              // why, after "runs ?gesv on one thread when ..."
};

const driver_cause driver_causes[] = {
    {"OpenBLAS",
     {0, 3, 26},
     {0, 3, 29},
     {0, 3, 34},
     10000,
     40000,
     "interface/lapack/gesv.c multiplies n by the number of right-hand sides where it means n * n. The threshold "
     "came in 0.3.26 (OpenBLAS PR 4388); fixed by 0.3.34. ?getrf + ?getrs keep all threads, which is why "
     "solve_bench's CPU/?gesv rows time them."},
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string text(const version& v) {
  return std::to_string(std::get<0>(v)) + "." + std::to_string(std::get<1>(v)) + "." + std::to_string(std::get<2>(v));
}

}  // namespace

std::string known_driver_cause(const std::string& vendor, const std::string& version_text, char precision, long long n,
                               long long nrhs) {
  version v;
  if (std::sscanf(version_text.c_str(), "%d.%d.%d", &std::get<0>(v), &std::get<1>(v), &std::get<2>(v)) != 3) return "";
  for (const auto& c : driver_causes) {
    if (lower(vendor).find(lower(c.vendor)) == std::string::npos) continue;
    const bool confirmed = v >= c.first && v <= c.last_confirmed;
    const bool likely = v > c.last_confirmed && v < c.fixed;
    // Below the threshold in n * n the driver runs one thread by design: no defect to name.
    const long long threshold = (precision == 'd' || precision == 'z') ? c.threshold_double : c.threshold_single;
    if (!(confirmed || likely) || n * nrhs >= threshold || n * n < threshold) continue;
    const std::string versions = text(c.first) + " to at least " + text(c.last_confirmed);
    return std::string(confirmed ? "Known cause: " : "Likely cause: ") + c.vendor + " " +
           (confirmed ? versions : versions + " (not established for " + version_text + ")") +
           " runs ?gesv on one thread when n * nrhs < " + std::to_string(c.threshold_double) + " (dgesv, zgesv) or " +
           std::to_string(c.threshold_single) + " (sgesv, cgesv): " + c.what;
  }
  return "";
}

}  // namespace solvebench::cpu
