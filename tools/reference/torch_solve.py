#!/usr/bin/env python3
"""torch on the same GPU, for comparison with solve_bench's GPU rows (fp64, A on the device).

usage: torch_solve.py [--sizes 10000,16384] [--repetitions 10]

torch.linalg.solve (LU, what the forum user called) on a uniform [0,1) matrix, and
torch.linalg.cholesky + torch.cholesky_solve on solve_bench's spd kind (symmetric, diagonal n,
off-diagonal uniform [0,1)). Timed with CUDA events after two warm-up calls; the clone that
keeps A intact is outside the timed region for Cholesky (cholesky does not overwrite its input
in torch, linalg.solve neither). Prints one JSON object per (op, n) with the median.
"""
import argparse
import json
import statistics

import torch


def timed(fn, reps):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        out = fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times), min(times), max(times), out


def hpl_resid(a, x, b):
    n = a.shape[0]
    r = (b - a @ x).abs().max().item()
    eps = torch.finfo(a.dtype).eps / 2
    return r / (eps * (a.abs().sum(dim=1).max().item() * x.abs().max().item() + b.abs().max().item()) * n)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="10000,16384")
    p.add_argument("--repetitions", type=int, default=10)
    args = p.parse_args()
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(20261130)
    for n in (int(s) for s in args.sizes.split(",")):
        a = torch.rand(n, n, dtype=torch.float64, device=dev, generator=g)
        b = torch.rand(n, 1, dtype=torch.float64, device=dev, generator=g)
        med, lo, hi, x = timed(lambda a=a: torch.linalg.solve(a, b), args.repetitions)
        print(json.dumps({"op": "torch.linalg.solve", "n": n, "median_ms": med, "min_ms": lo, "max_ms": hi,
                          "resid": hpl_resid(a, x, b), "torch": torch.__version__}), flush=True)
        s = torch.triu(a, diagonal=1)
        s = s + s.T + n * torch.eye(n, dtype=torch.float64, device=dev)
        del a
        med, lo, hi, x = timed(lambda s=s: torch.cholesky_solve(b, torch.linalg.cholesky(s)), args.repetitions)
        print(json.dumps({"op": "torch cholesky+cholesky_solve", "n": n, "median_ms": med, "min_ms": lo,
                          "max_ms": hi, "resid": hpl_resid(s, x, b), "torch": torch.__version__}), flush=True)
        del s
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
