// A GPU-side hold before a timed region (issue 30, item 2): one thread that keeps the stream
// busy for a fixed time, so that the host enqueues the timed work while the GPU is still busy and
// the region's start event is followed at once by its first kernel. Without it, a region that
// starts on an idle GPU also times the host's submission of that kernel (the library's host-side
// set-up and the launch), which varies with the host thread's core and load.
#pragma once

#include <cuda_runtime_api.h>

namespace solvebench::cuda {

// Enqueues on `s` a single-thread kernel that returns `microseconds` after it starts (the GPU's
// global timer); nothing for 0. It never waits for the host, so it cannot deadlock a library call
// that synchronizes inside: at worst the GPU idles after it, as without it.
void hold_stream(cudaStream_t s, unsigned microseconds);

// SOLVE_BENCH_GPU_HOLD_US from the environment, read once: the hold the GPU rows put before each
// timed call (an experiment switch, default 0: no hold).
unsigned gpu_hold_microseconds();
// Its value: unset or "" is 0; throws invalid_argument for anything but whole microseconds up
// to 10000.
unsigned parse_hold_microseconds(const char* text);

}  // namespace solvebench::cuda
