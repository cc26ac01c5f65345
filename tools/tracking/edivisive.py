"""E-divisive means change points with a permutation test (Matteson & James 2014, "A
Nonparametric Approach for Multiple Change Point Analysis of Multivariate Data"; the method of
MongoDB's ICPE 2020 paper and of Apache Otava/Hunter), written for series of a few dozen runs.

For a segment Z split at tau into X = Z[:tau] (n points) and Y = Z[tau:] (m points),

    q(tau) = 2/(n+m) sum|X_i - Y_j| - 2m/((n+m)(n-1)) sum_{i<k}|X_i - X_k|
                                     - 2n/((n+m)(m-1)) sum_{j<k}|Y_j - Y_k|

(the energy distance between the two sides, scaled by nm/(n+m)). The split with the largest
q over every current segment is the candidate; it is kept when a permutation test says so:
the values are shuffled within each segment, the largest q is found again, and p is the share
of shuffles whose q reaches the candidate's. Splitting goes on until a candidate fails.
Unlike Matteson & James, the second side always runs to the segment's end (no search over its
end kappa), which is O(L^2); a second change inside a side is found when that side is split.

q(tau) for every tau of a batch of shuffles comes from prefix sums of one distance matrix per
shuffle, so a test of 100 shuffles of 60 runs is one numpy pass; the shuffles stop early once
`exceed_stop` of them have reached the candidate (then p is large, Besag & Clifford 1991).
"""
import numpy as np


def qhat(x: np.ndarray, min_size: int) -> np.ndarray:
    """q(tau) for each row of x (shape (B, L)) and tau = 0..L; -inf where a side would have
    fewer than min_size points."""
    batch, length = x.shape
    d = np.abs(x[:, :, None] - x[:, None, :])
    upper = np.triu(d, 1)
    left = np.zeros((batch, length + 1))    # left[t]: sum over pairs inside x[:t]
    left[:, 1:] = np.cumsum(upper.sum(axis=1), axis=1)
    right = np.zeros((batch, length + 1))   # right[t]: sum over pairs inside x[t:]
    right[:, :length] = np.cumsum(upper.sum(axis=2)[:, ::-1], axis=1)[:, ::-1]
    cross = left[:, length:] - left - right
    t = np.arange(length + 1, dtype=float)
    n, m = t, length - t
    valid = (t >= min_size) & (m >= min_size)
    q = np.full((batch, length + 1), -np.inf)
    nv, mv = n[valid], m[valid]
    q[:, valid] = (2.0 * cross[:, valid] / length
                   - 2.0 * mv / (length * (nv - 1)) * left[:, valid]
                   - 2.0 * nv / (length * (mv - 1)) * right[:, valid])
    return q


def _segments(length: int, cps, min_size: int):
    bounds = [0] + sorted(cps) + [length]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b - a >= 2 * min_size]


def _candidate(x, segments, min_size):
    best_q, best_tau = -np.inf, None
    for a, b in segments:
        q = qhat(x[None, a:b], min_size)[0]
        tau = int(np.argmax(q))
        if q[tau] > best_q:
            best_q, best_tau = float(q[tau]), a + tau
    return best_q, best_tau


def permutation_p(x, segments, q_obs, min_size, rng, permutations=999, batch=100, exceed_stop=20):
    """p of the candidate q_obs: shuffles within each segment whose best q reaches it."""
    exceed = done = 0
    while done < permutations:
        size = min(batch, permutations - done)
        q_max = np.full(size, -np.inf)
        for a, b in segments:
            shuffled = rng.permuted(np.tile(x[a:b], (size, 1)), axis=1)
            q_max = np.maximum(q_max, qhat(shuffled, min_size).max(axis=1))
        # a relative tolerance, so that ties (a constant series) count as reaching it
        exceed += int(np.count_nonzero(q_max >= q_obs - 1e-12 * abs(q_obs)))
        done += size
        if exceed >= exceed_stop:
            break
    return (exceed + 1) / (done + 1)


def change_points(x, alpha=0.001, min_size=3, rng=None, permutations=999):
    """[(index, p)] of the change points of series x, sorted by index: x[index] is the first
    value after the change. min_size: the fewest points a side may have."""
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
        p = permutation_p(x, segments, q_obs, min_size, rng, permutations)
        if p > alpha:
            break
        found[tau] = p
    return sorted(found.items())
