// How close each solve runs to this machine's limits (issue 34, docs/ceilings.md): its rate as a
// share of the device's theoretical peak and of the same run's GEMM, and, where the run timed the
// probes (--ceilings=on: ops::probes), a bound for blocked LU and Cholesky built from them.
// Judged from a finished run's rows, like the audit; the verdict, its sidecars and the console
// show what is computed here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/record.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::bench {

// The model time of one row, in ms, split by what it is spent on.
struct bound_terms {
  double update_ms = 0;    // the trailing updates (GEMM, or SYRK at the GEMM rate): sum over blocks
  double panel_ms = 0;     // each block's panel factorization and its triangular solve of width nb
  double transfer_ms = 0;  // the host copies of a pinned or pageable row, at the bandwidth it measured
  double solve_ms = 0;     // a driver's solve with the factors: the same run's getrs or potrs row
  double total_ms() const { return update_ms + panel_ms + transfer_ms + solve_ms; }
  // "update", "panel", "transfer" or "solve": the largest term.
  std::string dominant() const;
  double share(const std::string& term) const;  // of the total, 0..1
};

// A probe's rate along m (its row's n), from the probe rows of one device and precision: linear
// in log m between the measured m, held at the ends.
struct probe_curve {
  std::vector<std::pair<double, double>> points;  // (m, GFLOP/s), sorted by m
  bool empty() const { return points.empty(); }
  double rate_at(double m) const;
};
struct probe_rates {
  std::int64_t nb = 0;
  probe_curve update, panel, trsm;     // gemm_update, getrf_panel, trsm_panel
  std::optional<double> block_gflops;  // potrf_block (n = nb)
  std::vector<std::string> rows;       // the probe rows these come from
  double noise_pct = 0;                // the largest of their between-run noise (rerun_noise_pct)
  bool covers(factorization f) const;  // has what the bound of this family needs
};

// T_bound(n) of a right-looking blocked factorization without its transfers: for each block
// k = 0, nb, 2 nb, ... of width w = min(nb, n - k) and m = n - k rows left, the panel (LU: getrf of
// m x w; Cholesky: potrf of w x w), the triangular solve of width w against m - w columns, and the
// trailing update of (m - w) x w x (m - w) (Cholesky: SYRK, half the GEMM's flops, at the GEMM rate),
// each at the rate its probe measured at that m. LAWN 41 counts; real precisions.
bound_terms blocked_bound(const probe_rates& rates, factorization family, std::int64_t n);

struct row_ceiling {
  row_id id;
  std::string row;
  double ms = 0;
  std::optional<double> gflops;
  std::optional<double> peak_gflops, pct_of_peak;  // the device's theoretical peak for the precision
  std::string gemm_row;                            // the same run's GEMM of the device and library, nearest n
  std::optional<double> pct_of_gemm;
  std::optional<bound_terms> bound;  // where the probes of its device and precision ran
  std::optional<double> headroom;    // ms / bound: 1 is the bound, 1.9 runs 1.9x as long
  std::int64_t nb = 0;
  std::vector<std::string> probe_rows;  // the rows the bound comes from
  double bound_noise_pct = 0;           // their largest between-run noise (and the solve row's)
  std::string solve_row;                // a driver's: the row its solve_ms is the median of
  std::string bound_leaves_out;         // what its bound lacks ("solve not measured: ...")
  std::string no_bound;                 // why it has none ("" when it has one, or is no factorization)
};

struct ceilings_report {
  std::vector<row_ceiling> rows;  // every plain solve and factorization row that finished, in run order
  bool probes = false;            // the run timed probe rows
  const row_ceiling* find(const std::string& row) const;
};

ceilings_report ceilings_of(const run_summary& run);

// The verdict's sentences: for each solve (dgesv, dposv, ...) at its largest n, each backend's
// headroom and its dominating term; without probes, the shares of peak and how to get a bound.
std::vector<std::string> ceiling_lines(const ceilings_report& report);

}  // namespace solvebench::bench
