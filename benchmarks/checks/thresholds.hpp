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

// The regression gate: a row is slower when its median moved by more than its measured noise
// allows (both runs' intervals apart) and by at least this much.
inline constexpr double gate_floor_pct = 3.0;
// The confidence of the interval a row judged by back-to-back pairs is held to (one interval,
// where an unpaired row is held to the sum of two 95% half-widths). On the project's 2-core
// machine the pairs' ratios scattered by 11% (median over rows; 22% at the 90th percentile);
// for 16 pairs of such scatter (Student t, 4 degrees of freedom) 95% calls 1% of identical
// rows slower, 99% 0.2%, and both still catch 10% on a row that scatters by 5%.
inline constexpr double gate_confidence = 0.99;

}  // namespace solvebench::bench::limits
