#pragma once
// Error types of the rsh module. User errors (bad arguments) are
// std::invalid_argument; malformed input files are rsh::FileFormatError,
// which names the file and line; sizes the machine cannot hold are
// rsh::ResourceError, which names the size; library code never aborts.
#include <stdexcept>
#include <string>

namespace rsh {

/// A malformed or unsupported input file. what() reads "<file>:<line>: <reason>".
class FileFormatError : public std::runtime_error {
 public:
  FileFormatError(const std::string& file, long line, const std::string& reason)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + reason), file_(file), line_(line) {}
  const std::string& file() const noexcept { return file_; }
  long line() const noexcept { return line_; }

 private:
  std::string file_;
  long line_;
};

/// A size the machine cannot hold (checked before allocating, since the kernel's out-of-memory killer ends
/// a process whose allocation it let through). what() names what was asked for and what is available.
class ResourceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rsh

/// Throws std::invalid_argument with a message when cond is false (user errors).
#define RSH_REQUIRE(cond, msg)                                  \
  do {                                                          \
    if (!(cond)) throw std::invalid_argument(std::string(msg)); \
  } while (0)
