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

// The model time of one row, in ms, split by what it is spent on. update_ms and panel_ms are the
// shares of the factorization's critical path (blocked_bound); solve and transfer add serially.
struct bound_terms {
  double update_ms = 0;    // the trailing updates on the path (GEMM, or SYRK at the GEMM rate)
  double panel_ms = 0;     // the panels on the path (factorization, triangular solve, a block's latency)
  double transfer_ms = 0;  // the host copies of a pinned or pageable row, at the bandwidth it measured
  double solve_ms = 0;     // a driver's solve with the factors: the same run's getrs or potrs row
  double serial_ms = 0;    // the factorization's pieces summed, each a call of its own: no look-ahead
  double total_ms() const { return update_ms + panel_ms + transfer_ms + solve_ms; }
  double serial_total_ms() const { return serial_ms + transfer_ms + solve_ms; }
  // "update", "panel", "transfer" or "solve": the largest term.
  std::string dominant() const;
  double share(const std::string& term) const;  // of the total, 0..1
};

// A probe's rate along m (its row's n), from the probe rows of one device and precision: linear
// in log m between the measured m, held at the ends; and its per-call latency.
struct probe_curve {
  std::vector<std::pair<double, double>> points;  // (m, GFLOP/s), sorted by m
  // The call's time at its smallest m: what one call costs whatever its work (launch, synchronisation,
  // thread start-up), and that m's small work with it.
  double latency_ms = 0;
  void add(double m, double gflops, double ms);  // one probe row
  bool empty() const { return points.empty(); }
  double rate_at(double m) const;
};
struct probe_rates {
  std::int64_t nb = 0;
  probe_curve update, panel, trsm, block;  // gemm_update, getrf_panel, trsm_panel, potrf_block (m = nb)
  std::vector<std::string> rows;           // the probe rows these come from
  double noise_pct = 0;                    // the largest of their between-run noise (rerun_noise_pct)
  bool covers(factorization f) const;      // has what the bound of this family needs
};

// T_bound(n) of a right-looking blocked factorization without its transfers: a floor, the
// critical path of a look-ahead of depth one. Block k = 0, nb, 2 nb, ... of width w = min(nb, n - k),
// m = n - k rows left, has the pieces panel (LU: getrf of m x w; Cholesky: potrf of w x w), the
// triangular solve of width w against m - w columns and the trailing update of (m - w) x w x (m - w)
// (Cholesky: SYRK, half the GEMM's flops, at the GEMM rate), each timed at its probe's rate at that m
// (LAWN 41 counts; real precisions). The block pays one call's latency, the largest of its pieces',
// and each piece its time beyond its own latency: P_k = latency + panel + trsm, U_k = update. The
// panel of block k + 1 runs beside the update of block k: T = P_0 + sum_k max(U_k, P_k+1), P_K = 0.
// serial_ms is the plain sum of every piece's time, latencies included.
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
  const row_ceiling* find(const std::string& row) const&;
  const row_ceiling* find(const std::string& row) const&& = delete;  // would point into a dead report
};

ceilings_report ceilings_of(const run_summary& run);

// The verdict's sentences: for each solve (dgesv, dposv, ...) at its largest n, each backend's
// headroom and its dominating term; without probes, the shares of peak and how to get a bound.
std::vector<std::string> ceiling_lines(const ceilings_report& report);

}  // namespace solvebench::bench
