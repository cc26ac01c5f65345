// Audit rules that hold rows against each other: a driver against its halves, a solve against
// the GEMM it is built on, a transfer against the bus and against its device-resident twin.
// They compare like with like: a difference is a finding only when neither the two rows'
// between-run noise, nor the cores each had for its threads, nor the load the slower-than-it-
// should-be row met explains it; otherwise it is a note that says which did. (A row that met
// load where it ought to be the faster cannot explain a gap the other way: load only slows.)
#include <algorithm>
#include <cmath>

#include "checks/audit_rules.hpp"
#include "checks/ceilings.hpp"
#include "checks/operation.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"
#include "solvebench/known_causes.hpp"

namespace solvebench::bench::audit_detail {
namespace {

std::string noise_text(const row_record& r) {
  const double n = rerun_noise_pct(r);
  return r.name + " (" + sig3(r.median_ms()) + " ms" + (n > 0 ? " ±" + sig3(n) + "%" : ", noise unknown") + ")";
}

// Why the row that ought to be the faster (a GEMM, a driver's halves, a resident twin) is no
// yardstick here: the load it met, or too few cores for its threads; "" when it is one.
std::string no_yardstick(const rule_input& in, const row_record& r) {
  std::vector<std::string> why;
  if (const std::string load = load_met(r); !load.empty()) why.push_back("met load (" + load + ")");
  if (const std::string cores = short_of_threads(in, r); !cores.empty()) why.push_back(cores);
  return why.empty() ? "" : r.name + " " + join(why, " and ");
}

// "(CPU/dgetrs/n:256/nrhs:1 used 1.00 cores, CPU/dgemm/n:256 2.00)": what each row had, where measured.
std::string cores_text(std::initializer_list<const row_record*> rows) {
  std::vector<std::string> parts;
  for (const auto* r : rows)
    if (const auto cores = r->counter("cpu_self_busy")) parts.push_back(r->name + " " + sig3(*cores));
  return parts.empty() ? "" : " Cores used: " + join(parts, ", ") + ".";
}

bool plain_solve(const row_id& id) { return !id.mixed() && !id.batched(); }

// A driver (?gesv: one library call, or its halves timed back to back) against its halves
// (operation.hpp: ?getrf + ?getrs) timed apart on the same library and device.
std::optional<std::string> driver_vs_halves(const rule_input& in, std::vector<finding>& out) {
  for (const auto* d : in.rows) {
    const row_id& id = d->id;
    const operation* op = find_operation(id.op);
    if (!plain_solve(id) || !op || !op->is_driver() || !id.nrhs) continue;
    const auto twin = [&](const operation* half, bool with_rhs) {
      return in.find([&](const row_id& h) {
        return h.path == row_path::halves && h.library == id.library && h.device == id.device &&
               h.placement == id.placement && h.op == half->name && h.precision == id.precision && !h.mixed() &&
               h.n == id.n && (!with_rhs || h.nrhs == id.nrhs) && other_axes(h) == other_axes(id);
      });
    };
    const auto* f = twin(op->factor_half, false);
    const auto* s = twin(op->solve_half, true);
    if (!f || !s) continue;
    const double dm = d->median_ms(), fm = f->median_ms(), sm = s->median_ms(), halves = fm + sm;
    if (!(dm > limits::driver_vs_halves * halves)) continue;
    const std::string what = d->name + " takes " + sig3(dm) + " ms, " + times(dm / halves) + " the " + sig3(halves) +
                             " ms of its halves " + f->name + " (" + sig3(fm) + " ms) + " + s->name + " (" + sig3(sm) +
                             " ms).";
    // Load on the driver explains it being slow; load on its halves would only narrow the gap.
    if (const std::string load = load_met(*d); !load.empty()) {
      out.push_back({"driver_vs_halves",
                     severity_note,
                     {id, f->id, s->id},
                     what + " Not judged: other work loaded the host during " + d->name + " (" + load +
                         "), and a load can open any gap between rows measured at different moments; rerun on a "
                         "quiet machine."});
      continue;
    }
    // The halves' noise, weighted by their share of the sum.
    const double halves_noise = (fm * rerun_noise_pct(*f) + sm * rerun_noise_pct(*s)) / halves;
    if (!(dm / halves > limits::driver_vs_halves * (1 + (rerun_noise_pct(*d) + halves_noise) / 100))) {
      out.push_back({"driver_vs_halves",
                     severity_note,
                     {id, f->id, s->id},
                     what + " Within the rows' noise: " + noise_text(*d) + ", " + noise_text(*f) + ", " +
                         noise_text(*s) + "; not a finding."});
      continue;
    }
    std::string msg = what, cause;
    if (const std::string cores = short_of_threads(in, *d); !cores.empty() && short_of_threads(in, *f).empty())
      msg += " It " + cores.substr(0, cores.find(" (")) +
             " where its halves had theirs: the library ran it on fewer "
             "threads." +
             cores_text({d, f, s});
    if (id.device == row_device::cpu) {
      const std::string vendor = in.fact(*d, "blas_vendor"), version = in.fact(*d, "blas_version");
      msg += " Library: " + (vendor.empty() ? std::string("unknown BLAS") : vendor) +
             (version.empty() ? std::string(" (version unknown)") : " " + version) + ".";
      // The library's driver can only be the cause where the row calls it; CPU/?gesv calls
      // the two halves itself, back to back.
      const bool calls_driver = id.path == row_path::driver;
      cause = op->family == factorization::lu && calls_driver
                  ? solvebench::cpu::known_driver_cause(vendor, version, id.precision, id.n, *id.nrhs)
                  : "";
      msg += !calls_driver   ? " This row calls the two halves itself, back to back, so the library's driver is not "
                               "the cause: the gap is between timing them together and apart."
             : cause.empty() ? " No known cause for this library and size."
                             : " Here n * nrhs = " + std::to_string(id.n * *id.nrhs) + ".";
    }
    out.push_back({"driver_vs_halves", severity_warning, {id, f->id, s->id}, msg, cause});
  }
  return std::nullopt;
}

// A solve or factorization cannot outrun the GEMM it is made of on the same device.
std::optional<std::string> faster_than_gemm(const rule_input& in, std::vector<finding>& out) {
  for (const auto* r : in.rows) {
    const row_id& id = r->id;
    if (!plain_solve(id) || id.op == ops::gemm.name) continue;
    const auto rate = r->counter("GFLOP/s");
    if (!rate) continue;
    const auto* g = in.find([&](const row_id& c) {
      return c.op == ops::gemm.name && c.device == id.device && c.placement == row_placement::resident &&
             c.precision == id.precision && c.n == id.n && other_axes(c, "kind") == other_axes(id, "kind");
    });
    const auto gemm_rate = g ? g->counter("GFLOP/s") : std::nullopt;
    if (!gemm_rate || !(*rate > limits::gemm_tolerance * *gemm_rate)) continue;
    const std::string what = r->name + " reports " + sig3(*rate) + " GFLOP/s, " + percent(*rate / *gemm_rate - 1) +
                             " above " + g->name + " (" + sig3(*gemm_rate) + " GFLOP/s)";
    // A GEMM slowed by load, or short of the cores its threads need, is no ceiling for a row of
    // fewer threads (a one-thread BLAS-2 solve against a two-thread GEMM on a shared machine);
    // load on the solve would only have slowed it.
    if (const std::string why = no_yardstick(in, *g); !why.empty()) {
      out.push_back({"faster_than_gemm",
                     severity_note,
                     {id, g->id},
                     what + ". Not judged: " + why + ", so it is no ceiling here; rerun on a quiet machine." +
                         cores_text({r, g})});
      continue;
    }
    // Rates scale as 1/time: both rows' between-run noise.
    if (!(*rate / *gemm_rate > limits::gemm_tolerance * (1 + (rerun_noise_pct(*r) + rerun_noise_pct(*g)) / 100))) {
      out.push_back(
          {"faster_than_gemm",
           severity_note,
           {id, g->id},
           what + ", within the rows' noise: " + noise_text(*r) + ", " + noise_text(*g) + "; not a finding."});
      continue;
    }
    out.push_back({"faster_than_gemm",
                   severity_timing_bug,
                   {id, g->id},
                   what + ", beyond both rows' noise (" + noise_text(*r) + ", " + noise_text(*g) +
                       "), the GEMM quiet and with the cores of its threads: a solve or factorization cannot outrun "
                       "the GEMM it is built on, so the timed region or the flop count is wrong." +
                       cores_text({r, g})});
  }
  return std::nullopt;
}

std::optional<std::string> transfer_faster_than_bus(const rule_input& in, std::vector<finding>& out) {
  std::vector<const row_record*> transfers;
  for (const auto* r : in.rows)
    if (r->counter("xfer_GB/s")) transfers.push_back(r);
  if (transfers.empty()) return std::nullopt;
  const auto ceiling = in.number("gpu_pcie_max_GBps");
  if (!ceiling || *ceiling <= 0)
    return "the bus ceiling is unknown (context gpu_pcie_max_GBps is empty); " +
           count(transfers.size(), "transfer row") + " not checked";
  for (const auto* r : transfers) {
    const double rate = *r->counter("xfer_GB/s");
    if (rate > *ceiling)
      out.push_back({"transfer_faster_than_bus",
                     severity_timing_bug,
                     {r->id},
                     r->name + " moves " + sig3(rate) + " GB/s, above the bus's one-direction ceiling of " +
                         sig3(*ceiling) + " GB/s (" + in.context("gpu_name") +
                         "): the transfer was not all timed, or its byte count is wrong."});
  }
  return std::nullopt;
}

// Transfer-inclusive rows do the device-resident row's work plus the copies.
std::optional<std::string> transfer_faster_than_resident(const rule_input& in, std::vector<finding>& out) {
  for (const auto* r : in.rows) {
    const row_id& id = r->id;
    if (id.placement == row_placement::resident) continue;
    const auto* twin = in.find([&](const row_id& c) {
      return c.placement == row_placement::resident && c.device == id.device && c.library == id.library &&
             c.path == id.path && c.op == id.op && c.precision == id.precision && c.factor == id.factor &&
             c.n == id.n && c.nrhs == id.nrhs && other_axes(c) == other_axes(id);
    });
    if (!twin) continue;
    const double tm = r->median_ms(), rm = twin->median_ms();
    if (!(rm > limits::transfer_vs_resident * tm)) continue;
    const std::string what = r->name + " takes " + sig3(tm) + " ms, " + percent(1 - tm / rm) +
                             " less than its device-resident twin " + twin->name + " (" + sig3(rm) + " ms)";
    if (const std::string why = no_yardstick(in, *twin); !why.empty()) {
      out.push_back({"transfer_faster_than_resident",
                     severity_note,
                     {id, twin->id},
                     what + ". Not judged: " + why + "; rerun on a quiet machine."});
      continue;
    }
    if (!(rm / tm > limits::transfer_vs_resident * (1 + (rerun_noise_pct(*r) + rerun_noise_pct(*twin)) / 100))) {
      out.push_back(
          {"transfer_faster_than_resident",
           severity_note,
           {id, twin->id},
           what + ", within the rows' noise: " + noise_text(*r) + ", " + noise_text(*twin) + "; not a finding."});
      continue;
    }
    out.push_back({"transfer_faster_than_resident",
                   severity_timing_bug,
                   {id, twin->id},
                   what + ", beyond both rows' noise, although it does the same work plus the transfers: one of the "
                          "two is timed wrong."});
  }
  return std::nullopt;
}

// Noise is context, never a finding by itself: one note listing the rows whose median is known
// only loosely, so that a reader weighs them accordingly.
std::optional<std::string> noisy_row(const rule_input& in, std::vector<finding>& out) {
  std::vector<row_id> noisy;
  double worst = 0;
  std::string worst_name;
  for (const auto* r : in.rows) {
    const auto n = r->noise_pct();
    if (!n || !(*n > limits::noisy_row_pct)) continue;
    noisy.push_back(r->id);
    if (*n > worst) {
      worst = *n;
      worst_name = r->name;
    }
  }
  if (noisy.empty()) return std::nullopt;
  out.push_back({"noisy_row", severity_note, noisy,
                 count(noisy.size(), "row") + " have a median known only to more than ±" + sig3(limits::noisy_row_pct) +
                     "% (the interval a re-run lands in 19 times in 20), the widest " + worst_name + " at ±" +
                     sig3(worst) + "%: " + row_list(noisy) + "."});
  return std::nullopt;
}

// A CPU batched row whose loop kept fewer cores busy than it has threads (batch_threads, each
// calling the library for one system at a time), on a host nothing else loaded: its threads
// waited, for each other or for a lock in the library. The CPU side of a batched comparison is
// then what the library lets the cores do, not what they can; the finding says which rows, and
// the library's known cause.
std::optional<std::string> batch_threads_idle(const rule_input& in, std::vector<finding>& out) {
  std::vector<row_id> idle;
  const row_record* worst = nullptr;
  double worst_share = 1;
  for (const auto* r : in.rows) {
    if (!r->id.batched() || !load_met(*r).empty() || short_of_threads(in, *r).empty()) continue;
    idle.push_back(r->id);
    const double share = *r->counter("cpu_self_busy") / *r->counter("batch_threads");
    if (share < worst_share) {
      worst_share = share;
      worst = r;
    }
  }
  if (!worst) return std::nullopt;
  const std::string vendor = in.fact(*worst, "blas_vendor"), version = in.fact(*worst, "blas_version");
  const std::string cause = solvebench::cpu::known_batch_cause(vendor, version, in.fact(*worst, "blas_variant"),
                                                               in.fact(*worst, "blas_config"));
  out.push_back({"batch_threads_idle", severity_warning, idle,
                 count(idle.size(), "CPU batched row") + " kept fewer than 1/" + sig3(limits::cores_ratio) +
                     " of their loop's threads busy on a host nothing else loaded, the fewest " + worst->name + " (" +
                     sig3(*worst->counter("cpu_self_busy")) + " cores for " + whole(*worst->counter("batch_threads")) +
                     " threads): the threads waited, for each other or for a lock in the library, so the CPU side "
                     "of a batched comparison is what the library lets the cores do. Library: " +
                     (vendor.empty() ? std::string("unknown BLAS") : vendor + " " + version) + ". " + row_list(idle) +
                     "." + (cause.empty() ? " No known cause for this library." : ""),
                 cause});
  return std::nullopt;
}

// A row faster than the bound its own run's probes give (ceilings.cpp: the critical path of a
// look-ahead of one, a call's latency per block): the bound leaves out something the library does
// (a deeper look-ahead, a different blocking) or a probe is slow, so the bound is wrong, not the row.
std::optional<std::string> bound_beaten(const rule_input& in, std::vector<finding>& out) {
  const ceilings_report report = ceilings_of(in.run);
  if (!report.probes) return std::nullopt;  // the verdict says how to get a bound
  for (const auto& c : report.rows) {
    if (!c.headroom) continue;
    const row_record* r = in.find([&](const row_id& id) { return id == c.id; });
    if (!r) continue;
    const double noise = (rerun_noise_pct(*r) + c.bound_noise_pct) / 100;
    if (!(*c.headroom * limits::bound_tolerance * (1 + noise) < 1)) continue;
    std::vector<row_id> ids{c.id};
    std::string loaded = load_met(*r);
    std::vector<std::string> parts = c.probe_rows;  // the rows the bound is made of
    if (!c.solve_row.empty()) parts.push_back(c.solve_row);
    for (const auto& name : parts)
      if (const row_record* p = in.run.find(name)) {
        ids.push_back(p->id);
        if (loaded.empty() && !load_met(*p).empty()) loaded = p->name + ": " + load_met(*p);
      }
    const std::string what =
        c.row + " takes " + sig3(c.ms) + " ms, " + times(*c.headroom) + " its bound of " + sig3(c.bound->total_ms()) +
        " ms (on its critical path updates " + sig3(c.bound->update_ms) + " ms, panels " + sig3(c.bound->panel_ms) +
        " ms; transfers " + sig3(c.bound->transfer_ms) + " ms, solve " + sig3(c.bound->solve_ms) +
        " ms; the serial sum " + sig3(c.bound->serial_total_ms()) + " ms; nb = " + std::to_string(c.nb) +
        (c.bound_leaves_out.empty() ? "" : "; " + c.bound_leaves_out) + ")";
    if (!loaded.empty()) {
      out.push_back({"bound_beaten", severity_note, ids,
                     what + ". Not judged: other work loaded the host (" + loaded + "); rerun on a quiet machine."});
      continue;
    }
    out.push_back({"bound_beaten", severity_warning, ids,
                   what + ", beyond " + percent(1 - 1 / limits::bound_tolerance) +
                       " and the noise of the row and of its bound's rows (" + sig3(100 * noise) +
                       "%): the bound is wrong for this library (it looks further ahead than one panel, or "
                       "blocks otherwise), or a probe ran slow."});
  }
  return std::nullopt;
}

}  // namespace

std::string short_of_threads(const rule_input& in, const row_record& r) {
  // A batched row's threads are its loop's team, each calling a one-thread BLAS.
  const bool batched = r.id.batched();
  const auto threads = batched ? r.counter("batch_threads") : in.fact_number(r, "blas_threads");
  const auto cores = r.counter("cpu_self_busy");
  if (r.id.device != row_device::cpu || r.id.role == row_role::spread || !threads || !cores || !(*threads > 1))
    return "";
  if (*cores >= *threads / limits::cores_ratio) return "";
  return "ran " + whole(*threads) + (batched ? " loop threads on " : " BLAS threads on ") + sig3(*cores) +
         " cores (its CPU time over its loop's wall time)";
}

const std::vector<rule>& row_rules() {
  static const std::vector<rule> rules = {
      {"driver_vs_halves", driver_vs_halves},
      {"faster_than_gemm", faster_than_gemm},
      {"transfer_faster_than_bus", transfer_faster_than_bus},
      {"transfer_faster_than_resident", transfer_faster_than_resident},
      {"noisy_row", noisy_row},
      {"batch_threads_idle", batch_threads_idle},
      {"bound_beaten", bound_beaten},
  };
  return rules;
}

}  // namespace solvebench::bench::audit_detail
