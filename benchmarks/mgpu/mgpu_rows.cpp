// Multi-GPU rows: cusolverMg getrf + getrs and potrf + potrs with A in column tiles over G
// devices, generated on each device from global indices (no host copy of a matrix that may
// not fit one GPU), the residual computed without gathering A.
// Rows: MGPU/dgesv/n:N/nrhs:K/gpus:G/tile:T (and dposv, and s), and the halves on their own,
// MGPU/dgetrf/n:N/gpus:G/tile:T and MGPU/dgetrs/n:N/nrhs:K/gpus:G/tile:T (and potrf, potrs): the
// factorization is what one compares with cusolverDnXgetrf, the solve is driven tile by tile.
#include "mgpu/mgpu_rows.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <memory>

#include "core/harness.hpp"
#include "core/sweep.hpp"
#include "solvebench/cusolver_mg.hpp"
#include "solvebench/nvml.hpp"

namespace solvebench::bench::mgpu {
namespace {

namespace mg = cuda::mg;

// One Mg context per GPU count, made on the first row that needs it and kept for the run (the
// session owns it), so handle creation never lands in a timed region.
class contexts {
 public:
  mg::context& for_gpus(int gpus) {
    auto& slot = by_count_[gpus];
    if (!slot) slot = std::make_unique<mg::context>(mg::first_devices(gpus));
    return *slot;
  }

 private:
  std::map<int, std::unique_ptr<mg::context>> by_count_;
};

// The Mg calls block and run on the library's own streams, so CUDA events on one stream
// cannot time them: the timed region is a host clock between two synchronisations of every
// device. Restoring A and B regenerates them on each device (untimed): no copy of A is kept,
// which is what lets n reach past one GPU's memory. A getrs/potrs row regenerates B alone and
// keeps the factors made once at set-up.
template <class T>
class adapter {
 public:
  adapter(const problem& p, contexts& made)
      : p_(p),
        ctx_(made.for_gpus(static_cast<int>(p.integer("gpus", 1)))),
        system_(ctx_, p.op->family, p.n, p.nrhs, p.integer("tile", 512)),
        tile_(p.integer("tile", 512)) {}
  void restore(bool a, bool b) {
    if (a) system_.generate(p_.kind, p_.seed);
    else if (b) system_.generate_rhs();
  }
  void start() {
    ctx_.synchronize();
    t0_ = std::chrono::steady_clock::now();
  }
  void factor() { system_.factor(); }
  void solve() { system_.solve(); }
  double stop() {
    ctx_.synchronize();
    return seconds_since(t0_);
  }
  void check_info() const {}  // Mg returns info on the host: factor() and solve() have thrown already
  double residual() const { return system_.scaled_residual(); }
  void add_counters(benchmark::State& state) const {
    state.counters["n"] = static_cast<double>(p_.n);
    state.counters["nrhs"] = static_cast<double>(p_.nrhs);
    state.counters["gpus"] = ctx_.device_count();
    state.counters["tile"] = static_cast<double>(tile_);
  }

 private:
  problem p_;
  mg::context& ctx_;
  mg::linear_system<T> system_;
  std::int64_t tile_;
  std::chrono::steady_clock::time_point t0_;
};

template <class T>
using mg_rows = adapter<T>;

constexpr backend_desc mgpu_rows_desc{"MGPU",           row_role::spread, row_device::gpu, row_placement::resident,
                                      row_path::halves, "cusolverMg"};

}  // namespace

registration register_rows(session& run, const common_options& opt, const mgpu_options& mgpu) {
  registration out;
  if (mgpu.sizes.empty()) return out;
  std::string why;
  const int present = cuda::device_count(&why);
  if (present == 0) {
    out.notes.push_back("MGPU rows not registered: " + why);
    return out;
  }
  std::vector<std::int64_t> gpus = mgpu.gpus;
  if (gpus.empty())
    for (int g = 1; g <= present; ++g) gpus.push_back(g);
  std::vector<int> all;
  for (int d = 0; d < present; ++d) all.push_back(d);
  out.context = mg::topology_facts(mg::query_topology(all));
  if (const nvml::session s; s.available()) out.context.emplace_back("mgpu_links", nvml::link_topology(s, all));

  std::vector<std::int64_t> usable;
  for (auto g : gpus)
    if (g <= present) usable.push_back(g);
  const sweep_space space{opt.precisions, mgpu.sizes, opt.nrhs, opt.kind, opt.seed, nullptr};
  const auto made = std::ref(run.own(std::make_unique<contexts>()));
  register_sweep<real_precisions>(run, space,
                                  declare<bind<timed::halves, mg_rows, &ops::gesv, &ops::getrf, &ops::getrs>,
                                          bind<timed::halves, mg_rows, &ops::posv, &ops::potrf, &ops::potrs>>(
                                      mgpu_rows_desc, nullptr, {axis("gpus", usable), axis("tile", mgpu.tiles)}, made));
  for (auto g : gpus)
    if (g > present)
      out.notes.push_back("MGPU rows with gpus:" + std::to_string(g) + " not registered: " + std::to_string(present) +
                          " CUDA device(s) present");
  return out;
}

}  // namespace solvebench::bench::mgpu
