"""tools/track's modules: the run store (store), change points (edivisive), the analysis of a
store's series (analysis) and the static dashboard (dashboard). Only store is standard library.

The analysis's defaults, here so that the command line (standard library) shares them:"""
ALPHA = 0.001                 # significance level of a change point (its permutation test)
MIN_RUNS = 3                  # the fewest runs a side of a change point may have
DEFAULT_MIN_CHANGE_PCT = 2.0  # the smallest change reported for rows whose runs carry no noise_pct
RECENT_RUNS = 10              # a row "moved recently" when its last change point is this near the end
