// Every number the checks judge by, defined once. The audit, the verdict, the comparison of
// runs and the tools (which read the values from the sidecars the checks write) use these.
#pragma once

#include "solvebench/residual.hpp"

namespace solvebench::bench::limits {

// The HPL pass mark: a timed answer with a scaled residual at or above it is an error.
inline constexpr double resid = residual_threshold;

// A mixed-precision answer is fp64-accurate when it passes the HPL check at fp64 and its
// forward error is at most this many times dgesv's on the same matrix (one digit), with
// dgesv's floored at fp64's unit roundoff (an exact dgesv answer would reject everything).
inline constexpr double fwd_err_slack = 10.0;
inline constexpr double fwd_err_floor = 1.1102230246251565e-16;  // 2^-53

// fp64:fp32 GEMM rate at or above this: fp64 is first-class on this GPU (H100/A100: 1/2 to 1/1;
// consumer cards: 1/32 to 1/64).
inline constexpr double first_class_fp64 = 1.0 / 8.0;

// Noise: confidence of the interval around each median, and the sample count a row needs for it.
inline constexpr double noise_confidence = 0.95;
inline constexpr int noise_min_samples = 6;

// A one-call driver slower than this many times its two halves is named.
inline constexpr double driver_vs_halves = 1.25;
// A solve or factorization may report at most this much above the GEMM of its precision (the
// flop counts of LAWN 41 are not exact operation counts).
inline constexpr double gemm_tolerance = 1.05;
// A transfer-inclusive row may be this much faster than its resident twin before it is named.
inline constexpr double transfer_vs_resident = 1.03;
// A row whose noise (95% half-width of its median) exceeds this is named noisy.
inline constexpr double noisy_row_pct = 5.0;
// The SM clock may drop this much during a row before the row counts as slowed.
inline constexpr double max_clock_drop = 0.10;
// A row that spent at least this share of its timed loop capped (power, thermal) counts as throttled.
inline constexpr double capped_share = 0.05;
// NVML's capped-time (violation) counters move in steps: NVML documents only that the difference
// of two readings at their two reference times is the time capped, not how often they move. On
// the H200 (results/h200/sweep.json, complex.json) rows capped throughout read 6 to 55 ms more
// capped time than their loop lasted, and a 17 us window read 6.9 ms (big-d.json; 40.7 ms in a
// later run): a step of tens of ms. A loop shorter than this is not judged, and a longer one
// counts as capped only beyond one step (audit_gpu.cpp).
inline constexpr double nvml_counter_step_ms = 100;
// A GEMM below this fraction of the machine's theoretical peak is named.
inline constexpr double peak_fraction = 0.35;
// Other processes using at least this many cores during a row's loop load the machine.
inline constexpr double other_busy_cores = 0.5;
// Steal above this percentage of the loop's CPU time counts as a loaded host.
inline constexpr double steal_pct = 5.0;
// A load average at the run's start of at least this much per available core (and at least 1)
// counts as a loaded host.
inline constexpr double load_avg_per_core = 0.5;

// A cliff (issue 34): neighbouring sizes of one row whose time per flop differs by more than this
// factor (and by more than their noise allows). A smooth row's rate moves far less between two
// sizes a bisection has brought together; OpenBLAS 0.3.26's dgesv moves 7.7x from n = 9999 to 10000.
inline constexpr double cliff_factor = 1.5;

// A solve or factorization may run this much faster than the floor its probes give (ceilings.cpp)
// before the bound_beaten rule names it, beyond the noise of the row and of its probes: the
// probes' rates are interpolated between the sizes they ran at, and LAWN 41's counts are not
// the libraries' exact operations. On the H200 run of 2026-12-02 the lowest factorization row sat
// at 1.05x its floor.
inline constexpr double bound_tolerance = 1.10;
// The bound (ceilings.cpp) holds from this many blocks of nb: below, the model counts calls the
// library does not make (OpenBLAS recurses on a small matrix instead), and a row there has no
// bound. On the 2-core machine at nb = 256, loaded, dgetrf and dpotrf at n = 512 ran at 0.68x and
// 0.78x of the serial sum; quiet, rows at 512 and 768 sat at 1.76-2.72x of the floor; from 4
// blocks the updates are 40% of the serial sum or more (docs/ceilings.md has the figures).
inline constexpr int bound_min_blocks = 4;

// The regression gate (compare.cpp). A row's change between two runs is judged against the
// interval of that change at gate_confidence, from the variance between runs (rounds,
// processes, back-to-back pairs, the tracker's history): slower or faster beyond the larger of
// that interval's half-width and this floor; the same when the half-width is within the floor;
// undecided otherwise (the half-width is then the smallest change these inputs could call slower).
inline constexpr double gate_floor_pct = 3.0;
// The confidence of the interval of a row's change. On the project's 2-core machine
// back-to-back pairs' ratios scattered by 11% (median over rows; 22% at the 90th percentile);
// for 16 pairs of such scatter (Student t, 4 degrees of freedom) 95% calls 1% of identical
// rows slower, 99% 0.2%, and both still catch 10% on a row that scatters by 5%.
inline constexpr double gate_confidence = 0.99;
// A side needs this many processes (or the tracker's history of the row) for its change to be
// called: the rounds of one process do not show what another process adds (A/A here: 5
// repetitions in one process a side called 2 of 6 comparisons slower, on rows whose processes
// take one of two modes). 1 would trust the rounds of one process, once they are shown to
// cover a new process (tools/aa-coverage) on the machines the gate runs on.
inline constexpr int min_processes = 2;
// The tracker's record of a row on a testbed (compare --history) counts from this many runs:
// fewer say too little about the spread from run to run.
inline constexpr int history_min_runs = 5;
// tools/track analyze's minimum detectable step: one seen in this many runs after it (its
// change points need at least that many on each side: --min-runs).
inline constexpr int step_runs = 3;
// tools/track analyze: the significance level of a change point (E-divisive's permutation test
// on a row's log times, --alpha); a row "moved recently" when its last change point is within
// this many runs of the end (--recent).
inline constexpr double change_point_alpha = 0.001;
inline constexpr int recent_runs = 10;
// tools/track bisect and confirm: a row moved at a step when compare calls it slower by at
// least this share, in log, of the change point's change (0.5: x3.58 -> x1.89, +20% -> +9.5%).
inline constexpr double moved_share_log = 0.5;

// A row's loop during which some task waited for a CPU this share of the time or more (the
// kernel's pressure stall information) met contention: its own threads or other work had fewer
// cores than they wanted, whoever the CPU time went to.
inline constexpr double cpu_wait_pct = 10.0;
// Rows held against each other are judged per core used when one had at least this many times
// the cores (CPU time over the loop's wall time) of the other.
inline constexpr double cores_ratio = 1.25;

// Every threshold above, by the name the sidecars' "thresholds" object gives it (render.cpp
// writes this table; test_thresholds.cpp fails on a threshold missing from it).
struct named_limit {
  const char* name;
  double value;
};
inline constexpr named_limit all[] = {
    {"resid", resid},
    {"fwd_err_slack", fwd_err_slack},
    {"fwd_err_floor", fwd_err_floor},
    {"first_class_fp64", first_class_fp64},
    {"noise_confidence", noise_confidence},
    {"noise_min_samples", noise_min_samples},
    {"driver_vs_halves", driver_vs_halves},
    {"gemm_tolerance", gemm_tolerance},
    {"transfer_vs_resident", transfer_vs_resident},
    {"noisy_row_pct", noisy_row_pct},
    {"max_clock_drop", max_clock_drop},
    {"capped_share", capped_share},
    {"nvml_counter_step_ms", nvml_counter_step_ms},
    {"peak_fraction", peak_fraction},
    {"other_busy_cores", other_busy_cores},
    {"steal_pct", steal_pct},
    {"load_avg_per_core", load_avg_per_core},
    {"cliff_factor", cliff_factor},
    {"bound_tolerance", bound_tolerance},
    {"bound_min_blocks", bound_min_blocks},
    {"gate_floor_pct", gate_floor_pct},
    {"gate_confidence", gate_confidence},
    {"min_processes", min_processes},
    {"history_min_runs", history_min_runs},
    {"step_runs", step_runs},
    {"change_point_alpha", change_point_alpha},
    {"recent_runs", recent_runs},
    {"moved_share_log", moved_share_log},
    {"cpu_wait_pct", cpu_wait_pct},
    {"cores_ratio", cores_ratio},
};

}  // namespace solvebench::bench::limits
