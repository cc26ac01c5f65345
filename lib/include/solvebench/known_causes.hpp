// Known defects of CPU libraries that change what a benchmark measures, as data: the vendor
// (as its blas_vendor fact names it), the versions, the sizes, and the sentence that explains
// them. The audit's rules ask with a row's facts and quote the answer; the knowledge of which
// library misbehaves where lives here, not in the rules.
#pragma once

#include <string>

namespace solvebench::cpu {

// Why a library's one-call LU driver (?gesv) runs slower than its two halves (?getrf + ?getrs)
// on a system of order n with nrhs right-hand sides, or "" when no known cause matches.
// `precision` is the data's letter (s, d, c, z). The text depends on the vendor and version
// only, not on the size, so the findings it explains can share it word for word.
std::string known_driver_cause(const std::string& vendor, const std::string& version, char precision, long long n,
                               long long nrhs);

// Why a CPU batched row's loop, each of its threads calling the library for one system at a
// time, kept fewer cores busy than it has threads, or "" when no known cause matches. `variant`
// and `config` are the blas_variant and blas_config facts (how the library threads).
std::string known_batch_cause(const std::string& vendor, const std::string& version, const std::string& variant,
                              const std::string& config);

}  // namespace solvebench::cpu
