"""E-divisive means change points with a permutation test (Matteson & James 2014, "A
Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data"; the method of
MongoDB's ICPE 2020 paper and of Apache Otava/Hunter), written for series of a few dozen runs.

For a segment Z split at tau into X = Z[:tau] (n points) and Y = Z[tau:] (m points),

    q(tau) = 2/(n+m) sum|X_i - Y_j| - 2m/((n+m)(n-1)) sum_{i<k}|X_i - X_k|
                                     - 2n/((n+m)(m-1)) sum_{j<k}|Y_j - Y_k|

(the energy distance between the two sides, scaled by nm/(n+m)). As in Matteson & James, Y
ends at kappa, searched with tau, so that a change that ends (a slowdown fixed a few runs later)
stands out against the runs before it instead of being averaged with the runs after it. The
split with the largest q over every current segment is the candidate; it is kept when a
permutation test says so: the values are shuffled within each segment, the largest q is found
again, and p is the share of shuffles whose q reaches the candidate's. Splitting goes on until
a candidate fails.

q(tau, kappa) for every pair of a batch of shuffles comes from the 2-D prefix sums of one
distance matrix per shuffle, O(L^2) per shuffle; the shuffles stop early once `exceed_stop` of
them have reached the candidate (then p is large, Besag & Clifford 1991).
"""
import numpy as np


def qhat(x: np.ndarray, min_size: int) -> np.ndarray:
    """q(tau, kappa) for each row of x (shape (B, L)), X = x[:tau], Y = x[tau:kappa], for
    tau, kappa = 0..L: shape (B, L+1, L+1), -inf where a side would have fewer than min_size
    points."""
    batch, length = x.shape
    d = np.abs(x[:, :, None] - x[:, None, :])
    p = np.zeros((batch, length + 1, length + 1))  # p[i, j]: sum of d[:i, :j]
    p[:, 1:, 1:] = d.cumsum(axis=1).cumsum(axis=2)
    t = np.arange(length + 1)
    tau, kappa = t[:, None], t[None, :]
    n = np.broadcast_to(tau, (length + 1, length + 1)).astype(float)
    m = (kappa - tau).astype(float)
    valid = (n >= min_size) & (m >= min_size)
    ti, ki = np.nonzero(valid)
    diag = p[:, t, t]                      # sum of d over x[:i] x x[:i]
    cross = p[:, ti, ki] - diag[:, ti]     # X against Y
    within_x = diag[:, ti] / 2
    within_y = (diag[:, ki] - 2 * p[:, ti, ki] + diag[:, ti]) / 2
    nv, mv = n[ti, ki], m[ti, ki]
    q = np.full((batch, length + 1, length + 1), -np.inf)
    q[:, ti, ki] = (2.0 * cross / (nv + mv)
                    - 2.0 * mv / ((nv + mv) * (nv - 1)) * within_x
                    - 2.0 * nv / ((nv + mv) * (mv - 1)) * within_y)
    return q


def _segments(length: int, cps, min_size: int):
    bounds = [0] + sorted(cps) + [length]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b - a >= 2 * min_size]


def _candidate(x, segments, min_size):
    best_q, best_tau = -np.inf, None
    for a, b in segments:
        q = qhat(x[None, a:b], min_size)[0]
        tau, kappa = np.unravel_index(int(np.argmax(q)), q.shape)
        if q[tau, kappa] > best_q:
            best_q, best_tau = float(q[tau, kappa]), a + int(tau)
    return best_q, best_tau


def permutation_p(x, segments, q_obs, min_size, rng, permutations=999, batch=100, exceed_stop=20, alpha=None):
    """p of the candidate q_obs: shuffles within each segment whose best q reaches it. Given
    alpha, the first 1/alpha - 1 shuffles decide when none reaches q_obs (p = alpha); else the
    shuffles go on to `permutations`, so that a shuffle or two reaching it by chance does not
    decide: with 999 shuffles at alpha 0.001, one such shuffle hid a 2x step in 16 runs (one
    seed in ten)."""
    first = int(round(1 / alpha)) - 1 if alpha else permutations
    exceed = done = 0
    longest = max(b - a for a, b in segments)
    batch = max(1, min(batch, 4_000_000 // (longest + 1) ** 2))  # memory: a (B, L+1, L+1) array
    while done < permutations:
        size = min(batch, (first if done < first else permutations) - done)
        q_max = np.full(size, -np.inf)
        for a, b in segments:
            shuffled = rng.permuted(np.tile(x[a:b], (size, 1)), axis=1)
            q_max = np.maximum(q_max, qhat(shuffled, min_size).reshape(size, -1).max(axis=1))
        # a relative tolerance, so that ties (a constant series) count as reaching it
        exceed += int(np.count_nonzero(q_max >= q_obs - 1e-12 * abs(q_obs)))
        done += size
        if exceed >= exceed_stop or (done == first and exceed == 0):
            break
    return (exceed + 1) / (done + 1)


def change_points(x, alpha=0.001, min_size=3, rng=None, permutations=None):
    """[(index, p)] of the change points of series x, sorted by index: x[index] is the first
    value after the change. min_size: the fewest points a side may have. permutations: at most
    5/alpha - 1 by default (permutation_p says when they stop)."""
    if permutations is None:
        permutations = int(round(5 / alpha)) - 1
    x = np.asarray(x, dtype=float)
    if min_size < 2:
        raise ValueError("min_size must be at least 2")
    rng = rng if rng is not None else np.random.default_rng(0)
    found = {}
    while True:
        segments = _segments(len(x), found, min_size)
        if not segments:
            break
        q_obs, tau = _candidate(x, segments, min_size)
        if tau is None or not np.isfinite(q_obs) or q_obs <= 0:
            break
        p = permutation_p(x, segments, q_obs, min_size, rng, permutations, alpha=alpha)
        if p > alpha:
            break
        found[tau] = p
    return sorted(found.items())
