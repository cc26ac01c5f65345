// The known causes as tables: one row per library defect, read by known_driver_cause and
// known_batch_cause.
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

// A lock that every call of the library takes, which threads that each call it queue on.
struct batch_cause {
  const char* vendor;
  version first, last_confirmed, fixed;
  const char* what;  // the cause, after "Known cause: <vendor> <versions> "
};

const batch_cause batch_causes[] = {
    {"OpenBLAS",
     {0, 3, 21},
     {0, 3, 26},
     {0, 3, 28},
     "built with its own threads (not OpenMP) takes one process-wide mutex in every call that needs a buffer "
     "(driver/others/memory.c, blas_memory_alloc, only to read whether its memory is set up), and the loop's "
     "threads queue on it: ?posv takes it three times a system (?potrf and two ?trsm), ?gesv once. Fixed in 0.3.28 "
     "(OpenBLAS PR 4693); the openmp variant does not take it. On the 2-core VM (0.3.21) a process's loop kept "
     "1.40-1.63 of 2 cores busy and CPU/dposv_batched/n:32 ran 2.1-3.1 ms by how the threads fell into the queue, "
     "1.6-1.7 ms on both cores with the openmp variant."},
};

bool parse(const std::string& text, version& v) {
  return std::sscanf(text.c_str(), "%d.%d.%d", &std::get<0>(v), &std::get<1>(v), &std::get<2>(v)) == 3;
}

bool has(const std::string& text, const std::string& part) {
  return lower(text).find(lower(part)) != std::string::npos;
}

}  // namespace

std::string known_batch_cause(const std::string& vendor, const std::string& version_text, const std::string& variant,
                              const std::string& config) {
  version v;
  if (!parse(version_text, v)) return "";
  // The lock is in the builds whose threads are the library's own: not OpenMP, not serial.
  if (has(variant, "openmp") || has(variant, "serial") || has(config, "USE_OPENMP")) return "";
  for (const auto& c : batch_causes) {
    if (!has(vendor, c.vendor) || v < c.first || !(v < c.fixed)) continue;
    const bool confirmed = v <= c.last_confirmed;
    const std::string versions = text(c.first) + " to " + text(c.last_confirmed);
    return std::string(confirmed ? "Known cause: " : "Likely cause: ") + c.vendor + " " +
           (confirmed ? versions : versions + " (not established for " + version_text + ")") + " " + c.what;
  }
  return "";
}

std::string known_driver_cause(const std::string& vendor, const std::string& version_text, char precision, long long n,
                               long long nrhs) {
  version v;
  if (!parse(version_text, v)) return "";
  for (const auto& c : driver_causes) {
    if (!has(vendor, c.vendor)) continue;
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
