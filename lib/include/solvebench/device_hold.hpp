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

// The hold before each timed GPU call unless SOLVE_BENCH_GPU_HOLD_US says otherwise: nvbench's
// practice (its blocking kernel), so that the host's launch stays out of the time. On the H200,
// GPU/dgemm/n:1024 ran 0.0512-0.0570 ms by process without it (two modes, 11% apart) and
// 0.0430 ms (0.5% apart) with 50 us (results/h200/spread); 50 us covers one library launch.
inline constexpr unsigned default_hold_microseconds = 50;
// SOLVE_BENCH_GPU_HOLD_US from the environment, read once (0: no hold, the timing of earlier
// versions); recorded in the run's context as gpu_hold_us.
unsigned gpu_hold_microseconds();
// Its value: unset or "" is the default; throws invalid_argument for anything but whole
// microseconds up to 10000.
unsigned parse_hold_microseconds(const char* text);

}  // namespace solvebench::cuda
