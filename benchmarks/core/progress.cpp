// Progress on stderr: [k/N], elapsed, and an ETA from the rows' estimated costs, scaled by what
// the finished rows really took.
#include <unistd.h>

#include <iostream>
#include <set>

#include "core/printers.hpp"

namespace solvebench::bench {
namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

class progress_printer final : public printer {
 public:
  explicit progress_printer(std::vector<planned_row> planned)
      : planned_(std::move(planned)), tty_(isatty(STDERR_FILENO) != 0), t0_(std::chrono::steady_clock::now()) {
    for (const auto& p : planned_) total_cost_ += p.cost;
  }
  void rows(const std::vector<row_entry>& runs) override {
    const std::string& name = runs.front().name;
    if (!done_.insert(name).second) return;
    for (const auto& p : planned_)
      if (p.name == name) done_cost_ += p.cost;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const std::size_t total = std::max(planned_.size(), done_.size());
    std::string eta = "?";
    if (done_cost_ > 0 && total_cost_ >= done_cost_)
      eta = clock_text(elapsed * (total_cost_ - done_cost_) / done_cost_);
    const std::string k = std::to_string(done_.size()), n = std::to_string(total);
    if (tty_)
      std::cerr << "[" << std::string(n.size() - std::min(n.size(), k.size()), ' ') << k << "/" << n << "] "
                << clock_text(elapsed) << " elapsed, ETA " << eta << "  " << name << "\n";
    else std::cerr << "[" << k << "/" << n << "] " << clock_text(elapsed) << " eta " << eta << "\n";
  }

 private:
  std::vector<planned_row> planned_;
  bool tty_;
  std::chrono::steady_clock::time_point t0_;
  std::set<std::string> done_;
  double total_cost_ = 0, done_cost_ = 0;
};

}  // namespace

std::unique_ptr<printer> make_progress(std::vector<planned_row> planned) {
  return std::make_unique<progress_printer>(std::move(planned));
}

}  // namespace solvebench::bench
