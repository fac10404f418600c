#pragma once
// Error types of the rsh module. User errors (bad arguments) are
// std::invalid_argument; malformed input files are rsh::FileFormatError,
// which names the file and line; library code never aborts.
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

}  // namespace rsh

/// Throws std::invalid_argument with a message when cond is false (user errors).
#define RSH_REQUIRE(cond, msg)                                  \
  do {                                                          \
    if (!(cond)) throw std::invalid_argument(std::string(msg)); \
  } while (0)
