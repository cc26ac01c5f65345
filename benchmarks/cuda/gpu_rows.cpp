// The GPU rows: dense solves, their halves and GEMM with A and b on the device; gesv and
// posv paying the host transfers; mixed precision beside plain dgesv on the same matrix;
// batches of small systems.
#include "cuda/gpu_rows.hpp"

#include <cstdio>

#include "cuda/gpu_adapters.hpp"
#include "solvebench/device_code.hpp"
#include "solvebench/nvml.hpp"

namespace solvebench::bench::gpu {
namespace {

template <class Adapter, class... Extra>
void add(const row_spec& spec, const operation& op, std::optional<matrix_kind> kind, std::uint64_t seed,
         Extra... extra) {
  const problem p = make_problem(spec, op, kind, seed);
  register_row(
      spec, [p, extra...] { return std::make_unique<solve_fixture<Adapter>>(p, context(), extra...); },
      &rows_backend());
}

// The adapter an operation of the solve family runs on, chosen once here.
template <class T>
void add_resident(const row_spec& spec, const operation& op, const common_options& opt, cusolver_api api) {
  if (op.multiplies) add<gemm_adapter<T>>(spec, op, opt.kind, opt.seed);
  else if (op.family == factorization::cholesky)
    add<solve_adapter<T, cuda::cholesky_solver<T>>>(spec, op, opt.kind, opt.seed, api);
  else add<solve_adapter<T, cuda::lu_solver<T>>>(spec, op, opt.kind, opt.seed, api);
}

template <class T>
void add_transfer(const row_spec& spec, const operation& op, const common_options& opt, cusolver_api api,
                  host_memory where) {
  if (op.family == factorization::cholesky)
    add<transfer_adapter<T, cuda::cholesky_solver<T>>>(spec, op, opt.kind, opt.seed, api, where);
  else add<transfer_adapter<T, cuda::lu_solver<T>>>(spec, op, opt.kind, opt.seed, api, where);
}

// The naive per-system loop is slow by design: a few sizes are enough to show it.
bool naive_loop_size(std::int64_t n) { return n == 8 || n == 32 || n == 128; }

}  // namespace

registration register_rows(const common_options& opt, const gpu_options& gpu, const mixed_options& mixed,
                           const batched_options& batched) {
  registration out;
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
    // The bus's ceiling, which the audit holds the transfer rows against ("" when unknown).
    const nvml::session probe;
    const auto bus = probe.available() ? nvml::pcie_max_GBps(probe, 0) : std::nullopt;
    out.context.emplace_back("gpu_pcie_max_GBps", bus ? std::to_string(*bus) : "");
    context();  // handles made once, before any row is timed
  } catch (const std::exception& e) {
    out.reason = std::string("the GPU could not be initialised: ") + e.what();
    return out;
  }
  out.sizes = opt.sizes;
  if (out.sizes.empty()) {
    out.sizes = opt.default_sizes;
    out.sizes.insert(out.sizes.end(), gpu.extra_sizes.begin(), gpu.extra_sizes.end());
  }

  for_each_precision(opt.precisions, [&](auto precision) {
    using T = typename decltype(precision)::type;
    for (const operation* op : ops::solve_family)
      for (auto n : out.sizes)
        for (const auto& spec : solve_rows<T>("GPU", *op, n, opt.nrhs)) add_resident<T>(spec, *op, opt, gpu.api);
    for (auto [backend, where] : {std::pair{"GPU-pinned", host_memory::pinned}, {"GPU-pageable", host_memory::pageable}})
      for (const operation* op : {&ops::gesv, &ops::posv})
        for (auto n : out.sizes)
          for (const auto& spec : solve_rows<T>(backend, *op, n, opt.nrhs))
            add_transfer<T>(spec, *op, opt, gpu.api, where);
  }, real_precisions{});  // no complex rows here yet

  if (opt.has("d")) {  // mixed precision: fp64 in and out
    const factor_precision lowest[] = {factor_precision::fp32, factor_precision::tf32, factor_precision::fp16,
                                       factor_precision::bf16};
    for (auto n : opt.sizes.empty() ? mixed.gpu_sizes : opt.sizes)
      for (const auto& [axis, matrix] : mixed_matrices(mixed)) {
        const auto base = row_spec::of<double>("GPU", ops::gesv).add("n", n).add("nrhs", 1).add(axis, matrix);
        add<solve_adapter<double, cuda::lu_solver<double>>>(base, ops::gesv, std::nullopt, opt.seed, gpu.api);
        for (auto p : lowest) {
          const auto mixed_row = [&] { return row_spec("GPU", op_name(p)).add("n", n).add("nrhs", 1).add(axis, matrix); };
          cuda::irs_options irs;
          irs.lowest = p;
          irs.max_iters = static_cast<int>(mixed.irs_max_iters);
          for (auto api : mixed.apis) {
            irs.api = api;
            if (api == irs_api::simple) {  // takes no settings: one row per precision
              cuda::irs_options simple;
              simple.lowest = p;
              simple.api = api;
              add<irs_adapter>(mixed_row().add("api", "simple"), ops::gesv, std::nullopt, opt.seed, simple);
              continue;
            }
            for (auto r : mixed.refine) {
              irs.solver = r;
              irs.tolerance = 0;
              add<irs_adapter>(mixed_row().add("refine", to_string(r)), ops::gesv, std::nullopt, opt.seed, irs);
              for (double tol : mixed.tolerances) {
                irs.tolerance = tol;
                char text[32];
                std::snprintf(text, sizeof text, "%g", tol);
                add<irs_adapter>(mixed_row().add("refine", to_string(r)).add("tol", text), ops::gesv, std::nullopt,
                                 opt.seed, irs);
              }
            }
          }
        }
      }
  }

  for_each_precision(opt.precisions, [&](auto precision) {
    using T = typename decltype(precision)::type;
    for (auto n : batched.n)
      for (auto count : batched.count)
        add<batched_adapter<T, cuda::batched_lu<T>>>(
            row_spec::of<T>("GPU", ops::gesv_batched).add("n", n).add("batch", count), ops::gesv_batched,
            std::nullopt, opt.seed);
    for (auto n : batched.n)
      for (auto count : batched.count)
        add<batched_adapter<T, cuda::batched_cholesky<T>>>(
            row_spec::of<T>("GPU", ops::posv_batched).add("n", n).add("batch", count), ops::posv_batched,
            std::nullopt, opt.seed);
    if (solvebench::precision<T>::letter == 'd')  // the naive loop, to show why batching matters
      for (auto n : batched.n)
        for (auto count : batched.count)
          if (naive_loop_size(n))
            add<loop_adapter<T>>(row_spec::of<T>("GPU-loop", ops::gesv_batched).add("n", n).add("batch", count),
                                 ops::gesv_batched, std::nullopt, opt.seed);
  }, real_precisions{});  // no complex rows here yet
  out.registered = true;
  return out;
}

void release() { release_context(); }

std::vector<std::string> leaks() { return device_memory_leaks(); }

}  // namespace solvebench::bench::gpu
