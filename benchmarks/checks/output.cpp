// Atomic file output.
#include "checks/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "solvebench/errors.hpp"

namespace solvebench::bench {

std::string json_text(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  const auto fail = [&](const char* step) {
    const std::string why = std::strerror(errno);
    ::unlink(temp.c_str());
    throw error("cannot write " + path + ": " + step + ": " + why);
  };
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw error("cannot write " + path + ": " + std::strerror(errno));
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved ? saved : EIO;
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    fail("fsync");
  }
  if (::close(fd) != 0) fail("close");
  if (::rename(temp.c_str(), path.c_str()) != 0) fail("rename");
}

std::string why_not_writable(const std::string& path) {
  if (path.empty()) return "empty path";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return path + " is a folder";
    if (!S_ISREG(st.st_mode))
      return path + " is not a regular file (a device or a pipe): results are written beside it";
    if (::access(path.c_str(), W_OK) != 0) return path + ": " + std::strerror(errno);
  }
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return "cannot create files in " + dir.string() + ": " + std::strerror(errno);
  return "";
}

}  // namespace solvebench::bench
