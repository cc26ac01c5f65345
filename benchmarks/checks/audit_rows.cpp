// Audit rules that hold rows against each other: a driver against its halves, a solve against
// the GEMM it is built on, a transfer against the bus and against its device-resident twin.
// A difference is a finding only when it exceeds what the two rows' noise explains; within the
// noise it is a note that names the noisy rows.
#include <algorithm>
#include <cmath>

#include "checks/audit_rules.hpp"
#include "checks/text.hpp"
#include "checks/thresholds.hpp"

namespace solvebench::bench::audit_detail {
namespace {

// A row's median and the 95% interval around it.
struct interval {
  double mid, lo, hi;
};
interval span(const row_record& r) {
  const double mid = r.median_ms();
  const double h = r.noise_pct().value_or(0) / 100.0;
  return {mid, mid * (1 - h), mid * (1 + h)};
}

std::string noise_text(const row_record& r) {
  const auto n = r.noise_pct();
  return r.name + " (" + sig3(r.median_ms()) + " ms" + (n ? " ±" + sig3(*n) + "%" : ", noise unknown") + ")";
}

bool plain_solve(const row_id& id) { return !id.mixed() && !id.batched(); }

// ?gesv (one-call driver, or the halves timed back to back) against ?getrf + ?getrs timed apart
// on the same library and device; ?posv against ?potrf + ?potrs.
std::optional<std::string> driver_vs_halves(const rule_input& in, std::vector<finding>& out) {
  for (const auto* d : in.rows) {
    const row_id& id = d->id;
    if (!plain_solve(id) || (id.op != "gesv" && id.op != "posv") || !id.nrhs) continue;
    const bool lu = id.op == "gesv";
    const auto twin = [&](const char* op, bool with_rhs) {
      return in.find([&](const row_id& h) {
        return h.path == "halves" && h.library == id.library && h.device == id.device && h.placement == id.placement &&
               h.op == op && h.precision == id.precision && !h.mixed() && h.n == id.n &&
               (!with_rhs || h.nrhs == id.nrhs) && other_axes(h) == other_axes(id);
      });
    };
    const auto* f = twin(lu ? "getrf" : "potrf", false);
    const auto* s = twin(lu ? "getrs" : "potrs", true);
    if (!f || !s) continue;
    const interval di = span(*d), fi = span(*f), si = span(*s);
    const double halves = fi.mid + si.mid;
    if (!(di.mid > limits::driver_vs_halves * halves)) continue;
    const std::string what = d->name + " takes " + sig3(di.mid) + " ms, " + times(di.mid / halves) + " the " +
                             sig3(halves) + " ms of its halves " + f->name + " (" + sig3(fi.mid) + " ms) + " + s->name +
                             " (" + sig3(si.mid) + " ms).";
    if (const std::string load = load_during({d, f, s}); !load.empty()) {
      out.push_back({"driver_vs_halves", severity_note, {id, f->id, s->id}, what + " " + load});
      continue;
    }
    if (!(di.lo > limits::driver_vs_halves * (fi.hi + si.hi))) {
      out.push_back({"driver_vs_halves",
                     severity_note,
                     {id, f->id, s->id},
                     what + " Within the rows' noise: " + noise_text(*d) + ", " + noise_text(*f) + ", " +
                         noise_text(*s) + "; not a finding."});
      continue;
    }
    std::string msg = what, cause;
    if (id.device == "cpu") {
      const std::string vendor = in.context("blas_vendor"), version = in.context("blas_version");
      msg += " Library: " + (vendor.empty() ? std::string("unknown BLAS") : vendor) +
             (version.empty() ? std::string(" (version unknown)") : " " + version) + ".";
      // The library's driver can only be the cause where the row calls it; CPU/?gesv calls
      // the two halves itself, back to back.
      const bool calls_driver = id.path == "driver";
      cause = lu && calls_driver ? known_driver_cause(vendor, version, id.precision, id.n, *id.nrhs) : "";
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
    if (!plain_solve(id) || id.op == "gemm") continue;
    const auto rate = r->counter("GFLOP/s");
    if (!rate) continue;
    const auto* g = in.find([&](const row_id& c) {
      return c.op == "gemm" && c.device == id.device && c.placement == "resident" && c.precision == id.precision &&
             c.n == id.n && other_axes(c, "kind") == other_axes(id, "kind");
    });
    const auto gemm_rate = g ? g->counter("GFLOP/s") : std::nullopt;
    if (!gemm_rate || !(*rate > limits::gemm_tolerance * *gemm_rate)) continue;
    // Rates scale as 1/time: the solve's slowest plausible rate against GEMM's fastest.
    const interval ri = span(*r), gi = span(*g);
    const double rate_lo = *rate * ri.mid / ri.hi, gemm_hi = *gemm_rate * gi.mid / std::max(gi.lo, 1e-300);
    const std::string what = r->name + " reports " + sig3(*rate) + " GFLOP/s, " + percent(*rate / *gemm_rate - 1) +
                             " above " + g->name + " (" + sig3(*gemm_rate) + " GFLOP/s)";
    if (const std::string load = load_during({r, g}); !load.empty()) {
      out.push_back({"faster_than_gemm", severity_note, {id, g->id}, what + ". " + load});
      continue;
    }
    if (!(rate_lo > limits::gemm_tolerance * gemm_hi)) {
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
                   what + ", beyond both rows' noise: a solve or factorization cannot outrun the GEMM it is built "
                          "on, so the timed region or the flop count is wrong."});
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
    if (id.placement == "resident") continue;
    const auto* twin = in.find([&](const row_id& c) {
      return c.placement == "resident" && c.device == id.device && c.library == id.library && c.path == id.path &&
             c.op == id.op && c.precision == id.precision && c.factor == id.factor && c.n == id.n &&
             c.nrhs == id.nrhs && other_axes(c) == other_axes(id);
    });
    if (!twin) continue;
    const interval ti = span(*r), ri = span(*twin);
    if (!(ri.mid > limits::transfer_vs_resident * ti.mid)) continue;
    const std::string what = r->name + " takes " + sig3(ti.mid) + " ms, " + percent(1 - ti.mid / ri.mid) +
                             " less than its device-resident twin " + twin->name + " (" + sig3(ri.mid) + " ms)";
    if (!(ri.lo > limits::transfer_vs_resident * ti.hi)) {
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

}  // namespace

const std::vector<rule>& row_rules() {
  static const std::vector<rule> rules = {
      {"driver_vs_halves", driver_vs_halves},
      {"faster_than_gemm", faster_than_gemm},
      {"transfer_faster_than_bus", transfer_faster_than_bus},
      {"transfer_faster_than_resident", transfer_faster_than_resident},
      {"noisy_row", noisy_row},
  };
  return rules;
}

}  // namespace solvebench::bench::audit_detail
