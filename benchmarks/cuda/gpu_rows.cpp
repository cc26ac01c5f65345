// The GPU rows: dense solves, their halves and GEMM with A and b on the device; gesv and
// posv paying the host transfers; mixed precision beside plain dgesv on the same matrix;
// batches of small systems.
#include "cuda/gpu_rows.hpp"

#include <cstdio>

#include "core/sweep.hpp"
#include "cuda/gpu_adapters.hpp"
#include "cuda/gpu_probes.hpp"
#include "solvebench/device_code.hpp"
#include "solvebench/nvml.hpp"

namespace solvebench::bench::gpu {
namespace {

template <class T>
using lu_rows = solve_adapter<T, cuda::lu_solver<T>>;
template <class T>
using cholesky_rows = solve_adapter<T, cuda::cholesky_solver<T>>;
template <class T>
using lu_transfer = transfer_adapter<T, cuda::lu_solver<T>>;
template <class T>
using cholesky_transfer = transfer_adapter<T, cuda::cholesky_solver<T>>;

constexpr backend_desc gpu_resident{
    "GPU", row_role::candidate, row_device::gpu, row_placement::resident, row_path::halves, "cusolver", "cublas"};
constexpr backend_desc gpu_pinned{"GPU-pinned",          row_role::candidate, row_device::gpu,
                                  row_placement::pinned, row_path::halves,    "cusolver"};
constexpr backend_desc gpu_pageable{"GPU-pageable",          row_role::candidate, row_device::gpu,
                                    row_placement::pageable, row_path::halves,    "cusolver"};
constexpr backend_desc gpu_mixed{
    "GPU",     row_role::candidate, row_device::gpu, row_placement::resident, row_path::driver,
    "cusolver"};  // cusolverDnIRSXgesv: one call
constexpr backend_desc gpu_batched{
    "GPU", row_role::candidate, row_device::gpu, row_placement::resident, row_path::batched, "cublas"};
constexpr backend_desc gpu_batched_cholesky{
    "GPU", row_role::candidate, row_device::gpu, row_placement::resident, row_path::batched, "cusolver"};
constexpr backend_desc gpu_loop{"GPU-loop",     row_role::candidate, row_device::gpu, row_placement::resident,
                                row_path::loop, "cusolver"};

template <class Adapter, timed Kind, class... Extra>
void add(session& run, backend& gpu, const row_id& id, const operation& op, std::optional<matrix_kind> kind,
         std::uint64_t seed, Extra... extra) {
  const problem p = make_problem(id, op, kind, seed);
  run.register_row(
      id, [p, &gpu, extra...] { return std::make_unique<solve_fixture<Adapter, Kind>>(p, gpu.context(), extra...); },
      &gpu);
}

// --sizes=max: what the device holds now, less a margin for the CUDA context's own allocations.
std::uint64_t usable_device_bytes() {
  const auto free = cuda::memory_info().free_bytes;
  const std::uint64_t margin = std::max<std::uint64_t>(512ULL << 20, free / 100);
  return free > margin ? free - margin : 0;
}

// The largest n a GPU row of this backend, operation and precision holds in device memory (and
// for transfer rows in host memory), from the adapters' own byte counts.
template <class T>
std::optional<std::int64_t> largest_gpu_n(session& run, cuda::context& ctx, const backend_desc& b, const operation& op,
                                          const common_options& opt, cusolver_api api) {
  const std::uint64_t usable = usable_device_bytes();
  const std::uint64_t host = host_memory_available_bytes();
  const auto bytes = [&](std::int64_t n) -> std::uint64_t {
    // A alone past the device: no need to ask cuSOLVER (which refuses orders it cannot index).
    if (static_cast<double>(n) * static_cast<double>(n) * sizeof(T) > static_cast<double>(usable)) return UINT64_MAX;
    const problem p = make_problem(make_row_id<T>(b, op, n, opt.nrhs.front()), op, opt.kind, opt.seed);
    if (op.multiplies) return gemm_adapter<T>::device_bytes(p);
    const bool lu = op.family == factorization::lu;
    if (b.placement == row_placement::resident)
      return lu ? lu_rows<T>::device_bytes(p, ctx, api) : cholesky_rows<T>::device_bytes(p, ctx, api);
    if (host != 0 && lu_transfer<T>::host_bytes(p) > host) return UINT64_MAX;
    return lu ? lu_transfer<T>::device_bytes(p, ctx, api) : cholesky_transfer<T>::device_bytes(p, ctx, api);
  };
  const std::int64_t limit = api == cusolver_api::legacy32 ? 46340 : (1LL << 22);
  const auto n = largest_fitting_n(bytes, usable, limit);  // an order the solver's query refuses does not fit
  if (n) run.note_largest(std::string(b.name) + "/" + precision<T>::letter + op.name, *n, bytes(*n), usable);
  return n;
}

// The largest n of the mixed-precision rows: every factorization's IRS limit and memory, and
// the dgesv row beside them, at one n so that they compare.
std::optional<std::int64_t> largest_mixed_n(session& run, cuda::context& ctx, const common_options& opt,
                                            const mixed_options& mixed, cusolver_api api) {
  const std::uint64_t usable = usable_device_bytes();
  std::optional<std::int64_t> n = largest_gpu_n<double>(run, ctx, gpu_resident, ops::gesv, opt, api);
  for (auto f : mixed_factors) {
    cuda::irs_options irs;
    irs.lowest = f;
    irs.max_iters = static_cast<int>(mixed.irs_max_iters);
    const auto bytes = [&](std::int64_t m) -> std::uint64_t {
      if (static_cast<double>(m) * static_cast<double>(m) * sizeof(double) > static_cast<double>(usable))
        return UINT64_MAX;
      const problem p =
          make_problem(make_row_id<double>(gpu_mixed, ops::gesv, m, 1), ops::gesv, std::nullopt, opt.seed);
      return irs_adapter::device_bytes(p, ctx, irs);
    };
    const std::int64_t limit = cuda::irs_largest_n(irs).value_or(1LL << 22);
    const auto m = largest_fitting_n(bytes, usable, limit);
    if (!m) return std::nullopt;
    n = n ? std::min(*n, *m) : *m;
  }
  if (n) {
    cuda::irs_options irs;
    const auto known = cuda::irs_largest_n(irs);
    run.add_largest_note(
        "GPU mixed precision (every factorization, and dgesv beside them) at n = " + std::to_string(*n) +
        (known ? ": cuSOLVER " + cuda::cusolver_version_text() + "'s IRS limit is n = " + std::to_string(*known) +
                     " (measured), and memory"
               : ": memory (no IRS limit is known for cuSOLVER " + cuda::cusolver_version_text() + ")"));
  }
  return n;
}

// --ceilings=on: the pieces of blocked LU and Cholesky at each dense size, and the nb x nb block once.
constexpr backend_desc gpu_probe{"GPU",           row_role::candidate, row_device::gpu, row_placement::resident,
                                 row_path::probe, "cusolver"};

template <class T>
void register_probes(session& run, backend& gpu, const std::vector<std::int64_t>& sizes, std::int64_t nb,
                     cusolver_api api, std::uint64_t seed) {
  const auto probe_row = [&](const operation& op, std::int64_t n, const char* library) {
    row_id id = make_row_id<T>(gpu_probe, op, n);
    id.library = library;
    return add_axis(id, "nb", nb);
  };
  for (const auto n : sizes) {
    if (n < nb) continue;
    add<update_probe<T>, timed::probe>(run, gpu, probe_row(ops::gemm_update, n, "cublas"), ops::gemm_update,
                                       std::nullopt, seed);
    add<panel_probe<T>, timed::probe>(run, gpu, probe_row(ops::getrf_panel, n, "cusolver"), ops::getrf_panel,
                                      std::nullopt, seed);
    add<trsm_probe<T>, timed::probe>(run, gpu, probe_row(ops::trsm_panel, n, "cublas"), ops::trsm_panel, std::nullopt,
                                     seed);
  }
  add<block_probe<T>, timed::probe>(run, gpu, probe_row(ops::potrf_block, nb, "cusolver"), ops::potrf_block,
                                    std::nullopt, seed, api);
}

// The naive per-system loop is slow by design: a few sizes are enough to show it.
bool naive_loop_size(std::int64_t n) { return n == 8 || n == 32 || n == 128; }

}  // namespace

registration register_rows(session& run, const common_options& opt, const gpu_options& gpu, const mixed_options& mixed,
                           const batched_options& batched, const ceilings_options& ceilings) {
  registration out;
  backend* hooks = nullptr;
  std::string why;
  if (cuda::device_count(&why) == 0) {
    out.reason = why;
    return out;
  }
  try {
    SB_CUDA_CHECK(cudaSetDevice(0));
    // A build without code for this GPU would fail every GPU row: say so once, run the CPU rows.
    out.reason = cuda::why_project_kernels_cannot_run(0);
    if (!out.reason.empty()) return out;
    out.context = cuda::device_facts(0);
    out.context.emplace_back("cusolver_api", to_string(gpu.api));
    out.context.emplace_back("gpu_hold_us", std::to_string(cuda::gpu_hold_microseconds()));
    // The bus's ceiling, which the audit holds the transfer rows against ("" when unknown).
    const nvml::session probe;
    const auto bus = probe.available() ? nvml::pcie_max_GBps(probe, 0) : std::nullopt;
    out.context.emplace_back("gpu_pcie_max_GBps", bus ? std::to_string(*bus) : "");
    hooks = &run.own(std::make_unique<backend>());
    hooks->context();  // handles made once, before any row is timed
  } catch (const std::exception& e) {
    out.reason = std::string("the GPU could not be initialised: ") + e.what();
    return out;
  }
  out.sizes = opt.sizes;
  if (out.sizes.empty() && !opt.sizes_max) {
    out.sizes = opt.default_sizes;
    out.sizes.insert(out.sizes.end(), gpu.extra_sizes.begin(), gpu.extra_sizes.end());
  }

  sweep_space space{opt.precisions, out.sizes, opt.nrhs, opt.kind, opt.seed, nullptr};
  if (opt.sizes_max)
    space.largest = [&](const backend_desc& b, const operation& op, char letter) {
      std::optional<std::int64_t> n;
      for_each_precision(std::vector<std::string>{std::string(1, letter)}, [&](auto tag) {
        n = largest_gpu_n<typename decltype(tag)::type>(run, hooks->context(), b, op, opt, gpu.api);
      });
      return n;
    };
  const auto ctx = std::ref(hooks->context());
  register_sweep(
      run, space,
      declare<bind<timed::halves, lu_rows, &ops::gesv, &ops::getrf, &ops::getrs>,
              bind<timed::halves, cholesky_rows, &ops::posv, &ops::potrf, &ops::potrs>>(gpu_resident, hooks, {}, ctx,
                                                                                        gpu.api),
      declare<bind<timed::multiply, gemm_adapter, &ops::gemm>>(gpu_resident, hooks, {}, ctx),
      declare<bind<timed::halves, lu_transfer, &ops::gesv>, bind<timed::halves, cholesky_transfer, &ops::posv>>(
          gpu_pinned, hooks, {}, ctx, gpu.api, host_memory::pinned),
      declare<bind<timed::halves, lu_transfer, &ops::gesv>, bind<timed::halves, cholesky_transfer, &ops::posv>>(
          gpu_pageable, hooks, {}, ctx, gpu.api, host_memory::pageable));

  if (opt.has("d")) {  // mixed precision: fp64 in and out, beside plain dgesv on the same matrix
    std::vector<std::int64_t> mixed_sizes = opt.sizes.empty() ? mixed.gpu_sizes : opt.sizes;
    if (opt.sizes_max) {
      const auto n = largest_mixed_n(run, hooks->context(), opt, mixed, gpu.api);
      mixed_sizes = n ? std::vector<std::int64_t>{*n} : std::vector<std::int64_t>{};
    }
    for (auto n : mixed_sizes)
      for (const auto& [axis, matrix] : mixed_matrices(mixed)) {
        row_id base = make_row_id<double>(gpu_resident, ops::gesv, n, 1);
        add<lu_rows<double>, timed::halves>(run, *hooks, add_axis(base, axis, matrix), ops::gesv, std::nullopt,
                                            opt.seed, gpu.api);
        for (auto p : mixed_factors) {
          const auto mixed_row = [&] {
            row_id id = make_row_id<double>(gpu_mixed, ops::gesv, n, 1);
            id.factor = factor_letter(p);
            return add_axis(id, axis, matrix);
          };
          cuda::irs_options irs;
          irs.lowest = p;
          irs.max_iters = static_cast<int>(mixed.irs_max_iters);
          for (auto api : mixed.apis) {
            irs.api = api;
            if (api == irs_api::simple) {  // takes no settings: one row per precision
              cuda::irs_options simple;
              simple.lowest = p;
              simple.api = api;
              row_id id = mixed_row();
              add<irs_adapter, timed::driver>(run, *hooks, add_axis(id, "api", "simple"), ops::gesv, std::nullopt,
                                              opt.seed, simple);
              continue;
            }
            for (auto r : mixed.refine) {
              irs.solver = r;
              irs.tolerance = 0;
              row_id id = mixed_row();
              add<irs_adapter, timed::driver>(run, *hooks, add_axis(id, "refine", to_string(r)), ops::gesv,
                                              std::nullopt, opt.seed, irs);
              for (double tol : mixed.tolerances) {
                irs.tolerance = tol;
                char text[32];
                std::snprintf(text, sizeof text, "%g", tol);
                row_id with_tol = mixed_row();
                add_axis(add_axis(with_tol, "refine", to_string(r)), "tol", text);
                add<irs_adapter, timed::driver>(run, *hooks, with_tol, ops::gesv, std::nullopt, opt.seed, irs);
              }
            }
          }
        }
      }
  }

  for_each_precision(
      opt.precisions,
      [&](auto precision) {
        using T = typename decltype(precision)::type;
        const auto batch_row = [&](const backend_desc& b, const operation& op, std::int64_t n, std::int64_t count) {
          row_id id = make_row_id<T>(b, op, n);
          return add_axis(id, "batch", count);
        };
        for (auto n : batched.n)
          for (auto count : batched.count)
            add<batched_adapter<T, cuda::batched_lu<T>>, timed::halves>(
                run, *hooks, batch_row(gpu_batched, ops::gesv_batched, n, count), ops::gesv_batched, std::nullopt,
                opt.seed);
        for (auto n : batched.n)
          for (auto count : batched.count)
            add<batched_adapter<T, cuda::batched_cholesky<T>>, timed::halves>(
                run, *hooks, batch_row(gpu_batched_cholesky, ops::posv_batched, n, count), ops::posv_batched,
                std::nullopt, opt.seed);
        if (solvebench::precision<T>::letter == 'd')  // the naive loop, to show why batching matters
          for (auto n : batched.n)
            for (auto count : batched.count)
              if (naive_loop_size(n))
                add<loop_adapter<T>, timed::driver>(run, *hooks, batch_row(gpu_loop, ops::gesv_batched, n, count),
                                                    ops::gesv_batched, std::nullopt, opt.seed);
      },
      real_precisions{});  // batched solvers: s and d
  if (ceilings.probes && !opt.sizes_max)
    for_each_precision(
        opt.precisions,
        [&](auto precision) {
          register_probes<typename decltype(precision)::type>(run, *hooks, out.sizes, ceilings.nb, gpu.api, opt.seed);
        },
        real_precisions{});  // the bound is for real precisions
  out.registered = true;
  return out;
}

}  // namespace solvebench::bench::gpu
