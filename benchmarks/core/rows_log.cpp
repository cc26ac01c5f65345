// The live rows log.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "checks/output.hpp"
#include "core/printers.hpp"
#include "solvebench/errors.hpp"

namespace solvebench::bench {

rows_log::rows_log(const std::string& path, bool append) : path_(path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw error("cannot write the rows log " + path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    throw error("another solve_bench run is writing " + path +
                " (it holds the file's lock); wait for it, or "
                "give this run other outputs");
  }
  if (!append && ::ftruncate(fd, 0) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw error("cannot write the rows log " + path + ": " + why);
  }
  file_ = ::fdopen(fd, "a");
  if (!file_) {
    ::close(fd);
    throw error("cannot write the rows log " + path + ": " + std::strerror(errno));
  }
}

rows_log::~rows_log() {
  if (file_) std::fclose(file_);
}

void rows_log::write_line(const std::string& line) {
  if (!file_) return;
  errno = 0;
  const bool ok = std::fputs((line + "\n").c_str(), file_) >= 0 && std::fflush(file_) == 0;
  if (!ok) {
    const std::string why = errno ? std::strerror(errno) : "write error";
    std::fclose(file_);
    file_ = nullptr;
    throw error("cannot write the rows log " + path_ + ": " + why);
  }
}

// Every process of a run writes its context (a resumed or re-executed one too): the checks read
// each context line as the start of a process, whose rounds are apart from the others'.
void rows_log::context(const json& context) { write_line(json_text(json{{"context", context}})); }

void rows_log::rows(const std::vector<row_entry>& runs) {
  for (const auto& r : runs) {
    write_line(json_text(r.entry));
    if (!r.aggregate) ++written_;
  }
}

}  // namespace solvebench::bench
