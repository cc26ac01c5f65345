// When a host loop of the library's own (generation, residuals) is worth a team of threads.
#pragma once

#include <cstdint>

namespace solvebench {

// Below this many entries a loop runs on its own thread: forking a team costs more than the
// work, and on a loaded machine a team waits for a descheduled thread (libgomp's active wait):
// under load 5-15 on 2 cores, generating and checking CPU/dgemm/n:32 took 87 and 104 ms
// with a team, 0.08 and 0.02 ms on one thread (results/cpu-dev/rounds.md).
inline constexpr std::int64_t parallel_min_entries = 1 << 18;
inline bool worth_threads(std::int64_t entries) { return entries >= parallel_min_entries; }

}  // namespace solvebench
