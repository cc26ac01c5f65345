// solve_bench: the CPU rows, and the GPU rows where this build and this machine have a GPU.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <iostream>
#include <utility>

#include "core/driver.hpp"
#include "core/environment.hpp"
#include "core/escaped.hpp"
#include "core/row.hpp"
#include "core/session.hpp"
#include "cpu/cpu_rows.hpp"
#include "cpu_library/library_rows.hpp"
#include "cuda/gpu_rows.hpp"
#include "mgpu/mgpu_rows.hpp"

namespace bench = solvebench::bench;

int main(int argc, char** argv) {
  // Variables a library reads once, when it loads: set, then this program again with them.
  const bool quieted = bench::quiet_idle_openmp();
  bench::cpu_library::restart_for_namespaces(argv);
  if (quieted) execv("/proc/self/exe", argv);  // returns only where it failed: the run goes on as it was
  bench::common_options common;
  // What one process cannot see (issue 30): 3 processes of one round each, so that the +- holds a
  // re-run in another process at the cost of today's sweep (docs/reading-the-output.md: what each
  // design covered, and cost, on both machines). Their starts spread over 120 s: back to back,
  // a short run's processes all fall in one of a VM's speed states, and another run's medians
  // landed inside its +- in 75-77% of pairs on the 2-core VM; spread over 60 s 91%, 120 s 99%
  // (results/cpu-dev/coverage/README.md). A sweep whose processes take a minute waits nothing.
  common.processes = 3;
  common.rounds = 1;
  common.span_s = 120;
  bench::gpu_options gpu;
  bench::mixed_options mixed;
  bench::batched_options batched;
  bench::mgpu_options mgpu;
  bench::ceilings_options ceilings;
  bench::cpu_library::options libraries;
  bench::cpu_library::registration library_rows;
  bench::gpu::registration gpu_rows;
  bench::mgpu::registration mgpu_rows;

  bench::program p;
  p.name = "solve_bench";
  p.about =
      "usage: solve_bench [solve_bench flags] [Google Benchmark flags]\n\n"
      "Dense Ax = b on the CPU (LAPACKE over the linked BLAS) and the GPU (cuSOLVER), rows named\n"
      "<backend>/<op>/n:N[/nrhs:K][/axis:value...], e.g. CPU/dgesv/n:4096/nrhs:1/manual_time.\n";
  p.common = &common;
  for (auto group :
       {bench::common_flags(common, "of the dense solve rows, CPU and GPU; without --sizes the GPU rows add " +
                                        bench::join(gpu.extra_sizes) +
                                        "; batched rows: --batch_n, mixed-precision rows: their own defaults"),
        bench::cpu_library::flags(libraries), bench::gpu_flags(gpu), bench::mixed_flags(mixed),
        bench::batched_flags(batched), bench::mgpu_flags(mgpu), bench::ceilings_flags(ceilings)})
    p.flags.insert(p.flags.end(), group.begin(), group.end());
  // Called again by a size scan for each pass's sizes (core/scan.hpp): the notes are said once.
  bool registered_once = false;
  p.register_rows = [&](bench::session& run) {
    bench::cpu::register_rows(run, common, mixed, batched, ceilings);
    library_rows = bench::cpu_library::register_rows(run, common, libraries);
    for (const auto& note : library_rows.notes) std::cerr << "solve_bench: " << note << "\n";
    gpu_rows = bench::gpu::register_rows(run, common, gpu, mixed, batched, ceilings);
    mgpu_rows = bench::mgpu::register_rows(run, common, mgpu);
    if (std::exchange(registered_once, true)) return;
    if (!gpu_rows.registered) std::cerr << "solve_bench: GPU rows not registered: " << gpu_rows.reason << "\n";
    for (const auto& note : mgpu_rows.notes) std::cerr << "solve_bench: " << note << "\n";
    for (const auto& note : run.largest_notes()) std::cerr << "solve_bench: --sizes=max: " << note << "\n";
  };
  p.add_context = [&](const bench::session& run) {
    benchmark::AddCustomContext("cpu_sizes", common.sizes_max ? "max" : bench::join(common.sizes_or_default()));
    if (common.sizes_max) {
      std::string notes;
      for (const auto& note : run.largest_notes()) notes += (notes.empty() ? "" : "; ") + note;
      benchmark::AddCustomContext("max_sizes", notes);
    }
    benchmark::AddCustomContext("gpu_rows", gpu_rows.registered ? "registered" : "absent: " + gpu_rows.reason);
    if (gpu_rows.registered) benchmark::AddCustomContext("gpu_sizes", bench::join(gpu_rows.sizes));
    for (const auto& [key, value] : library_rows.context) benchmark::AddCustomContext(key, value);
    for (const auto& [key, value] : gpu_rows.context) benchmark::AddCustomContext(key, value);
    for (const auto& [key, value] : mgpu_rows.context) benchmark::AddCustomContext(key, value);
  };
  return bench::run_guarded(p.name, [&] { return bench::run_program(p, argc, argv); });
}
