// Output files that are replaced only by complete new ones (cli/outputs.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/outputs.hpp"

namespace appell::cli {

namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash + 1);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// what names one file: device and inode when it exists, else its canonical path
std::string identity(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0)
    return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  char buf[PATH_MAX];
  if (::realpath(directory_of(path).c_str(), buf)) return std::string(buf) + "/" + base_of(path);
  return path;
}

}  // namespace

OutputFile::~OutputFile() {
  discard();
}

bool OutputFile::open(const std::string& path) {
  path_ = path;
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    error_ = "'" + path + "' is a directory";
    return false;
  }
  if (exists && !S_ISREG(st.st_mode)) {
    // a device or a pipe: written in place, never replaced
    f_ = std::fopen(path.c_str(), "w");
    if (!f_) error_ = "cannot write '" + path + "': " + std::strerror(errno);
    return f_ != nullptr;
  }
  // a hidden temporary beside the file, renamed onto it when complete
  const std::string dir = path.find('/') == std::string::npos ? "" : directory_of(path);
  std::string name = dir + "." + base_of(path) + ".appell-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) {
    error_ = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  ::fchmod(fd, exists ? (st.st_mode & 07777) : 0644);
  temp_ = name;
  f_ = ::fdopen(fd, "w");
  if (!f_) {
    error_ = "cannot write '" + path + "': " + std::strerror(errno);
    ::close(fd);
    discard();
    return false;
  }
  buffer_.resize(kBuffer);
  std::setvbuf(f_, buffer_.data(), _IOFBF, buffer_.size());
  return true;
}

bool OutputFile::failed() const {
  return f_ && std::ferror(f_);
}

void OutputFile::text(const std::string& s) {
  std::fputs(s.c_str(), f_);
}

std::string OutputFile::writer_path() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
  return temp_.empty() ? path_ : temp_;
}

void OutputFile::write(const char* data, size_t n) {
  errno = 0;
  if (std::fwrite(data, 1, n, f_) != n && !write_errno_) write_errno_ = errno ? errno : EIO;
}

bool OutputFile::commit() {
  bool ok = true;
  int err = 0;
  if (f_) {
    errno = 0;
    ok = std::fflush(f_) == 0 && !std::ferror(f_);
    err = ok ? 0 : (write_errno_ ? write_errno_ : errno ? errno : EIO);
    if (std::fclose(f_) != 0 && ok) {
      ok = false;
      err = errno ? errno : EIO;
    }
    f_ = nullptr;
  }
  if (ok && !temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (ok) {
    temp_.clear();
    return true;
  }
  error_ = "cannot write '" + path_ + "': " + std::strerror(err);
  discard();
  return false;
}

void OutputFile::discard() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
  if (!temp_.empty()) std::remove(temp_.c_str());
  temp_.clear();
}

std::string input_clash(const std::string& path, const std::string& scene,
                        const std::vector<std::string>& inputs) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return "";  // a new file is no input
  const std::string id = identity(path);
  if (identity(scene) == id) return "'" + path + "' is the scene file; it is not overwritten";
  for (const std::string& input : inputs)
    if (identity(input) == id)
      return "'" + path + "' is '" + input + "', a file the scene reads; it is not overwritten";
  return "";
}

bool check_output_paths(const std::string& scene, const std::vector<std::string>& inputs,
                        const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty()) continue;
    std::string why = input_clash(path, scene, inputs);
    for (size_t j = 0; j < i && why.empty(); ++j)
      if (!outputs[j].second.empty() && identity(path) == identity(outputs[j].second))
        why = "'" + path + "' is also the file of " + outputs[j].first;
    struct stat st;
    if (why.empty() && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      why = "'" + path + "' is a directory";
    if (!why.empty()) {
      std::cerr << "error: " << option << ": " << why << " (usage: appell simulate --help)\n";
      return false;
    }
  }
  return true;
}

}  // namespace appell::cli
